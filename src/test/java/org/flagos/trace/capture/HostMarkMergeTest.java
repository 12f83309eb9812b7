package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.EventTranslatorOneArg;
import com.lmax.disruptor.dsl.ProducerType;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpCursor;
import org.flagos.trace.ingest.MarksJsonlReader;
import org.flagos.trace.ingest.MarksJsonlWriter;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.MarkerPhase;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.TraceHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HostMarkMerge}: a replay's marks reach the ring, seen by a stage of a real {@link CapturePipeline}, once a
 * record ending at or after them has gone in, in time order (then file order), the rest after the last record; each as
 * an annotation mark (MARKER, INSTANT) on its process and thread whose texts its naming resolves; the records it
 * forwards reach the op merge after it unchanged, ops and all.
 */
class HostMarkMergeTest {
    /** What reached the ring, in ring order: "r" and a record's end, an op's name, or "m:" a mark's name@domain/tid. */
    private final List<String> seen = Collections.synchronizedList(new ArrayList<>());

    private final EventHandler<TraceRecord> probe = (slot, sequence, endOfBatch) -> {
        if (slot.type == RecordType.HOST_OP) {
            seen.add(slot.opName);
        } else if (slot.type == RecordType.ACTIVITY && slot.kind == EventKind.MARKER) {
            assertEquals(MarkerPhase.INSTANT, slot.markerPhase);
            assertEquals(slot.startNs, slot.endNs, "no duration");
            assertEquals(false, slot.hasExternalId(), "no External id");
            assertEquals(42, slot.processId);
            String domain = slot.domainHandle == 0 ? "" : "@" + slot.naming.markerName(slot.domainHandle);
            seen.add("m:" + slot.naming.markerName(slot.nameHandle) + domain + "/" + slot.threadId + "@" + slot.startNs);
        } else if (slot.type == RecordType.ACTIVITY) {
            seen.add("r" + slot.endNs);
        }
    };

    private static final EventTranslatorOneArg<TraceRecord, Long> RECORD = (slot, sequence, end) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.RUNTIME;
        slot.startNs = end - 1;
        slot.endNs = end;
        slot.threadId = 1;
        slot.processId = 42;
    };

    private CapturePipeline pipeline() {
        return CapturePipeline.builder().names(new NameTable()).apiNames(new UnavailableTracer("t").apiNames())
                .vendorStages(List.of(probe)).window(CaptureWindowFilter.unbounded())
                .header(new TraceHeader("t", List.of(), null, Map.of(), "p", 1)).format(TraceFormat.JSON).out(new ByteArrayOutputStream())
                .decodeStats(new DecodeStats()).producers(ProducerType.SINGLE).ringSize(1 << 10).build();
    }

    private static Path marksFile(Path dir, List<HostMark> marks) throws Exception {
        Path file = dir.resolve("x.marks.jsonl");
        try (MarksJsonlWriter w = new MarksJsonlWriter(file)) {
            for (HostMark m : marks) {
                w.mark(m);
            }
            w.finish();
        }
        return file;
    }

    private static HostMark mark(String name, long thread, long ts) {
        return new HostMark(name, null, 42, thread, ts);
    }

    @Test
    void aMarkGoesInOnceARecordHasEndedAtOrAfterItInTimeOrder(@TempDir Path dir) throws Exception {
        Path file = marksFile(dir, List.of(mark("a", 1, 50), mark("c", 2, 130), mark("b", 1, 120), mark("tie2", 1, 300),
                new HostMark("tie1", "app", 42, 3, 300), mark("late", 1, 900)));
        try (CapturePipeline p = pipeline(); MarksJsonlReader reader = MarksJsonlReader.open(file)) {
            HostMarkMerge merge = new HostMarkMerge(p, p, reader);
            for (long end : new long[] {40, 50, 125, 300}) {
                merge.publish(RECORD, end);
            }
            merge.publishRest();
            p.finish();
        }
        assertEquals(List.of("r40", "r50", "m:a/1@50", "r125", "m:b/1@120", "r300", "m:c/2@130", "m:tie2/1@300",
                "m:tie1@app/3@300", "m:late/1@900"), List.copyOf(seen),
                "by time, ties in file order; the domain's text behind its handle; the last after the last record");
    }

    @Test
    void recordsGoOnToTheOpMergeWithTheirOps(@TempDir Path dir) throws Exception {
        Path file = marksFile(dir, List.of(mark("m", 1, 60)));
        List<HostOp> ops = List.of(new HostOp("A", new ExternalId(1), 1, 0, 10), new HostOp("B", new ExternalId(2), 1, 20, 70));
        HostOpCursor cursor = new HostOpCursor() {
            int at;

            @Override
            public HostOp next() {
                return at < ops.size() ? ops.get(at++) : null;
            }

            @Override
            public void close() {
            }
        };
        try (CapturePipeline p = pipeline(); MarksJsonlReader reader = MarksJsonlReader.open(file)) {
            HostOpMerge opMerge = new HostOpMerge(p, cursor);
            opMerge.publishFirstInWindow(0, Long.MAX_VALUE);
            HostMarkMerge merge = new HostMarkMerge(p, opMerge, reader);
            merge.publish(RECORD, 65L);
            merge.publish(RECORD, 80L);
            opMerge.publishRest();
            merge.publishRest();
            p.finish();
        }
        assertEquals(List.of("A", "r65", "m:m/1@60", "r80", "B"), List.copyOf(seen),
                "the op merge sees every record (B goes in at the record ending at 80), the mark at 65");
    }
}
