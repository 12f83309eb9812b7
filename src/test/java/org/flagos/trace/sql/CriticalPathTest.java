package org.flagos.trace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.encoders.EventTable;
import org.flagos.trace.testing.TableRows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * critical_path and critical_path_segments on hand-built traces whose critical path is known: one
 * rank bound by its host thread, one by its device (a launch, two queued kernels, a device-wide
 * sync), one waiting on a stream sync for a copy while a collective runs on another stream; the
 * three as ranks of one table, so the straggler column is known too.
 */
public class CriticalPathTest {
    @TempDir
    Path dir;

    /** One row of the events table, the columns the critical path reads. */
    public record Ev(int rank, long pid, long tid, String cat, String name, long ts, long dur, Integer device, Long stream, Long corr) {
        public static Ev op(int rank, String name, long ts, long dur) {
            return new Ev(rank, 1, 1, "cpu_op", name, ts, dur, null, null, null);
        }

        public static Ev call(int rank, String name, long ts, long dur, long corr) {
            return new Ev(rank, 1, 1, "cuda_runtime", name, ts, dur, null, null, corr);
        }

        public static Ev work(int rank, String cat, String name, long ts, long dur, long stream, long corr) {
            return new Ev(rank, 0, stream, cat, name, ts, dur, 0, stream, corr);
        }
    }

    /** {@code events} as DIR/NAME.parquet with the table's columns (docs/tables.md). */
    public static Path write(Path dir, String name, List<Ev> events) throws Exception {
        Path csv = dir.resolve(name + ".csv");
        try (BufferedWriter w = Files.newBufferedWriter(csv)) {
            w.write("rank,pid,tid,ph,cat,name,ts_ns,dur_ns,device,stream,correlation\n");
            for (Ev e : events) {
                w.write(e.rank() + "," + e.pid() + "," + e.tid() + ",X," + e.cat() + "," + e.name() + "," + e.ts() + "," + e.dur() + ","
                        + (e.device() == null ? "" : e.device()) + "," + (e.stream() == null ? "" : e.stream()) + ","
                        + (e.corr() == null ? "" : e.corr()) + "\n");
            }
        }
        Path parquet = dir.resolve(name + ".parquet");
        StringBuilder select = new StringBuilder();
        for (String[] c : EventTable.COLUMNS) {
            String v = switch (c[0]) {
                case "rank", "pid", "tid", "ph", "cat", "name", "ts_ns", "dur_ns", "device", "stream", "correlation" -> "NULLIF(" + c[0] + ", '')";
                case "slot" -> "0";
                default -> "NULL";
            };
            select.append(select.length() == 0 ? "" : ", ").append("CAST(").append(v).append(" AS ").append(c[1]).append(") AS ").append(c[0]);
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            s.execute("COPY (SELECT " + select + " FROM read_csv('" + csv + "', header = true, all_varchar = true)) TO '"
                    + parquet + "' (FORMAT parquet)");
        }
        Files.delete(csv);
        return parquet;
    }

    /**
     * Rank 0, host-bound: op A [0, 1000) launches K1 (runtime call [100, 200), K1 [300, 350)), then op B
     * [1200, 3000). The path is the host thread: 100 + 100 + 800 + 1800 = 2800 ns, the 200 ns gap between
     * the two top-level ops waiting. The device path (100 + launch 200 + K1 50) is shorter.
     */
    public static List<Ev> hostBound(int rank) {
        return List.of(Ev.op(rank, "A", 0, 1000), Ev.call(rank, "cudaLaunchKernel", 100, 100, 1),
                Ev.work(rank, "kernel", "K1", 300, 50, 7, 1), Ev.op(rank, "B", 1200, 1800));
    }

    /**
     * Rank 1, device-bound: op A [0, 300) launches K1 (call [10, 20), K1 [50, 2050): the stream was idle
     * from the launch to K1's start, a launch delay of 40) and K2 (call [60, 70), K2 [2060, 4960): behind
     * K1, a 10 ns kernel gap); cudaDeviceSynchronize [300, 5000) waits for them; op B [5000, 5100). The
     * path: 10 (A) + 40 (launch) + 2000 (K1) + 10 (gap) + 2900 (K2) + sync + 100 (B) = 5060 ns of the
     * 5100 ns span; the 40 ns of the span the path does not weigh are waiting (the sync's end after K2's).
     */
    public static List<Ev> deviceBound(int rank) {
        return List.of(Ev.op(rank, "A", 0, 300), Ev.call(rank, "cudaLaunchKernel", 10, 10, 1),
                Ev.call(rank, "cudaLaunchKernel", 60, 10, 2), Ev.work(rank, "kernel", "K1", 50, 2000, 7, 1),
                Ev.work(rank, "kernel", "K2", 2060, 2900, 7, 2), Ev.call(rank, "cudaDeviceSynchronize", 300, 4700, 3),
                new Ev(rank, 0, 7, "cuda_sync", "Context Sync", 300, 4700, 0, 7L, 3L), Ev.op(rank, "B", 5000, 100));
    }

    /**
     * Rank 2, a stream sync on a copy: cudaLaunchKernel [0, 10) puts an NCCL all-reduce on stream 13
     * [15, 500); cudaMemcpyAsync [20, 30) a copy on stream 7 [35, 900); cudaStreamSynchronize [40, 1000)
     * waits for stream 7; op C [1000, 1100). The path: 10 (the first call) + 15 (launch) + 865 (the
     * copy) + sync + 100 (C) = 990 ns, not through the all-reduce (its stream is not waited for).
     */
    public static List<Ev> streamSync(int rank) {
        return List.of(Ev.call(rank, "cudaLaunchKernel", 0, 10, 1), Ev.call(rank, "cudaMemcpyAsync", 20, 10, 2),
                Ev.work(rank, "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 15, 485, 13, 1),
                Ev.work(rank, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 35, 865, 7, 2),
                Ev.call(rank, "cudaStreamSynchronize", 40, 960, 3), new Ev(rank, 0, 7, "cuda_sync", "Stream Sync", 40, 960, 0, 7L, 3L),
                Ev.op(rank, "C", 1000, 100));
    }

    @Test
    void knownPathsOfHostBoundDeviceBoundAndSyncWaitingRanks() throws Exception {
        List<Ev> all = new ArrayList<>();
        all.addAll(hostBound(0));
        all.addAll(deviceBound(1));
        all.addAll(streamSync(2));
        Path events = write(dir, "events", all);
        ResultTable summary;
        ResultTable segments;
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            summary = duck.run("critical_path");
            segments = duck.run("critical_path_segments");
        }
        List<Map<String, Object>> s = TableRows.maps(summary);
        assertEquals(3, s.size(), summary.render());
        // rank, start, end, length, cpu, computation, communication, memory, launch, gap, waiting, over median
        long[][] expected = {
            {0, 0, 3000, 2800, 2800, 0, 0, 0, 0, 0, 200, 0},
            {1, 0, 5100, 5060, 110, 4900, 0, 0, 40, 10, 40, 5060 - 2800},
            {2, 0, 1100, 990, 110, 0, 0, 865, 15, 0, 110, 990 - 2800},
        };
        String[] columns = {"rank", "start_ns", "end_ns", "length_ns", "cpu_ns", "computation_ns", "communication_ns", "memory_ns",
            "launch_delay_ns", "kernel_gap_ns", "waiting_ns", "over_median_ns"};
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < columns.length; c++) {
                assertEquals(expected[r][c], s.get(r).get(columns[c]), "rank " + r + " " + columns[c] + "\n" + summary.render());
            }
        }
        // rank 1's path, edge by edge
        List<String> path = new ArrayList<>();
        for (Map<String, Object> e : TableRows.maps(segments)) {
            if ((Long) e.get("rank") == 1) {
                path.add(e.get("type") + ":" + e.get("name") + ":" + e.get("weight_ns"));
            }
        }
        assertEquals(List.of("cpu:A:10", "launch:null:40", "kernel:K1:2000", "kernel_gap:null:10", "kernel:K2:2900", "sync:null:0",
                "dependency:null:0", "cpu:B:100"), path, segments.render());
        long sum = 0;
        for (Map<String, Object> e : TableRows.maps(segments)) {
            assertTrue((Long) e.get("end_ns") >= (Long) e.get("start_ns"), e.toString());
            sum += (Long) e.get("weight_ns");
        }
        assertEquals(2800 + 5060 + 990, sum);
    }

    /** Both tables and how they were made, cp_nodes made {@code eventsPerSlice} events at a time. */
    private static List<Object> tables(Path events, long eventsPerSlice) throws Exception {
        List<Object> out = new ArrayList<>();
        try (DuckDbAnalyses d = DuckDbAnalyses.open(events)) {
            out.add(d.criticalPath(true, eventsPerSlice));
            for (String name : CriticalPath.TABLES) {
                ResultTable t = d.run(name);
                out.add(t.columns());
                out.add(t.rows());
            }
        }
        return out;
    }

    /**
     * cp_nodes made a slice of ranks at a time (here each rank its own: one event a slice) gives the tables one
     * statement gives, row for row: the three ranks above, and CriticalPathRecountTest's all-reduce with a late rank,
     * whose path crosses between ranks (cp_arrivals, read per slice too).
     */
    @Test
    void nodesMadeASliceOfRanksAtATimeGiveTheSameTables() throws Exception {
        List<Ev> known = new ArrayList<>();
        known.addAll(hostBound(0));
        known.addAll(deviceBound(1));
        known.addAll(streamSync(2));
        List<Ev> straggler = new ArrayList<>();
        straggler.addAll(org.flagos.trace.cli.CriticalPathRecountTest.allReduceStep(0, 1000));
        straggler.addAll(org.flagos.trace.cli.CriticalPathRecountTest.allReduceStep(1, 4000));
        straggler.addAll(org.flagos.trace.cli.CriticalPathRecountTest.allReduceStep(2, 1000));
        for (Path events : List.of(write(Files.createDirectories(dir.resolve("known")), "events", known),
                write(Files.createDirectories(dir.resolve("straggler")), "events", straggler))) {
            List<Object> whole = tables(events, CriticalPath.EVENTS_PER_SLICE);
            List<Object> sliced = tables(events, 1);
            assertEquals(1, ((CriticalPath.Rounds) whole.get(0)).nodeSlices(), "one statement: " + whole.get(0));
            assertEquals(3, ((CriticalPath.Rounds) sliced.get(0)).nodeSlices(), "a statement a rank: " + sliced.get(0));
            assertTrue(!((List<?>) whole.get(2)).isEmpty() && !((List<?>) whole.get(4)).isEmpty(), events.toString());
            assertEquals(whole.subList(1, whole.size()), sliced.subList(1, sliced.size()), events.toString());
        }
    }

    /**
     * The steps over every node that DuckDB makes a slice of ranks at a time ({@link CriticalPath#perRank}), each with the
     * table its slices are counted on (cp_events' on the events table, cp_nodes' on the graph's events, the later steps' on
     * cp_nodes).
     */
    private static final Map<String, String> PER_RANK_STEPS = new java.util.LinkedHashMap<>(Map.of("cp_events", "events",
            "cp_nodes", "cp_events", "cp_key_nodes", "cp_nodes", "cp_dist_all", "cp_nodes", "cp_back", "cp_nodes", "cp_walk_0", "cp_nodes"));

    /**
     * Every step over the whole graph's nodes is made a rank at a time with one event a slice (3 statements for 3 ranks),
     * each statement reading cp_nodes only through its slice's filter and holding only its rank's rows, and gives the
     * table the one statement gives, row for row: the straggler all-reduce, whose edges cross between ranks (an edge's
     * source on another rank: cp_ends, cp_swept and cp_dist_all are read whole). So is cp_segments, a slice of the paths'
     * ranks: it reads only its paths' walk, and every rank's chains (a path crosses onto the late rank's).
     */
    @Test
    void eachStepOverTheNodesIsMadeASliceOfRanksAtATime() throws Exception {
        List<Ev> straggler = new ArrayList<>();
        for (int rank = 0; rank < 3; rank++) {
            straggler.addAll(org.flagos.trace.cli.CriticalPathRecountTest.allReduceStep(rank, rank == 1 ? 4000 : 1000));
        }
        Path events = write(dir, "events", straggler);
        try (DuckDbAnalyses d = DuckDbAnalyses.open(events)) {
            CriticalPath.Engine duck = d.engine("the critical path: ");
            Map<String, String> whole = keeping(duck);
            CriticalPath.build(new Keeping(duck, whole), true, CriticalPath.EVENTS_PER_SLICE);
            for (String step : PER_RANK_STEPS.keySet()) {
                assertTrue(!whole.containsKey(step + "_slice_0"), "one statement: " + whole.keySet());
                duck.table("whole_" + step, "SELECT * FROM " + step);
            }
            assertTrue(!whole.containsKey("cp_segments_slice_0"), "one statement: " + whole.keySet());
            duck.table("whole_cp_segments", "SELECT * FROM cp_segments");
            Map<String, String> sliced = keeping(duck);
            CriticalPath.Rounds rounds = CriticalPath.build(new Keeping(duck, sliced), true, 1);
            assertEquals(3, rounds.nodeSlices(), rounds.toString());
            for (String step : PER_RANK_STEPS.keySet()) {
                String read = PER_RANK_STEPS.get(step);
                for (int slice = 0; slice < 3; slice++) {
                    String part = step + "_slice_" + slice;
                    String sql = sliced.get(part);
                    assertTrue(sql != null, part + " made: " + sliced.keySet());
                    String bounds = "rank BETWEEN " + slice + " AND " + slice + ")";
                    assertTrue(count(sql, read) > 0, part + " reads " + read);
                    assertEquals(count(sql, read), count(sql, "(SELECT * FROM " + read + " WHERE " + bounds), part + " reads " + read
                            + " only through its slice's filter:\n" + sql);
                    assertEquals(1, duck.count("SELECT COUNT(DISTINCT rank) FROM " + part), part);
                    assertEquals(slice, duck.count("SELECT MIN(rank) FROM " + part), part);
                }
                assertTrue(!sliced.containsKey(step + "_slice_3"), step);
                long rows = duck.count("SELECT COUNT(*) FROM whole_" + step);
                assertTrue(rows > 0, step);
                assertEquals(rows, duck.count("SELECT COUNT(*) FROM " + step), step);
                assertEquals(0, duck.count("SELECT COUNT(*) FROM (SELECT * FROM " + step + " EXCEPT ALL SELECT * FROM whole_" + step + ") t"),
                        step + " as the one statement's");
            }
            // cp_segments: a slice of the paths' ranks a statement, each reading only its paths' walk (the whole walk's
            // table, read through the slice's filter) but every rank's nodes (rank 0's and 2's paths run through rank 1's
            // compute), and together the rows of the one statement, none lost or made twice at a slice's edge
            String walk = null;
            for (int slice = 0; slice < 3; slice++) {
                String sql = sliced.get("cp_segments_slice_" + slice);
                assertTrue(sql != null, "cp_segments_slice_" + slice + " made: " + sliced.keySet());
                java.util.regex.Matcher read = java.util.regex.Pattern.compile("\\(SELECT \\* FROM (cp_walk_\\d+) WHERE rank BETWEEN "
                        + slice + " AND " + slice + "\\)").matcher(sql);
                assertTrue(read.find(), "reads the walk through its slice's filter:\n" + sql);
                walk = read.group(1);
                assertEquals(count(sql, walk), count(sql, read.group()), "reads " + walk + " only through its slice's filter:\n" + sql);
                assertTrue(count(sql, "FROM cp_nodes") > 0 && count(sql, "cp_nodes WHERE") == 0, "reads every rank's nodes:\n" + sql);
                assertEquals(1, duck.count("SELECT COUNT(DISTINCT rank) FROM cp_segments_slice_" + slice), "cp_segments_slice_" + slice);
                assertEquals(slice, duck.count("SELECT MIN(rank) FROM cp_segments_slice_" + slice), "cp_segments_slice_" + slice);
                assertTrue(duck.count("SELECT COUNT(*) FROM cp_segments_slice_" + slice + " WHERE on_rank <> rank") > 0
                        == (slice != 1), "rank " + slice + "'s path runs through another rank's chains: " + (slice != 1));
            }
            assertTrue(!sliced.containsKey("cp_segments_slice_3"), sliced.keySet().toString());
            long rows = duck.count("SELECT COUNT(*) FROM whole_cp_segments");
            assertTrue(rows > 0);
            assertEquals(rows, duck.count("SELECT COUNT(*) FROM cp_segments"));
            assertEquals(0, duck.count("SELECT COUNT(*) FROM (SELECT * FROM cp_segments EXCEPT ALL SELECT * FROM whole_cp_segments) t"),
                    "cp_segments as the one statement's");
        }
    }

    /** How often {@code part} occurs in {@code text} as a whole name (not inside a longer one: events in cp_events). */
    private static int count(String text, String part) {
        return (int) java.util.regex.Pattern.compile("(?<![\\w.])" + java.util.regex.Pattern.quote(part) + "(?![\\w])").matcher(text)
                .results().count();
    }

    /** A fresh record of the tables a build makes (name to its statement); the per-rank steps' tables emptied first. */
    private static Map<String, String> keeping(CriticalPath.Engine duck) throws Exception {
        for (String step : PER_RANK_STEPS.keySet()) {
            duck.drop(step);
        }
        return new java.util.LinkedHashMap<>();
    }

    /**
     * DuckDB's engine that records each table made (in {@code made}) and keeps the per-rank steps' tables and their slices',
     * and cp_segments' slices, which the build drops once they are passed.
     */
    private record Keeping(CriticalPath.Engine duck, Map<String, String> made) implements CriticalPath.Engine {
        @Override
        public void table(String name, String select) throws java.io.IOException {
            made.put(name, select);
            duck.table(name, select);
        }

        @Override
        public long count(String select) throws java.io.IOException {
            return duck.count(select);
        }

        @Override
        public void drop(String name) throws java.io.IOException {
            if (!PER_RANK_STEPS.containsKey(name.replaceAll("_slice_\\d+$", "")) && !name.startsWith("cp_segments_slice_")) {
                duck.drop(name);
            }
        }

        @Override
        public void sweep(String name, String select) throws java.io.IOException {
            duck.sweep(name, select);
        }
    }
}
