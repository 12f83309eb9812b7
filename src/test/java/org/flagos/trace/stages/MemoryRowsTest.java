package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * Torch's {@code [memory]} instants on their own, from hand-made allocation and release records: each
 * on the thread of the runtime call with its correlation (walked before it or after it), drawn in
 * time order with its device's running total, a release of memory never seen counted instead of a
 * negative total, and a record whose call never comes drawn on thread 0 after the horizon, counted.
 */
class MemoryRowsTest {
    private static final long PID = 4242;
    private static final long T0 = 1_796_157_628_000_000_000L;

    /** What the sink was handed: pid, tid, ts, device type and id, bytes, total, Ev Idx. */
    private record Row(long pid, long tid, long tsNs, int deviceType, int deviceId, long bytes, long total, long evIdx) {
    }

    private static final class Rows implements TraceSink {
        final List<Row> rows = new ArrayList<>();

        @Override
        public void memoryInstant(MemoryRow m) {
            rows.add(new Row(m.pid, m.tid, m.tsNs, m.deviceType, m.deviceId, m.bytes, m.totalAllocated, m.evIdx));
            assertEquals(m.totalAllocated, m.totalReserved);
        }

        @Override public void header(long baseNs) { throw new AssertionError(); }
        @Override public void apiSlice(TraceRecord api) { throw new AssertionError(); }
        @Override public void deviceSlice(TraceRecord device, int row) { throw new AssertionError(); }
        @Override public void hostOpSlice(HostOpRow op) { throw new AssertionError(); }
        @Override public void gpuAnnotation(GpuAnnotationRow span) { throw new AssertionError(); }
        @Override public void markInstant(MarkRow mark) { throw new AssertionError(); }
        @Override public void unifiedMemory(TraceRecord record) { throw new AssertionError(); }
        @Override public void flow(FlowArrow arrow) { throw new AssertionError(); }
        @Override public int eventsPerFlow() { return 2; }
        @Override public void endOfBatch() { throw new AssertionError(); }
        @Override public long footer(TraceFooter end) { throw new AssertionError(); }
        @Override public void overheadSlice(TraceRecord overhead) { throw new AssertionError(); }
    }

    private static TraceRecord memory(long correlation, long tsNs, int device, long bytes, boolean release, MemoryKind kind) {
        TraceRecord r = new TraceRecord();
        r.activity(EventKind.MEMORY, tsNs, tsNs, correlation);
        r.processId = (int) PID;
        r.device = device;
        r.bytes = bytes;
        r.memoryRelease = release;
        r.memoryKind = kind;
        r.address = 0x7f00_0000_0000L + correlation;
        return r;
    }

    private static TraceRecord call(long correlation, long tid) {
        TraceRecord r = new TraceRecord();
        r.activity(EventKind.RUNTIME, T0, T0 + 10, correlation);
        r.processId = (int) PID;
        r.threadId = tid;
        return r;
    }

    @Test
    void eachGoesOnItsCallsThreadInTimeOrderWithItsDevicesTotal() throws IOException {
        Rows sink = new Rows();
        MemoryRows memory = new MemoryRows(sink, () -> 100);
        FlowIndex flows = new FlowIndex(1 << 10);
        // a malloc walked before its memory record waits in the flow index
        flows.host(1, T0, PID, 11);
        memory.record(memory(1, T0 + 300, 0, 1_000, false, MemoryKind.DEVICE), flows);
        // memory records written inside their call, before the call's own record (CUPTI's order)
        memory.record(memory(2, T0 + 100, 1, 500, false, MemoryKind.DEVICE), flows);
        memory.record(memory(3, T0 + 400, 0, 300, true, MemoryKind.DEVICE), flows);
        memory.record(memory(4, T0 + 200, -1, 64, false, MemoryKind.PINNED), flows);
        memory.api(call(2, 12));
        memory.api(call(3, 13));
        memory.api(call(4, 14));
        memory.api(call(99, 15)); // a call with nothing waiting
        assertEquals(List.of(), sink.rows, "nothing drawn before a horizon of arrivals or the end");
        assertEquals(4, memory.held());
        memory.finish();
        assertEquals(List.of(
                new Row(PID, 12, T0 + 100, MemoryRow.DEVICE_TYPE_CUDA, 1, 500, 500, 100),
                new Row(PID, 14, T0 + 200, MemoryRow.DEVICE_TYPE_CPU, -1, 64, 64, 101),
                new Row(PID, 11, T0 + 300, MemoryRow.DEVICE_TYPE_CUDA, 0, 1_000, 1_000, 102),
                new Row(PID, 13, T0 + 400, MemoryRow.DEVICE_TYPE_CUDA, 0, -300, 700, 103)), sink.rows);
        assertEquals(4, memory.drawn());
        assertEquals(0, memory.withoutThread());
        assertEquals(0, memory.unseenReleases());
    }

    @Test
    void aReleaseOfMemoryNeverSeenKeepsTheTotalAtZeroAndIsCounted() throws IOException {
        Rows sink = new Rows();
        MemoryRows memory = new MemoryRows(sink, () -> 0);
        FlowIndex flows = new FlowIndex(1 << 10);
        flows.host(1, T0, PID, 11);
        flows.host(2, T0, PID, 11);
        memory.record(memory(1, T0 + 1, 0, 256, false, MemoryKind.DEVICE), flows);
        memory.record(memory(2, T0 + 2, 0, 1_024, true, MemoryKind.DEVICE), flows); // allocated before the capture
        memory.finish();
        assertEquals(256, sink.rows.get(0).total());
        assertEquals(-1_024, sink.rows.get(1).bytes());
        assertEquals(0, sink.rows.get(1).total());
        assertEquals(1, memory.unseenReleases());
    }

    @Test
    void aRecordWhoseCallNeverComesGoesOnThreadZeroAfterTheHorizon() throws IOException {
        Rows sink = new Rows();
        MemoryRows memory = new MemoryRows(sink, () -> 0);
        FlowIndex flows = new FlowIndex(1 << 10);
        memory.record(memory(7, T0, 0, 128, false, MemoryKind.DEVICE), flows);
        TraceRecord noCorrelation = memory(8, T0 + 1, 0, 64, false, MemoryKind.DEVICE);
        noCorrelation.clearCorrelation();
        memory.record(noCorrelation, flows);
        assertEquals(1, memory.withoutThread(), "no correlation: thread 0 at once");
        for (int i = 0; i < MemoryRows.HORIZON; i++) {
            memory.arrival();
        }
        assertEquals(List.of(), sink.rows, "still within the horizon");
        memory.arrival();
        assertEquals(List.of(new Row(PID, 0, T0, MemoryRow.DEVICE_TYPE_CUDA, 0, 128, 128, 0),
                new Row(PID, 0, T0 + 1, MemoryRow.DEVICE_TYPE_CUDA, 0, 64, 192, 1)), sink.rows);
        assertEquals(2, memory.withoutThread());
        memory.api(call(7, 11)); // too late: drawn already
        memory.finish();
        assertEquals(2, sink.rows.size());
        assertEquals(0, memory.held());
    }

    @Test
    void manyRecordsOutOfOrderComeOutInTimeOrderWithExactTotals() throws IOException {
        Rows sink = new Rows();
        MemoryRows memory = new MemoryRows(sink, () -> 0);
        FlowIndex flows = new FlowIndex(1 << 12);
        int n = 1_000; // past the ring's first 256 places
        for (int i = 0; i < n; i++) {
            long t = (i * 7919L) % n; // a permutation of 0..n-1
            flows.host(1 + i, T0, PID, 20 + (i % 3));
            memory.record(memory(1 + i, T0 + t, 2, t + 1, false, MemoryKind.DEVICE), flows);
        }
        memory.finish();
        assertEquals(n, sink.rows.size());
        long total = 0;
        for (int i = 0; i < n; i++) {
            Row r = sink.rows.get(i);
            assertEquals(T0 + i, r.tsNs(), "time order");
            total += i + 1;
            assertEquals(total, r.total());
            assertEquals(i, r.evIdx());
        }
        assertEquals(n, memory.maxHeld());
    }
}
