package org.flagos.trace.sql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.cli.CriticalPathRecountTest;
import org.flagos.trace.sql.CriticalPathTest.Ev;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep that settles the critical path's key nodes in one pass gives what the rounds give: the same
 * critical_path and critical_path_segments, row for row, on CriticalPathTest's hand-built ranks, on
 * CriticalPathRecountTest's three ranks of an all-reduce with a late rank (edges between ranks) and on HTA's
 * simple_add trace; where an edge goes back in time the rounds settle the graph, as before. And the rule itself
 * on rows of one instant whose edges run against the order the rows come in, and on rows no order can settle.
 */
public class CriticalPathSweepTest {
    @TempDir
    Path dir;

    /** Both tables, and how they were made, with the sweep or with the rounds forced. */
    private static List<Object> tables(Path events, boolean sweep) throws Exception {
        List<Object> out = new ArrayList<>();
        try (DuckDbAnalyses d = DuckDbAnalyses.open(events)) {
            out.add(d.criticalPath(sweep));
            for (String name : CriticalPath.TABLES) {
                ResultTable t = d.run(name);
                assertFalse(t.rows().isEmpty(), name);
                out.add(t.columns());
                out.add(t.rows());
            }
        }
        return out;
    }

    private static void sameAsTheRounds(Path events) throws Exception {
        List<Object> swept = tables(events, true);
        List<Object> rounds = tables(events, false);
        CriticalPath.Rounds s = (CriticalPath.Rounds) swept.get(0);
        CriticalPath.Rounds r = (CriticalPath.Rounds) rounds.get(0);
        assertTrue(s.swept(), "the sweep settled " + events.getFileName());
        assertEquals(0, s.relaxations());
        assertFalse(r.swept());
        assertTrue(r.relaxations() > 1, "the rounds ran: " + r);
        assertEquals(r.walkSteps(), s.walkSteps(), "the same path, as long");
        assertEquals(rounds.subList(1, rounds.size()), swept.subList(1, swept.size()), events.getFileName().toString());
    }

    @Test
    void theSweepGivesTheRoundsTablesOnHandBuiltRanksAStragglerAndSimpleAdd() throws Exception {
        List<Ev> hand = new ArrayList<>();
        hand.addAll(CriticalPathTest.hostBound(0));
        hand.addAll(CriticalPathTest.deviceBound(1));
        hand.addAll(CriticalPathTest.streamSync(2));
        sameAsTheRounds(CriticalPathTest.write(Files.createDirectories(dir.resolve("hand")), "events", hand));
        List<Ev> straggler = new ArrayList<>();
        straggler.addAll(CriticalPathRecountTest.allReduceStep(0, 1000));
        straggler.addAll(CriticalPathRecountTest.allReduceStep(1, 4000));
        straggler.addAll(CriticalPathRecountTest.allReduceStep(2, 1000));
        sameAsTheRounds(CriticalPathTest.write(Files.createDirectories(dir.resolve("straggler")), "events", straggler));
        sameAsTheRounds(CriticalPathRecountTest.simpleAddEvents(dir));
    }

    /**
     * CriticalPathTest's stream-sync rank, but the copy ends at 1200, after the cudaStreamSynchronize that waited for
     * it ended (1000): the sync edge from the copy's end to the call's end goes back in time. The path: 10 (the first
     * call) + 15 (launch) + the copy's 1165 + 100 (op C) = 1290 ns.
     */
    public static List<Ev> syncBackInTime(int rank) {
        return List.of(Ev.call(rank, "cudaLaunchKernel", 0, 10, 1), Ev.call(rank, "cudaMemcpyAsync", 20, 10, 2),
                Ev.work(rank, "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 15, 485, 13, 1),
                Ev.work(rank, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 35, 1165, 7, 2),
                Ev.call(rank, "cudaStreamSynchronize", 40, 960, 3), new Ev(rank, 0, 7, "cuda_sync", "Stream Sync", 40, 960, 0, 7L, 3L),
                Ev.op(rank, "C", 1000, 100));
    }

    @Test
    void aSyncEdgeBackInTimeIsSettledByTheRounds() throws Exception {
        Path events = CriticalPathTest.write(dir, "events", syncBackInTime(2));
        List<Object> fallen = tables(events, true);
        List<Object> rounds = tables(events, false);
        CriticalPath.Rounds f = (CriticalPath.Rounds) fallen.get(0);
        assertFalse(f.swept(), "no order in time settles an edge back in time: " + f);
        assertTrue(f.relaxations() > 1, f.toString());
        assertEquals(rounds, fallen);
        // the path's length, over the sync edge back in time
        assertEquals(1290L, ((List<?>) ((List<?>) fallen.get(2)).get(0)).get(((List<?>) fallen.get(1)).indexOf("length_ns")));
    }

    /** An input row: at_ns, rank, node, side, c1, c2, seg, pos, wcum, floor_lift, outs, src_rank, src, weight. */
    private static long[] row(long at, long node, long side, long seg, long pos, long wcum, long outs, long src, long weight) {
        return new long[] {at, 0, node, side, 0, side == 1 ? 1 : 7, seg, pos, wcum, 0, outs, src < 0 ? -1 : 0, src, weight};
    }

    private static List<long[]> sweep(long[]... rows) {
        List<long[]> out = new ArrayList<>();
        new CriticalPathSweep(List.of(rows).iterator()).forEachRemaining(out::add);
        return out;
    }

    @Test
    void oneInstantsNodesAreSettledInTheOrderTheirEdgesAllow() {
        // at 100: a host call start (node 30, 70 ns into its thread) launches a kernel that starts (40) and ends (41)
        // at the same instant; the device's rows come first (side 0 before 1), so the kernel waits for the call.
        // At 200 the stream's next node (43) carries the launch's 70 ns; node 45 begins a new segment.
        List<long[]> out = sweep(row(100, 40, 0, 0, 1, 0, 0, 30, 0), row(100, 41, 0, 0, 2, 0, 0, -1, 0),
                row(100, 30, 1, 0, 5, 70, 1, -1, 0), row(200, 43, 0, 0, 4, 100, 0, -1, 0), row(300, 45, 0, 1, 6, 0, 0, -1, 0));
        long[][] expected = {{0, 30, 70}, {0, 40, 70}, {0, 41, 70}, {0, 43, 170}, {0, 45, 0}};
        assertEquals(expected.length, out.size());
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], out.get(i), "row " + i);
        }
    }

    @Test
    void edgesNoOrderSettlesEndTheSweepWithUnordered() {
        // a cycle at one instant: 30 waits for 41, which follows 40 on its stream, which waits for 30
        List<long[]> cycle = sweep(row(50, 20, 1, 0, 1, 0, 0, -1, 0), row(100, 40, 0, 0, 1, 0, 0, 30, 0), row(100, 41, 0, 0, 2, 5, 1, -1, 0),
                row(100, 30, 1, 0, 5, 70, 1, 41, 0));
        assertEquals(2, cycle.size());
        assertArrayEquals(new long[] {0, 20, 0}, cycle.get(0));
        assertArrayEquals(CriticalPathSweep.UNORDERED, cycle.get(1));
        // an edge back in time: node 40 at 100 is entered from node 30, which comes at 200
        List<long[]> back = sweep(row(100, 40, 0, 0, 1, 0, 0, 30, 0), row(200, 30, 1, 0, 5, 70, 1, -1, 0));
        assertEquals(1, back.size());
        assertArrayEquals(CriticalPathSweep.UNORDERED, back.get(0));
    }
}
