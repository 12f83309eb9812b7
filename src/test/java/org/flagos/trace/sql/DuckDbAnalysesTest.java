package org.flagos.trace.sql;

import static org.flagos.trace.testing.TableRows.q;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.flagos.trace.cli.CliRunner;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TableRows;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DuckDbAnalyses' own contract on the events table of the real h200-java-steps capture (its walk's Parquet, steps
 * ProfilerStep#2 and #3): the step window's counts against a recount of the stored rows, a folder read as one table,
 * a path DuckDB would take for a pattern read as itself, the refusals of what is not such a table (in words, nothing
 * left in the temporary folder), and the values the analyses give.
 */
class DuckDbAnalysesTest {
    @TempDir
    static Path dir;

    static Path events;
    static List<TableRows.Ev> rows;

    @BeforeAll
    static void build() throws Exception {
        events = dir.resolve("steps.parquet");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("replay", Captures.capture("h200-java-steps/h200-java-steps").toString(), "-o", events.toString()),
                cli.stderr());
        rows = TableRows.read(events);
    }

    /** Rows of {@code events} that {@code copy} selects, as a Parquet file at {@code to}. */
    private static Path copy(String select, Path to) throws Exception {
        return TableRows.copy(select.replace("EVENTS", "read_parquet(" + q(events) + ")"), to);
    }

    /** The rows of the step window recounted here: each rank's steps' host ops, earliest start to latest end. */
    private static long recount(long first, long last) {
        Set<String> host = Set.of("cpu_op", "user_annotation", "python_function", "Operator");
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        for (TableRows.Ev e : rows) {
            if (e.complete() && host.contains(e.cat()) && e.name().matches("ProfilerStep#[0-9]+")) {
                long n = Long.parseLong(e.name().substring("ProfilerStep#".length()));
                if (n >= first && n <= last) {
                    start = Math.min(start, e.ts());
                    end = Math.max(end, e.end());
                }
            }
        }
        long in = 0;
        for (TableRows.Ev e : rows) {
            if (e.ts() != null && e.ts() >= start && e.ts() < end) {
                in++;
            }
        }
        return in;
    }

    @Test
    void keptCountsTheStepWindowAsARecountOfTheStoredRows() throws Exception {
        long all = rows.size();
        assertTrue(all > 1_000, "rows " + all);
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            assertArrayEquals(new long[] {all, 1, all, 1}, duck.kept(), "no window: everything in");
        }
        for (long[] steps : List.of(new long[] {2, 2}, new long[] {3, 3}, new long[] {2, 3}, new long[] {0, 9})) {
            long want = recount(steps[0], steps[1]);
            assertTrue(want > 0 && want < all, steps[0] + "-" + steps[1] + ": " + want);
            try (DuckDbAnalyses duck = DuckDbAnalyses.open(events, steps)) {
                assertArrayEquals(new long[] {want, 1, all, 1}, duck.kept(), steps[0] + "-" + steps[1]);
            }
        }
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events, new long[] {7, 9})) {
            assertArrayEquals(new long[] {0, 0, all, 1}, duck.kept(), "no such step: no rank has a window");
        }
    }

    @Test
    void streamGivesRunsRowsColumnsFirstAndValuesAsLongsOrText() throws Exception {
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            ResultTable kernels = duck.run("kernel_stats");
            assertTrue(kernels.rows().size() > 1, kernels.render());
            List<String> columns = new ArrayList<>();
            List<List<Object>> streamed = new ArrayList<>();
            duck.stream("kernel_stats", new DuckDbAnalyses.TableSink() {
                @Override
                public void columns(List<String> c) {
                    assertTrue(streamed.isEmpty(), "columns before any row");
                    columns.addAll(c);
                }

                @Override
                public void row(List<Object> row) {
                    streamed.add(row);
                }
            });
            assertEquals(kernels.columns(), columns);
            assertEquals(kernels.rows(), streamed);
            for (List<Object> r : streamed) {
                for (Object v : r) {
                    assertTrue(v == null || v instanceof Long || v instanceof String, r.toString());
                }
            }
            // the calls add up to the table's complete rows of device work
            Set<String> device = Set.of("kernel", "gpu_memcpy", "gpu_memset");
            long kernelRows = rows.stream().filter(e -> e.complete() && device.contains(e.cat())).count();
            int calls = kernels.columns().indexOf("calls");
            assertTrue(calls >= 0, kernels.columns().toString());
            assertEquals(kernelRows, kernels.rows().stream().mapToLong(r -> (Long) r.get(calls)).sum());
            assertThrows(IllegalArgumentException.class, () -> duck.run("no_such_analysis"));
        }
    }

    /**
     * Each analysis DuckDB makes a slice of ranks at a time ({@link DuckDbAnalyses#PER_RANK}; here a rank a slice) gives
     * the rows its one statement gives, in its order: three ranks of this capture's events, ranks 1 and 2 each missing a
     * different part of them, so that no two ranks' rows are the same. rank_ops' order (name, kind, rank) is not rank
     * first, so its slices' rows are sorted again. rank_ops (its host events made a slice at a time, then nested by
     * OpNesting) is held to the rows of the one query it was until 2026-12-07 (rank_ops_windows.sql, a test resource:
     * the nesting in windows), here with overhead, runtime calls and rows of no rank. Listed by name: an analysis taken out of PER_RANK is made in one
     * statement, and fails here (kernel_launches and queue_length in one statement ran out of the launcher's memory at
     * 64 x 1M events).
     */
    @ParameterizedTest
    @ValueSource(strings = {"rank_ops", "kernel_launches", "queue_length", "stream_idle", "memory_bandwidth", "kernel_sequences"})
    void perRankAnalysesMadeARankAtATimeGiveTheRowsOfTheirOneStatement(String name) throws Exception {
        Path ranks = copy("SELECT e.* REPLACE (CAST(t.k AS INTEGER) AS rank) FROM EVENTS e, (VALUES (0), (1), (2)) t(k)"
                + " WHERE t.k = 0 OR hash(e.name, e.ts_ns) % (t.k + 2) <> 0", dir.resolve(name + "-three-ranks.parquet"));
        List<List<Object>> one = new ArrayList<>();
        List<String> columns = new ArrayList<>();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:"); java.sql.Statement s = c.createStatement()) {
            s.execute("CREATE VIEW events AS SELECT * FROM read_parquet(" + q(ranks) + ")");
            try (java.sql.ResultSet r = s.executeQuery(name.equals("rank_ops") ? Analyses.load("rank_ops_windows") : Analyses.sql(name))) {
                for (int i = 1; i <= r.getMetaData().getColumnCount(); i++) {
                    columns.add(r.getMetaData().getColumnLabel(i));
                }
                while (r.next()) {
                    List<Object> row = new ArrayList<>();
                    for (int i = 1; i <= r.getMetaData().getColumnCount(); i++) {
                        row.add(DuckDbAnalyses.value(r.getObject(i), name, r.getMetaData().getColumnLabel(i)));
                    }
                    one.add(row);
                }
            }
        }
        List<Object> ranksInOrder = one.stream().map(r -> r.get(0)).toList();
        assertEquals(List.of(0L, 1L, 2L), List.copyOf(new TreeSet<>(ranksInOrder)));
        java.util.Map<Object, List<List<Object>>> perRank = new java.util.HashMap<>();
        one.forEach(r -> perRank.computeIfAbsent(r.get(0), k -> new ArrayList<>()).add(r.subList(1, r.size())));
        assertEquals(3, Set.copyOf(perRank.values()).size(), "each rank's rows differ from the others'");
        if (name.equals("rank_ops")) {
            assertTrue(!ranksInOrder.equals(ranksInOrder.stream().sorted().toList()), "rows not in rank order");
            long[] calls = new long[3];
            one.forEach(r -> calls[(int) (long) (Long) r.get(0)] += (Long) r.get(3));
            assertTrue(calls[0] > calls[2] && calls[2] > calls[1], java.util.Arrays.toString(calls));
        }
        for (long perSlice : new long[] {CriticalPath.EVENTS_PER_SLICE, 1}) {
            List<List<Object>> got = new ArrayList<>();
            assertEquals(perSlice == 1 ? 3 : 1, stream(name, ranks, perSlice, columns, got), perSlice + " events a slice");
            assertEquals(one, got, perSlice + " events a slice");
        }
        // a row of no rank is in no slice (a table not written by flagtrace tables): one statement then
        Path rankless = copy("SELECT * REPLACE (CASE WHEN rank = 2 THEN NULL ELSE rank END AS rank) FROM read_parquet(" + q(ranks) + ")",
                dir.resolve(name + "-rankless.parquet"));
        List<List<Object>> whole = new ArrayList<>();
        List<List<Object>> sliced = new ArrayList<>();
        assertEquals(1, stream(name, rankless, CriticalPath.EVENTS_PER_SLICE, columns, whole));
        assertEquals(1, stream(name, rankless, 1, columns, sliced));
        // rank 2's rows are gone (a join on rank pairs no null) or have no rank
        assertTrue(!whole.isEmpty() && whole.stream().noneMatch(r -> Long.valueOf(2).equals(r.get(0))), "rank 2's rows");
        assertTrue(!name.equals("rank_ops") || whole.stream().anyMatch(r -> r.get(0) == null), "rows of no rank");
        assertEquals(whole, sliced);
    }

    /**
     * Analysis {@code name} over {@code events} made {@code perSlice} events a statement, its rows added to {@code rows}
     * (its columns must be {@code columns}); the statements.
     */
    private static int stream(String name, Path events, long perSlice, List<String> columns, List<List<Object>> rows) throws IOException {
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            return duck.stream(name, new DuckDbAnalyses.TableSink() {
                @Override
                public void columns(List<String> c) {
                    assertEquals(columns, c);
                }

                @Override
                public void row(List<Object> row) {
                    rows.add(row);
                }
            }, perSlice);
        }
    }

    /** DuckDB is given as many threads as its memory_limit has room for, not its default of every core of the machine. */
    @Test
    void duckDbsThreadsAreBoundedByItsMemory() throws Exception {
        String before = System.getProperty(DuckDbAnalyses.BUDGET_PROPERTY);
        try {
            System.setProperty(DuckDbAnalyses.BUDGET_PROPERTY, "1m"); // the least memory_limit: one thread
            try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
                assertEquals("1", duck.setting("threads"));
                assertFalse(duck.run("rank_device").rows().isEmpty(), "and the analyses run");
            }
        } finally {
            if (before == null) {
                System.clearProperty(DuckDbAnalyses.BUDGET_PROPERTY);
            } else {
                System.setProperty(DuckDbAnalyses.BUDGET_PROPERTY, before);
            }
        }
    }

    /**
     * The connection streams each query's rows (docs/analysis.md, "Memory": a result materialised whole lies outside
     * DuckDB's memory_limit), and still does after the critical path's sweep, which reads its one query whole.
     */
    @Test
    void resultsStreamAndStillDoAfterTheSweep() throws Exception {
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            assertEquals("true", duck.setting(DuckDbAnalyses.STREAM_RESULTS));
            assertTrue(duck.criticalPath().swept(), "the sweep ran");
            assertEquals("true", duck.setting(DuckDbAnalyses.STREAM_RESULTS));
            assertTrue(duck.run("critical_path_segments").rows().size() > 1);
        }
    }

    /**
     * The critical path's tables are stored in a database file in the private temporary folder (docs/analysis.md,
     * "Memory": compressed, and read back from the file under memory_limit, where an in-memory database's tables stay
     * uncompressed), and the file goes with the folder at close.
     */
    @Test
    void theCriticalPathsTablesAreInADatabaseFileDeletedAtClose() throws Exception {
        Set<String> before = scratch();
        Path file;
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            Set<String> made = scratch();
            made.removeAll(before);
            assertEquals(1, made.size(), "one spill folder: " + made);
            file = Path.of(System.getProperty("java.io.tmpdir")).resolve(made.iterator().next()).resolve(DuckDbAnalyses.DATABASE);
            duck.criticalPath();
            for (String table : List.of("cp_events", "cp_nodes", "cp_cross", "cp_back", "cp_segments")) {
                assertEquals(file.toString(), duck.databaseFile(table), table);
            }
            assertTrue(Files.size(file) > 0, "the tables are written to " + file);
        }
        assertTrue(Files.notExists(file), "the database file is deleted at close");
        assertEquals(before, scratch());
    }

    /**
     * The sweep streams its ordered rows on the connection as it is and appends through a second one: the table it makes
     * is CriticalPathSweepTest's first instant settled (a launch's 70 ns carried to the kernel and the stream's next
     * node), with the connection's results streaming or not, and the connection's setting is left as it was (the
     * sweep used to switch streaming off for its read, materialising the rows outside memory_limit, and on again).
     */
    @Test
    void theSweepStreamsOnTheConnectionAsItIsAndAppendsThroughAnother() throws Exception {
        // at_ns, rank, node, side, c1, c2, seg, pos, wcum, floor_lift, outs, src_rank, src, weight
        String rows = "SELECT * FROM (VALUES (100, 0, 40, 0, 0, 7, 0, 1, 0, 0, 0, 0, 30, 0), (100, 0, 41, 0, 0, 7, 0, 2, 0, 0, 0, -1, -1, 0),"
                + " (100, 0, 30, 1, 0, 1, 0, 5, 70, 0, 1, -1, -1, 0), (200, 0, 43, 0, 0, 7, 0, 4, 100, 0, 0, -1, -1, 0),"
                + " (300, 0, 45, 0, 0, 7, 1, 6, 0, 0, 0, -1, -1, 0)) v(" + String.join(", ", CriticalPathSweep.COLUMNS) + ")";
        for (boolean stream : new boolean[] {true, false}) {
            java.util.Properties props = new java.util.Properties();
            props.setProperty(DuckDbAnalyses.STREAM_RESULTS, String.valueOf(stream));
            try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:", props)) {
                DuckDbAnalyses.sweep(c, "swept", rows);
                List<String> got = new ArrayList<>();
                try (java.sql.Statement s = c.createStatement();
                     java.sql.ResultSet rs = s.executeQuery("SELECT rank, node, dist, current_setting('" + DuckDbAnalyses.STREAM_RESULTS
                             + "') FROM swept ORDER BY node")) {
                    while (rs.next()) {
                        got.add(rs.getLong(1) + " " + rs.getLong(2) + " " + rs.getLong(3));
                        assertEquals(String.valueOf(stream), rs.getString(4), "the connection's setting is left as it was");
                    }
                }
                assertEquals(List.of("0 30 70", "0 40 70", "0 41 70", "0 43 170", "0 45 0"), got, "streaming " + stream);
            }
        }
    }

    @Test
    void aFolderIsOneTableItsHiddenFilesUnread() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("folder/a/b"));
        Files.copy(events, folder.resolve("one.parquet"));
        copy("SELECT * FROM EVENTS WHERE ph = 'X'", dir.resolve("folder/two.parquet"));
        Files.createDirectories(dir.resolve("folder/_temporary"));
        Files.writeString(dir.resolve("folder/_temporary/part.parquet"), "a writer's unfinished file");
        Files.writeString(dir.resolve("folder/a/.part.parquet"), "hidden");
        long complete = rows.stream().filter(e -> "X".equals(e.ph())).count();
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(dir.resolve("folder"))) {
            long all = rows.size() + complete;
            assertArrayEquals(new long[] {all, 1, all, 1}, duck.kept());
        }
    }

    /**
     * A folder of rank=N files, as per-host {@code tables --partition-by-rank} writes them, is read through one
     * read_parquet of their list, whatever their number (a UNION of one scan a file made a statement's memory grow with
     * the files: the critical path ran out of the launcher's memory over 64 of them); a file without a rank column is
     * read on its own, its folder's rank added. Every rank's rows are in, once.
     */
    @Test
    void aFolderOfRankFilesIsReadThroughOneScan() throws Exception {
        int ranks = 8;
        for (int r = 0; r < ranks; r++) {
            copy("SELECT * REPLACE (CAST(" + r + " AS INTEGER) AS rank) FROM EVENTS",
                    Files.createDirectories(dir.resolve("scan/events/rank=" + r)).resolve("part-rank-" + r + ".parquet"));
        }
        copy("SELECT * EXCLUDE (rank) FROM EVENTS", Files.createDirectories(dir.resolve("scan/events/rank=" + ranks)).resolve("p.parquet"));
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(dir.resolve("scan"))) {
            CriticalPath.Engine e = duck.engine("");
            assertEquals(2, e.count("SELECT (LENGTH(sql) - LENGTH(REPLACE(sql, 'read_parquet(', ''))) / 13 FROM duckdb_views()"
                    + " WHERE view_name = 'flagtrace_read_events'"), "one scan of the rank=N files with a rank column, one of the other");
            assertEquals(ranks + 1, e.count("SELECT COUNT(DISTINCT rank) FROM events"));
            for (int r = 0; r <= ranks; r++) {
                assertEquals(rows.size(), e.count("SELECT COUNT(*) FROM events WHERE rank = " + r), "rank " + r);
            }
        }
    }

    /**
     * A table partitioned by rank as Spark and DuckDB write it: thousands of rank=N folders whose files have no rank
     * column, under a folder named KEY=VALUE after one of the table's columns. It is one scan: every rank's rows once,
     * with its folder's rank; a filter on rank reads that rank's file only; each column is the file's own (DuckDB's
     * hive partitioning over the real path would give every row name 'parent').
     */
    @Test
    void thousandsOfRankFoldersWithoutARankColumnAreOneScanThatARankFilterPrunes() throws Exception {
        int ranks = 2000;
        int each = 40;
        Path table = Files.createDirectories(dir.resolve("many/name=parent/events"));
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:"); java.sql.Statement s = c.createStatement()) {
            s.execute("COPY (SELECT * REPLACE (CAST(r AS INTEGER) AS rank) FROM (SELECT * FROM read_parquet(" + q(events)
                    + ") WHERE name IS NOT NULL ORDER BY ts_ns LIMIT " + each + "), range(" + ranks + ") t(r)) TO " + q(table)
                    + " (FORMAT parquet, PARTITION_BY (rank))");
        }
        assertFalse(TableRows.query("DESCRIBE SELECT * FROM read_parquet(" + q(table.resolve("rank=0/data_0.parquet"))
                + ", hive_partitioning = false)").stream().anyMatch(r -> r.get(0).equals("rank")), "the files have no rank column");
        Set<String> before = scratch();
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(table)) {
            CriticalPath.Engine e = duck.engine("");
            assertEquals(1, e.count("SELECT (LENGTH(sql) - LENGTH(REPLACE(sql, 'read_parquet(', ''))) / 13 FROM duckdb_views()"
                    + " WHERE view_name = 'flagtrace_read_events'"), "one scan of every file");
            assertEquals(ranks, e.count("SELECT COUNT(DISTINCT rank) FROM events"));
            assertEquals(0, e.count("SELECT COUNT(*) FROM (SELECT rank, COUNT(*) AS n FROM events GROUP BY rank) WHERE n <> " + each
                    + " OR rank NOT BETWEEN 0 AND " + (ranks - 1)));
            assertEquals(0, e.count("SELECT COUNT(*) FROM events WHERE name = 'parent'"), "the file's name column, not the folder's");
            assertEquals(each, e.count("SELECT COUNT(*) FROM events WHERE rank = 1234"));
            String plan = duck.plan("SELECT COUNT(*) FROM events WHERE rank = 1234");
            assertTrue(plan.contains("Scanning Files: 1/" + ranks), plan);
            assertEquals(before.size() + 2, scratch().size(), "the links' folder and the one to spill into");
        }
        assertEquals(before, scratch(), "both gone at close");
    }

    /**
     * A rank-partitioned folder whose files differ: rank=0's has a rank column, rank=1's and rank=2's have none (as a
     * table partitioned by rank is written). Each file's rows get their folder's rank, read through the links (one scan of
     * the files without the column) or, where the temporary folder's path holds '=' (here {@code name=tmp}, which DuckDB's
     * hive partitioning would read as a column over the files' own), one scan a file; the same rows either way, and nothing
     * left behind.
     */
    @Test
    void aFolderOfFilesWithAndWithoutARankColumnGivesEachFileItsFoldersRank() throws Exception {
        Path table = Files.createDirectories(dir.resolve("mixed/events"));
        String some = "SELECT * FROM (SELECT * FROM EVENTS WHERE name IS NOT NULL ORDER BY ts_ns LIMIT 30)";
        copy(some.replace("SELECT * FROM (", "SELECT * REPLACE (CAST(0 AS INTEGER) AS rank) FROM ("),
                Files.createDirectories(table.resolve("rank=0")).resolve("a.parquet"));
        for (int r = 1; r <= 2; r++) {
            copy(some.replace("SELECT * FROM (", "SELECT * EXCLUDE (rank) FROM ("),
                    Files.createDirectories(table.resolve("rank=" + r)).resolve("b.parquet"));
        }
        String tmp = System.getProperty("java.io.tmpdir");
        for (Path scratchIn : new Path[] {Path.of(tmp), Files.createDirectories(dir.resolve("name=tmp"))}) {
            System.setProperty("java.io.tmpdir", scratchIn.toString());
            try {
                Set<String> before = scratch();
                try (DuckDbAnalyses duck = DuckDbAnalyses.open(table)) {
                    CriticalPath.Engine e = duck.engine("");
                    String view = "SELECT (LENGTH(sql) - LENGTH(REPLACE(sql, 'read_parquet(', ''))) / 13 FROM duckdb_views()"
                            + " WHERE view_name = 'flagtrace_read_events'";
                    boolean linked = scratchIn.toString().indexOf('=') < 0;
                    assertEquals(0, e.count("SELECT COUNT(*) FROM events WHERE name = 'tmp'"), "each file's own names");
                    assertEquals(linked ? 2 : 3, e.count(view), "scans: rank=0's file, then the others " + (linked ? "in one" : "each"));
                    for (int r = 0; r <= 2; r++) {
                        assertEquals(30, e.count("SELECT COUNT(*) FROM events WHERE rank = " + r), "rank " + r);
                    }
                    assertEquals(90, e.count("SELECT COUNT(*) FROM events"));
                }
                assertEquals(before, scratch(), "nothing left behind in " + scratchIn);
            } finally {
                System.setProperty("java.io.tmpdir", tmp);
            }
        }
    }

    /** The folders named flagtrace-analyze-* in the temporary folder: the links and DuckDB's spill folders. */
    private static Set<String> scratch() throws IOException {
        Set<String> out = new TreeSet<>();
        try (var list = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            list.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("flagtrace-analyze-")).forEach(out::add);
        }
        return out;
    }

    @Test
    void aPathWithPatternCharactersIsReadAsItselfAndItsLinkIsRemoved() throws Exception {
        Path glob = Files.createDirectories(dir.resolve("glob"));
        Path literal = Files.copy(events, glob.resolve("ev[1].parquet"));
        copy("SELECT * FROM EVENTS WHERE ph = 'X'", glob.resolve("ev1.parquet")); // what the pattern ev[1] matches
        Set<String> before = scratch();
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(literal)) {
            assertEquals(rows.size(), duck.kept()[0], "the file named, not the one its name matches");
            assertEquals(before.size() + 2, scratch().size(), "a folder of links and one to spill into");
        }
        assertEquals(before, scratch(), "both gone at close");
    }

    @Test
    void whatIsNoEventsTableIsRefusedInWordsLeavingNothing() throws Exception {
        Set<String> before = scratch();
        Path none = dir.resolve("missing.parquet");
        assertEquals(none + ": no such file or folder", refusal(none));
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Files.writeString(empty.resolve("notes.txt"), "no table here");
        assertEquals(empty + ": a folder with no .parquet file in it", refusal(empty));
        Path text = Files.writeString(dir.resolve("text.parquet"), "{\"traceEvents\": []}");
        assertEquals(text + " is not a Parquet events table: its Parquet structure is damaged or it is not Parquet (the footer,"
                + " the metadata or a page cannot be read)", refusal(text));
        Path nameless = copy("SELECT * EXCLUDE (name) FROM EVENTS", dir.resolve("nameless.parquet"));
        assertEquals(nameless + " is not a flagtrace events table: it has no column name (VARCHAR, docs/tables.md); write the"
                + " table with flagtrace tables", refusal(nameless));
        Path texty = copy("SELECT * REPLACE (CAST(dur_ns AS VARCHAR) AS dur_ns) FROM EVENTS", dir.resolve("texty.parquet"));
        assertEquals(texty + " is not a flagtrace events table: column dur_ns is VARCHAR where docs/tables.md has BIGINT; write"
                + " the table with flagtrace tables", refusal(texty));
        Path twoRanks = Files.createDirectories(dir.resolve("ranks/rank=0/rank=1"));
        Files.copy(events, twoRanks.resolve("p.parquet"));
        assertEquals(twoRanks.resolve("p.parquet") + ": it is under two rank folders, rank=0 and rank=1", refusal(dir.resolve("ranks")));
        assertEquals(before, scratch(), "a refused open leaves no link and no spill folder");
    }

    private static String refusal(Path input) {
        return assertThrows(IOException.class, () -> DuckDbAnalyses.open(input).close()).getMessage();
    }

    @Test
    void aTableWrittenBeforeTheAddedColumnsReadsThemAsNull() throws Exception {
        Path older = copy("SELECT * EXCLUDE (in_elems, out_elems, dtype, group_size, process_group) FROM EVENTS",
                dir.resolve("older.parquet"));
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(older)) {
            assertEquals(rows.size(), duck.kept()[0]);
            assertEquals(duck.run("kernel_stats"), TableRows.run(events, "kernel_stats"), "the same kernels either way");
        }
    }

    @Test
    void aFolderNamesTheRankOfItsFilesOnlyAsAWholeNumber() throws IOException {
        Path root = Path.of("t");
        assertEquals(3, DuckDbAnalyses.folderRank(root, Path.of("x/rank=3/y/p.parquet")));
        assertEquals(-1, DuckDbAnalyses.folderRank(root, Path.of("rank=-1/p.parquet")));
        assertEquals(Integer.MAX_VALUE, DuckDbAnalyses.folderRank(root, Path.of("rank=2147483647/p.parquet")));
        assertEquals(7, DuckDbAnalyses.folderRank(root, Path.of("rank=7/rank=7/p.parquet")), "the same rank twice");
        assertNull(DuckDbAnalyses.folderRank(root, Path.of("p.parquet")));
        assertNull(DuckDbAnalyses.folderRank(root, Path.of("ranks/rank=3.parquet")), "a file's own name is no folder");
        for (String bad : List.of("rank=2147483648", "rank=", "rank=+1", "rank=1e3", "rank=99999999999")) {
            IOException e = assertThrows(IOException.class, () -> DuckDbAnalyses.folderRank(root, Path.of(bad + "/p.parquet")));
            assertEquals(root.resolve(bad + "/p.parquet") + ": its folder " + bad + " is no rank (rank=N, N a whole number that"
                    + " fits the rank column's INTEGER)", e.getMessage());
        }
    }

    @Test
    void valuesAreWholeNumbersOrTextAndDuckDbsWordsAreNotShown() {
        assertEquals(5L, DuckDbAnalyses.value(5, "t", "c"));
        assertEquals(-5L, DuckDbAnalyses.value((short) -5, "t", "c"));
        assertEquals(Long.MAX_VALUE, DuckDbAnalyses.value(BigInteger.valueOf(Long.MAX_VALUE), "t", "c"));
        assertThrows(ArithmeticException.class, () -> DuckDbAnalyses.value(BigInteger.ONE.shiftLeft(63), "t", "c"));
        assertEquals("x", DuckDbAnalyses.value("x", "t", "c"));
        assertNull(DuckDbAnalyses.value(null, "t", "c"));
        assertEquals("kernel_stats.avg holds a Double (1.5); the analyses give whole numbers and text only",
                assertThrows(IllegalStateException.class, () -> DuckDbAnalyses.value(1.5, "kernel_stats", "avg")).getMessage());

        assertEquals("a value in it does not fit its column's type", words("Conversion Error: Could not convert INT64 to INT32"));
        assertEquals("it lacks a column the analyses need, or a column has another type (docs/tables.md)",
                words("Binder Error: Referenced column \"dur_ns\" not found"));
        assertEquals("DuckDB ran out of memory reading it (its budget: FLAGTRACE_ANALYZE_MEMORY)",
                words("Out of Memory Error: failed to allocate"));
        // a query failing while its rows stream (rank_ops at 64 x 1M in 616 MiB): the driver hides DuckDB's error
        assertTrue(words("Invalid Input Error: Invalid result set").startsWith("DuckDB stopped the query while its rows were read"));
        assertEquals("the file cannot be found", words("IO Error: No files found that match the pattern"));
        assertEquals("the file cannot be read (permission denied)", words("IO Error: Cannot open file: Permission denied"));
        assertEquals("flagtrace's own SQL failed on it, a bug in flagtrace rather than in the input (please report it)",
                words("Parser Error: syntax error at or near \"at\""));
        assertTrue(words("Invalid Input Error: TProtocolException: Invalid data").startsWith("its Parquet structure is damaged"));
        assertTrue(words(null).startsWith("its Parquet structure is damaged"));
    }

    private static String words(String duckdb) {
        return DuckDbAnalyses.words(new java.sql.SQLException(duckdb));
    }
}
