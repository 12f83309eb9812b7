package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * {@link IntervalUnion}: the busy time of the kernels of torch's own H200 trace against a plain sort-and-sweep; random
 * intervals (more than a buffer's worth, so merges run) against a bitmap of the nanoseconds covered, length and
 * disjoint pieces both; touching intervals are one piece, empty ones nothing; the union of two unions.
 */
class IntervalUnionTest {
    /** Length and pieces of the union, by sorting and sweeping. */
    private static long[] sweep(List<long[]> intervals) {
        List<long[]> sorted = new ArrayList<>(intervals.stream().filter(i -> i[1] > i[0]).toList());
        sorted.sort(Comparator.comparingLong(i -> i[0]));
        long length = 0;
        long pieces = 0;
        long start = 0;
        long end = Long.MIN_VALUE;
        for (long[] i : sorted) {
            if (pieces == 0 || i[0] > end) {
                length += pieces == 0 ? 0 : end - start;
                pieces++;
                start = i[0];
                end = i[1];
            } else {
                end = Math.max(end, i[1]);
            }
        }
        return new long[] {pieces == 0 ? 0 : length + end - start, pieces};
    }

    @Test
    void theKernelsOfTorchsTraceAgainstASweep() throws Exception {
        JsonNode events = TraceJson.MAPPER.readTree(TorchKeyAveragesTest.resource("torch_trace.json").toFile()).get("traceEvents");
        List<long[]> kernels = new ArrayList<>();
        IntervalUnion union = new IntervalUnion();
        for (JsonNode e : events) {
            if (e.path("cat").asText().equals("kernel")) {
                long start = Math.round(e.get("ts").asDouble() * 1000);
                long end = start + Math.round(e.get("dur").asDouble() * 1000);
                kernels.add(new long[] {start, end});
                union.add(start, end);
            }
        }
        assertTrue(kernels.size() > 10, "" + kernels.size());
        long[] want = sweep(kernels);
        assertEquals(want[0], union.length(), "busy ns");
        assertEquals(want[1], union.intervals(), "busy pieces");
    }

    @Test
    void randomIntervalsAgainstABitmap() {
        Random r = new Random(30);
        for (int round = 0; round < 4; round++) {
            int n = round == 0 ? 50 : IntervalUnion.BUFFER * round + 7;
            int span = 200_000;
            boolean[] covered = new boolean[span];
            IntervalUnion union = new IntervalUnion();
            IntervalUnion half = new IntervalUnion();
            IntervalUnion other = new IntervalUnion();
            for (int i = 0; i < n; i++) {
                int start = r.nextInt(span - 100);
                int end = start + r.nextInt(r.nextInt(10) == 0 ? 100 : 8) - (r.nextInt(20) == 0 ? 3 : 0);
                union.add(start, end);
                (i % 2 == 0 ? half : other).add(start, end);
                for (int k = start; k < end; k++) {
                    covered[k] = true;
                }
            }
            long length = 0;
            long pieces = 0;
            for (int k = 0; k < span; k++) {
                length += covered[k] ? 1 : 0;
                pieces += covered[k] && (k == 0 || !covered[k - 1]) ? 1 : 0;
            }
            assertEquals(length, union.length(), "round " + round);
            assertEquals(pieces, union.intervals(), "round " + round);
            assertEquals(length, half.unionLength(other), "the union of two unions");
            assertEquals(pieces, half.union(other).intervals());
        }
    }

    @Test
    void touchingIsOnePieceEmptyIsNothing() {
        IntervalUnion u = new IntervalUnion();
        assertEquals(0, u.length());
        assertEquals(0, u.intervals());
        u.add(10, 20);
        u.add(20, 30);
        u.add(5, 5);
        u.add(50, 40);
        assertEquals(20, u.length());
        assertEquals(1, u.intervals(), "[10,20) and [20,30) touch: one piece");
        u.add(31, 32);
        assertEquals(21, u.length());
        assertEquals(2, u.intervals(), "a 1 ns gap is a gap");
        u.add(0, 100);
        assertEquals(100, u.length());
        assertEquals(1, u.intervals());
        IntervalUnion far = new IntervalUnion();
        far.add(Long.MIN_VALUE / 2, Long.MIN_VALUE / 2 + 3);
        far.add(Long.MAX_VALUE / 2, Long.MAX_VALUE / 2 + 4);
        assertEquals(7, far.length());
        assertEquals(107, far.unionLength(u));
    }
}
