package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HostNesting}: one thread's host events nested with a stack and measured by the one rule (self CPU time is the
 * duration less the union of the children's spans, never negative; device time is the event's own External id's plus
 * its children's), one result record an event. Driven with hand-made host records, the shapes issue 30 names.
 */
class HostNestingTest {
    @TempDir
    Path dir;

    /** One host record {@code [row, start, -end, seq, name<<8|class, link]}, times in µs. */
    private static long[] host(int row, long startUs, long endUs, int seq, long link) {
        return new long[] {row, startUs * 1000, -endUs * 1000, seq, (long) seq << 8 | EventClass.HOST_OP.ordinal(), link};
    }

    /** What one event measured: self CPU, CPU total, self device, device total (µs). */
    private record Result(double selfCpu, double cpuTotal, double selfDevice, double deviceTotal) {
    }

    /** Runs the records (sorted here as the builder sorts them: row, start, longer first, seq), keyed by seq. */
    private Map<Long, Result> run(List<long[]> records, Map<Long, Double> deviceUs, OverheadEvents overhead) throws IOException {
        records.sort(Comparator.<long[]>comparingLong(r -> r[0]).thenComparingLong(r -> r[1]).thenComparingLong(r -> r[2])
                .thenComparingLong(r -> r[3]));
        Map<Long, Result> out = new HashMap<>();
        SpillCounter spilled = new SpillCounter();
        try (DeviceTimeIndex index = new DeviceTimeIndex(dir, spilled, 16);
             RecordSorter results = new RecordSorter(KeyAveragesBuilder.RESULT_WIDTH, 3, 64, dir, spilled)) {
            deviceUs.keySet().stream().sorted().forEach(id -> {
                try {
                    index.append(id, deviceUs.get(id));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            index.finish();
            int[] at = {0};
            RecordSorter.Cursor cursor = into -> {
                if (at[0] == records.size()) {
                    return false;
                }
                System.arraycopy(records.get(at[0]++), 0, into, 0, KeyAveragesBuilder.HOST_WIDTH);
                return true;
            };
            OverheadEvents ov = overhead == null ? new OverheadEvents() : overhead;
            new HostNesting(0, index, results).run(cursor, ov, ov.order(true));
            long[] r = new long[KeyAveragesBuilder.RESULT_WIDTH];
            for (RecordSorter.Cursor c = results.sorted(); c.next(r); ) {
                out.put(r[2], new Result(Double.longBitsToDouble(r[4]), Double.longBitsToDouble(r[5]), Double.longBitsToDouble(r[6]),
                        Double.longBitsToDouble(r[7])));
            }
        }
        return out;
    }

    @Test
    void crossingChildrenSubtractTheirUnionNotTheirSum() throws IOException {
        // issue 30: parent 0-1000 µs, childA 100-700, childB 300-900 (B starts inside A and ends after it: a sibling)
        List<long[]> records = new ArrayList<>(List.of(host(1, 0, 1000, 1, -1), host(1, 100, 700, 2, -1), host(1, 300, 900, 3, -1)));
        Map<Long, Result> r = run(records, Map.of(), null);
        assertEquals(3, r.size(), "one result an event");
        assertEquals(200.0, r.get(1L).selfCpu(), 1e-9, "1000 less the union 100-900, not less the sum (-200)");
        assertEquals(1000.0, r.get(1L).cpuTotal(), 1e-9);
        assertEquals(600.0, r.get(2L).selfCpu(), 1e-9);
        assertEquals(600.0, r.get(3L).selfCpu(), 1e-9, "B is not A's child: its whole time is its own");
    }

    @Test
    void nestedChildrenAndDeviceTimeFoldIntoTheirParent() throws IOException {
        List<long[]> records = new ArrayList<>(List.of(host(1, 0, 1000, 1, 7), host(1, 100, 400, 2, 8), host(1, 200, 300, 3, -1),
                host(1, 500, 700, 4, -1)));
        Map<Long, Result> r = run(records, Map.of(7L, 30.0, 8L, 20.0), null);
        assertEquals(500.0, r.get(1L).selfCpu(), 1e-9, "1000 less its two children's 300 + 200");
        assertEquals(200.0, r.get(2L).selfCpu(), 1e-9, "300 less its child's 100");
        assertEquals(100.0, r.get(3L).selfCpu(), 1e-9);
        assertEquals(50.0, r.get(1L).deviceTotal(), 1e-9, "its own id's 30 and its child's 20");
        assertEquals(30.0, r.get(1L).selfDevice(), 1e-9);
        assertEquals(20.0, r.get(2L).deviceTotal(), 1e-9);
        assertEquals(20.0, r.get(2L).selfDevice(), 1e-9);
        assertEquals(0.0, r.get(4L).deviceTotal(), 1e-9);
    }

    @Test
    void eventsOfAnotherThreadNeverNest() throws IOException {
        List<long[]> records = new ArrayList<>(List.of(host(1, 0, 1000, 1, -1), host(2, 100, 200, 2, -1)));
        Map<Long, Result> r = run(records, Map.of(), null);
        assertEquals(1000.0, r.get(1L).selfCpu(), 1e-9);
        assertEquals(100.0, r.get(2L).selfCpu(), 1e-9);
    }

    @Test
    void aZeroLengthEventAtItsParentsEndIsNotItsChild() throws IOException {
        // nests(ps, pe, cs, ce) needs cs < pe: an instant where the parent ends starts after it
        List<long[]> records = new ArrayList<>(List.of(host(1, 0, 100, 1, -1), host(1, 100, 100, 2, -1), host(1, 50, 50, 3, -1)));
        Map<Long, Result> r = run(records, Map.of(), null);
        assertEquals(100.0, r.get(1L).selfCpu(), 1e-9);
        assertEquals(0.0, r.get(2L).cpuTotal(), 1e-9);
        assertEquals(0.0, r.get(3L).cpuTotal(), 1e-9);
    }

    @Test
    void anOverheadEventIsAChildOfTheOpOnItsThread() throws IOException {
        OverheadEvents overhead = new OverheadEvents();
        assertTrue(overhead.add(100_000, 150_000, 9, 9, 1));
        List<long[]> records = new ArrayList<>(List.of(host(1, 0, 1000, 1, -1)));
        Map<Long, Result> r = run(records, Map.of(), overhead);
        assertEquals(950.0, r.get(1L).selfCpu(), 1e-9, "the op's 1000 less the overhead's 50");
        assertEquals(50.0, r.get(9L).selfCpu(), 1e-9, "the overhead event is measured too");
    }

    @Test
    void nestingPastTheBoundIsRefused() {
        List<long[]> records = new ArrayList<>();
        int depth = KeyAveragesBuilder.MAX_DEPTH + 1;
        for (int i = 0; i < depth; i++) {
            records.add(host(1, i, 2L * depth - i, i, -1));
        }
        TraceLimitException e = assertThrows(TraceLimitException.class, () -> run(records, Map.of(), null));
        assertEquals("nests events more than 65536 deep on one thread; summarise a shorter window of it", e.getMessage());
    }
}
