package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.encoders.EventTable;
import org.flagos.trace.encoders.ParquetSink;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * The walk alone, with a third format: a sink that only writes down what it is handed. Whatever a
 * format needs (which records, op rows on the API thread's row, arrows once both ends are out,
 * counts) comes from the walk.
 */
class TraceWalkTest {
    /** The walk decides a device record's row once: a sync on no stream (-1) on the device row, anything else on its stream. */
    @Test
    void aSyncOnNoStreamGoesToTheDeviceRowAndEverythingElseToItsStream() {
        TraceRecord r = new TraceRecord();
        r.kind = EventKind.SYNC;
        r.stream = -1;
        assertEquals(TraceSink.DEVICE_ROW, TraceWalk.deviceRow(r));
        r.stream = 7;
        assertEquals(7, TraceWalk.deviceRow(r));
        r.kind = EventKind.KERNEL;
        assertEquals(7, TraceWalk.deviceRow(r));
        r.stream = -1;
        assertEquals(-1, TraceWalk.deviceRow(r), "only a sync moves to the device row");
    }

    private static final long BASE = 1_795_982_694_000_000_000L;

    /** A format of one line per call. */
    private static class LinesSink implements TraceSink {
        final List<String> lines = new ArrayList<>();

        @Override
        public void header(long baseNs) {
            lines.add("header " + (baseNs - BASE));
        }

        @Override
        public void apiSlice(TraceRecord api) {
            lines.add("api " + api.correlation());
        }

        @Override
        public void deviceSlice(TraceRecord device, int row) {
            lines.add("device " + device.correlation());
        }

        @Override
        public void hostOpSlice(HostOpRow op) {
            lines.add("op " + op.externalId + " pid " + op.pid + " tid " + op.tid + " idx " + op.evIdx);
        }

        @Override
        public void unifiedMemory(TraceRecord r) {
            lines.add("unified memory " + r.device + " " + (r.startNs - BASE) + " " + r.umCounter);
        }

        @Override
        public void markInstant(MarkRow m) {
            lines.add("mark " + m.tid + " " + (m.tsNs - BASE) + " #" + m.nameId);
        }

        @Override
        public void gpuAnnotation(GpuAnnotationRow a) {
            lines.add("annotation " + a.externalId + " stream " + a.stream + " " + (a.startNs - BASE) + "-" + (a.endNs - BASE));
        }

        @Override
        public void memoryInstant(MemoryRow m) {
            lines.add("memory " + m.tid + " " + (m.tsNs - BASE) + " " + m.bytes + " total " + m.totalAllocated);
        }

        @Override
        public void flow(FlowArrow arrow) {
            lines.add("flow " + arrow.correlation() + " " + (arrow.hostTs() - BASE) + "->" + (arrow.deviceTs() - BASE));
        }

        @Override
        public int eventsPerFlow() {
            return 1;
        }

        @Override
        public void endOfBatch() {
        }

        @Override
        public long footer(TraceFooter end) {
            lines.add("footer events " + end.events() + " span " + end.windowBounded());
            return 0;
        }

        @Override
        public void overheadSlice(TraceRecord overhead) {
            lines.add("overhead " + (overhead.startNs - BASE));
        }
    }

    private static TraceRecord record(RecordType type, EventKind kind, long correlation, long start) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = type;
        r.kind = kind;
        r.startNs = BASE + start;
        r.endNs = BASE + start + 10;
        if (correlation > 0) {
            r.correlation(correlation);
        }
        r.nameId = 0;
        return r;
    }

    @Test
    void aSinkIsHandedTheRecordsArrowsAndSettledOpsInTraceOrder() throws Exception {
        NameTable names = new NameTable();
        names.intern("x");
        CaptureAccounting accounting = new CaptureAccounting(new DecodeStats());
        LinesSink sink = new LinesSink();
        TraceWalk walk = new TraceWalk(sink, names, new TraceHeader("t", List.of(), BASE, Map.of(), "p", 77), accounting,
                StagesBeforeWalk.of(new NameStage(TraceWalkTestNames.NONE, names), new ExternalCorrelationJoin(),
                        CaptureWindowFilter.unbounded()));

        TraceRecord kernel = record(RecordType.ACTIVITY, EventKind.KERNEL, 5, 300);
        kernel.externalId(1);
        TraceRecord launch = record(RecordType.ACTIVITY, EventKind.RUNTIME, 5, 100);
        launch.externalId(1);
        launch.processId = 42;
        launch.threadId = 9;
        TraceRecord parked = record(RecordType.ACTIVITY, EventKind.RUNTIME, 6, 150);
        parked.parked = true;
        TraceRecord releaser = record(RecordType.CORRELATION_BINDING, null, 0, 0);
        TraceRecord released = record(RecordType.ACTIVITY, EventKind.RUNTIME, 6, 150);
        releaser.release(released);
        TraceRecord outside = record(RecordType.ACTIVITY, EventKind.KERNEL, 7, 400);
        outside.outsideWindow = true;
        TraceRecord op = record(RecordType.HOST_OP, null, 0, 50);
        op.externalId(1);
        op.threadId = 3;
        TraceRecord end = record(RecordType.END_OF_CAPTURE, null, 0, 0);

        long sequence = 0;
        for (TraceRecord r : List.of(kernel, launch, parked, releaser, outside, op, end)) {
            walk.onEvent(r, sequence++, true);
        }
        walk.awaitFinished();
        assertNull(walk.failure());
        assertEquals(List.of(
                "header 0",
                "device 5",
                "api 5",
                "flow 5 100->300",
                "api 6",
                "op 1 pid 42 tid 9 idx 0",
                "annotation 1 stream 0 299-311", // 1 ns wider than its kernel each side, as torch draws it
                "footer events 6 span false"), sink.lines,
                "a parked slot is handed once, where it is released; an op on the row of its launch's thread,"
                        + " its span on its kernel's stream right after it");
        assertEquals(6, walk.events(), "3 records, 1 op, 1 GPU annotation, 1 flow of one event in this format");
        assertEquals(1, accounting.hostOps());
    }

    /**
     * A live session's bound ({@link TraceWalk#settleOpsAfter}): an op's row and span are written
     * while records still come, and a device record that names it after that is drawn anyway, with its
     * arrow, outside its op's span, and counted in the accounting and its lines.
     */
    @Test
    void underALiveBoundALateRecordIsDrawnAndCountedAfterItsOpSettled() throws Exception {
        NameTable names = new NameTable();
        names.intern("x");
        CaptureAccounting accounting = new CaptureAccounting(new DecodeStats());
        LinesSink sink = new LinesSink();
        TraceWalk walk = new TraceWalk(sink, names, new TraceHeader("t", List.of(), BASE, Map.of(), "p", 77), accounting,
                StagesBeforeWalk.of(new NameStage(TraceWalkTestNames.NONE, names), new ExternalCorrelationJoin(),
                        CaptureWindowFilter.unbounded()));
        walk.settleOpsAfter(2);

        TraceRecord launch1 = record(RecordType.ACTIVITY, EventKind.RUNTIME, 5, 100);
        launch1.externalId(1);
        launch1.processId = 42;
        launch1.threadId = 9;
        TraceRecord launch2 = record(RecordType.ACTIVITY, EventKind.RUNTIME, 6, 120);
        launch2.externalId(1);
        launch2.processId = 42;
        launch2.threadId = 9;
        TraceRecord op = record(RecordType.HOST_OP, null, 0, 50);
        op.externalId(1);
        op.threadId = 3;
        op.endNs = BASE + 200;
        TraceRecord onTime = record(RecordType.ACTIVITY, EventKind.KERNEL, 5, 300); // the 2nd record after the op
        onTime.externalId(1);
        TraceRecord filler = record(RecordType.CORRELATION_BINDING, null, 0, 0);
        TraceRecord late = record(RecordType.ACTIVITY, EventKind.KERNEL, 6, 400); // the 3rd: its op has settled
        late.externalId(1);
        TraceRecord end = record(RecordType.END_OF_CAPTURE, null, 0, 0);

        long sequence = 0;
        for (TraceRecord r : List.of(launch1, launch2, op, filler, onTime, filler, late, end)) {
            walk.onEvent(r, sequence++, true);
        }
        walk.awaitFinished();
        assertNull(walk.failure());
        assertEquals(List.of(
                "header 0",
                "api 5",
                "api 6",
                "device 5",
                "flow 5 100->300",
                "op 1 pid 42 tid 9 idx 0",
                "annotation 1 stream 0 299-311", // its span has the kernel within the bound only
                "device 6",
                "flow 6 120->400",
                "footer events 8 span false"), sink.lines,
                "the op settles two records after it, before its late kernel, which is still drawn with its arrow");
        assertEquals(1, accounting.recordsAfterOpSettled());
        assertEquals(3 + 2, accounting.opSettleRecords(), "the late record (3 after its op) raised the bound by the declared 2");
        assertEquals(0, accounting.deviceRecordsWithoutOp(), "late for its op, not of no op");
        assertTrue(accounting.lines().stream().anyMatch(l -> l.startsWith("records after their op settled: 1 ")),
                String.join("\n", accounting.lines()));
        assertEquals(0.010, walk.summary().row("x").selfDeviceTimeTotalUs(), 1e-9, "the late kernel is in no op's total");
    }

    @Test
    void afterASinkFailsNothingMoreIsHandedAndTheEndStillComes() throws Exception {
        NameTable names = new NameTable();
        names.intern("x");
        CaptureAccounting accounting = new CaptureAccounting(new DecodeStats());
        LinesSink failing = new LinesSink() {
            @Override
            public void deviceSlice(TraceRecord device, int row) {
                throw new IllegalStateException("disk full");
            }
        };
        TraceWalk walk = new TraceWalk(failing, names, new TraceHeader("t", List.of(), BASE, Map.of(), "p", 77), accounting,
                StagesBeforeWalk.of(new NameStage(TraceWalkTestNames.NONE, names), new ExternalCorrelationJoin(),
                        CaptureWindowFilter.unbounded()));
        walk.onEvent(record(RecordType.ACTIVITY, EventKind.KERNEL, 5, 300), 0, true);
        walk.onEvent(record(RecordType.ACTIVITY, EventKind.RUNTIME, 5, 100), 1, true);
        walk.onEvent(record(RecordType.END_OF_CAPTURE, null, 0, 0), 2, true);
        walk.awaitFinished();
        assertEquals("disk full", walk.failure().getMessage());
        assertEquals(List.of("header 0"), failing.lines);
    }

    @Test
    void aFailedWalkLetsItsSinkReleaseWhatItHoldsOnceAndTheParquetSinkLeavesNoScratch() throws Exception {
        NameTable names = new NameTable();
        names.intern("x");
        java.util.concurrent.atomic.AtomicInteger abandoned = new java.util.concurrent.atomic.AtomicInteger();
        LinesSink failing = new LinesSink() {
            @Override
            public void deviceSlice(TraceRecord device, int row) {
                throw new IllegalStateException("disk full");
            }

            @Override
            public void abandon() {
                abandoned.incrementAndGet();
            }
        };
        TraceWalk walk = new TraceWalk(failing, names, new TraceHeader("t", List.of(), BASE, Map.of(), "p", 77),
                new CaptureAccounting(new DecodeStats()),
                StagesBeforeWalk.of(new NameStage(TraceWalkTestNames.NONE, names), new ExternalCorrelationJoin(),
                        CaptureWindowFilter.unbounded()));
        walk.onEvent(record(RecordType.ACTIVITY, EventKind.KERNEL, 5, 300), 0, true);
        walk.onEvent(record(RecordType.ACTIVITY, EventKind.KERNEL, 6, 400), 1, true);
        walk.onEvent(record(RecordType.END_OF_CAPTURE, null, 0, 0), 2, true);
        walk.awaitFinished();
        assertEquals(1, abandoned.get(), "once, at the first failure");

        try (org.flagos.trace.testing.TargetScratch scratch = org.flagos.trace.testing.TargetScratch.of("parquet-abandon")) {
            java.nio.file.Path dir = scratch.dir();
            java.nio.file.Path file = dir.resolve("events.parquet");
            org.flagos.trace.capture.AtomicOutput output = new org.flagos.trace.capture.AtomicOutput(file);
            ParquetSink parquet = new ParquetSink(output.stream(), names,
                    new TraceHeader("t", List.of(), BASE, Map.of(), "p", 77), k -> "cuda_runtime");
            parquet.header(BASE);
            for (int i = 1; i <= 100; i++) {
                parquet.apiSlice(record(RecordType.ACTIVITY, EventKind.RUNTIME, i, i * 100L));
            }
            try (java.util.stream.Stream<java.nio.file.Path> made = java.nio.file.Files.list(dir)) {
                assertTrue(made.noneMatch(p -> p.getFileName().toString().startsWith(EventTable.SCRATCH_PREFIX)),
                        "no scratch file: the rows go straight into the Parquet file");
            }
            parquet.abandon();
            output.close(); // not committed: the temporary name goes
            try (java.util.stream.Stream<java.nio.file.Path> left = java.nio.file.Files.list(dir)) {
                assertEquals(List.of(), left.toList(), "nothing left once the walk failed");
            }
        }
    }
}
