package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.EventTranslatorOneArg;
import com.lmax.disruptor.dsl.ProducerType;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpCursor;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.TraceHeader;
import org.junit.jupiter.api.Test;

/**
 * {@link HostOpMerge}: the order in which a replay's ops and records reach the ring, seen by a stage of a real
 * {@link CapturePipeline}: an op goes in once a record ending at or after its end has gone in; ops that a thread wrote
 * out of step are put in end order (then External id); the ops up to the first in the window go first, in file order;
 * records that are not activity do not move time on; the rest go after the last record; at most
 * {@link HostOpMerge#LOOKAHEAD} ops are read ahead.
 */
class HostOpMergeTest {
    /** What reached the ring, in ring order: an op's name, or "r" and a record's end. */
    private final List<String> seen = Collections.synchronizedList(new ArrayList<>());

    private final EventHandler<TraceRecord> probe = (slot, sequence, endOfBatch) -> {
        if (slot.type == RecordType.HOST_OP) {
            seen.add(slot.opName);
        } else if (slot.type == RecordType.ACTIVITY) {
            seen.add("r" + slot.endNs);
        } else if (slot.type == RecordType.CORRELATION_BINDING) {
            seen.add("b" + slot.endNs);
        }
    };

    private static final EventTranslatorOneArg<TraceRecord, long[]> RECORD = (slot, sequence, r) -> {
        slot.clear();
        slot.type = r[0] == 0 ? RecordType.ACTIVITY : RecordType.CORRELATION_BINDING;
        slot.kind = EventKind.RUNTIME;
        slot.startNs = r[1] - 1;
        slot.endNs = r[1];
        slot.correlation(r[1]);
        slot.threadId = 1;
        slot.processId = 1;
    };

    /** A cursor over {@code ops} that counts how many were read. */
    private static final class Counting implements HostOpCursor {
        final List<HostOp> ops;
        int read;

        Counting(List<HostOp> ops) {
            this.ops = ops;
        }

        @Override
        public HostOp next() {
            return read < ops.size() ? ops.get(read++) : null;
        }

        @Override
        public void close() {
        }
    }

    private static HostOp op(String name, long id, long startNs, long endNs) {
        return new HostOp(name, new ExternalId(id), 1, startNs, endNs);
    }

    private CapturePipeline pipeline() {
        return CapturePipeline.builder().names(new NameTable()).apiNames(new UnavailableTracer("t").apiNames())
                .vendorStages(List.of(probe)).window(CaptureWindowFilter.unbounded())
                .header(new TraceHeader("t", List.of(), null, Map.of(), "p", 1)).format(TraceFormat.JSON).out(new ByteArrayOutputStream())
                .decodeStats(new DecodeStats()).producers(ProducerType.SINGLE).ringSize(1 << 10).build();
    }

    /** Replays {@code records} (each {activity 0 or binding 1, end}) with {@code ops} as CaptureReplay does. */
    private List<String> replay(List<HostOp> ops, long windowStart, long windowEnd, long[]... records) throws Exception {
        try (CapturePipeline p = pipeline()) {
            HostOpMerge merge = new HostOpMerge(p, new Counting(ops));
            merge.publishFirstInWindow(windowStart, windowEnd);
            for (long[] r : records) {
                merge.publish(RECORD, r);
            }
            merge.publishRest();
            p.finish();
        }
        return List.copyOf(seen);
    }

    @Test
    void anOpGoesInOnceARecordHasEndedAtOrAfterIt() throws Exception {
        List<HostOp> ops = List.of(op("A", 1, 0, 100), op("B", 2, 10, 250), op("C", 3, 20, 400), op("D", 4, 30, 1000));
        assertEquals(List.of("A", "r50", "r120", "r250", "B", "r500", "C", "D"),
                replay(ops, 0, Long.MAX_VALUE, new long[] {0, 50}, new long[] {0, 120}, new long[] {0, 250}, new long[] {0, 500}),
                "A first (the first in the window), B at the record ending at its end, C after 500, D after the last record");
    }

    @Test
    void opsWrittenOutOfStepGoInEndOrderThenByExternalId() throws Exception {
        List<HostOp> ops = List.of(op("first", 1, 0, 10), op("late", 9, 0, 300), op("tieB", 7, 0, 200), op("tieA", 5, 0, 200),
                op("early", 8, 0, 100));
        assertEquals(List.of("first", "r150", "early", "r300", "tieA", "tieB", "late"),
                replay(ops, 0, Long.MAX_VALUE, new long[] {0, 150}, new long[] {0, 300}));
    }

    @Test
    void theOpsBeforeTheWindowGoFirstInFileOrder() throws Exception {
        List<HostOp> ops = List.of(op("before2", 1, 0, 20), op("before1", 2, 0, 10), op("in", 3, 100, 200), op("after", 4, 150, 160));
        assertEquals(List.of("before2", "before1", "in", "r170", "after"), replay(ops, 100, 2000, new long[] {0, 170}),
                "up to the first op in the window in file order, before any record; then by end");
        seen.clear();
        assertEquals(List.of("a", "b", "r1"), replay(List.of(op("a", 1, 0, 5), op("b", 2, 0, 6)), 100, 2000, new long[] {0, 1}),
                "no op in the window: every op goes first, in file order");
    }

    @Test
    void recordsThatAreNotActivityDoNotMoveTimeOn() throws Exception {
        List<HostOp> ops = List.of(op("A", 1, 0, 10), op("B", 2, 0, 100));
        assertEquals(List.of("A", "b500", "r50", "B"), replay(ops, 0, Long.MAX_VALUE, new long[] {1, 500}, new long[] {0, 50}));
    }

    @Test
    void atMostTheLookaheadIsReadAhead() throws Exception {
        int n = HostOpMerge.LOOKAHEAD + 1000;
        List<HostOp> ops = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ops.add(op("op" + i, i + 1, 1_000 + i, 1_000 + i));
        }
        Counting cursor = new Counting(ops);
        try (CapturePipeline p = pipeline()) {
            HostOpMerge merge = new HostOpMerge(p, cursor);
            merge.publishFirstInWindow(0, Long.MAX_VALUE);
            assertEquals(1, cursor.read, "the first op is in the window");
            merge.publish(RECORD, new long[] {0, 5});
            assertEquals(1 + HostOpMerge.LOOKAHEAD, cursor.read, "a full lookahead, no more");
            merge.publish(RECORD, new long[] {0, 1_000 + 99});
            assertEquals(1 + HostOpMerge.LOOKAHEAD + 99, cursor.read, "as many read as went in");
            merge.publishRest();
            assertEquals(n, cursor.read);
            p.finish();
        }
        assertEquals(n + 2, seen.size());
        assertEquals("op98", seen.get(100));
        assertEquals("r1099", seen.get(2));
        assertEquals("op99", seen.get(101), "op1..op99 end by 1,099 and go in after it");
        List<String> rest = seen.subList(102, seen.size());
        for (int i = 0; i < rest.size(); i++) {
            assertEquals("op" + (i + 100), rest.get(i));
        }
        assertTrue(seen.indexOf("r5") == 1, seen.subList(0, 3).toString());
    }
}
