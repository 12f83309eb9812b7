package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Collectives grouped by kind: calls and time for all, bytes and algorithm bandwidth only over the calls
 * whose size is known (the larger of the element counts times the dtype's size), busiest kind first.
 */
class CollectiveStatsTest {
    private static final String ALL_REDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

    @Test
    void kindsWithTheirSizedCallsAndBandwidth() {
        CollectiveStats stats = new CollectiveStats();
        assertTrue(stats.isEmpty());
        stats.add(ALL_REDUCE, 1_000, 256, 256, "Float"); // 256 x 4 bytes
        stats.add(ALL_REDUCE, 500, -1, -1, "Float"); // no element count: counted, not sized
        stats.add("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 3_000, 10, 40, "Half"); // 40 x 2
        stats.add("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", 10, 5, 5, "NoSuchType"); // unknown dtype
        stats.add("ncclDevKernel_Broadcast_RING_LL", 10, 5, 5, null);
        assertEquals(List.of(
                new CollectiveStats.Row("all_gather", 1, 3_000, 1, 80, 3_000, 26_666_666), // 80 B / 3 us, rounded down
                new CollectiveStats.Row("all_reduce", 2, 1_500, 1, 1_024, 1_000, 1_024_000_000),
                new CollectiveStats.Row("broadcast", 1, 10, 0, 0, 0, -1), // ties on time: by kind
                new CollectiveStats.Row("send_recv", 1, 10, 0, 0, 0, -1)), stats.rows());
    }

    @Test
    void aSizedCallOfNoTimeHasNoBandwidth() {
        CollectiveStats stats = new CollectiveStats();
        stats.add("ncclKernel_ReduceScatter", 0, 8, 2, "Double");
        assertEquals(List.of(new CollectiveStats.Row("reduce_scatter", 1, 0, 1, 64, 0, -1)), stats.rows());
    }

    @Test
    void bandwidthIsExactBeyondWhatALongProductHolds() {
        CollectiveStats stats = new CollectiveStats();
        // 2^40 elements of 8 bytes in 3 us: bytes x 1e9 overflows a long, the quotient does not
        stats.add("ncclKernel_AllToAll", 3_000, 1L << 40, 0, "Long");
        assertEquals(2_932_031_007_402_666_666L, stats.rows().get(0).algbwBytesPerS());
    }

    @Test
    void totalsThatOverflowAreRefusedNotWrapped() {
        CollectiveStats stats = new CollectiveStats();
        stats.add(ALL_REDUCE, Long.MAX_VALUE, 1, 1, "Float");
        assertThrows(ArithmeticException.class, () -> stats.add(ALL_REDUCE, 1, 1, 1, "Float"));
    }
}
