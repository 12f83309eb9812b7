package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code analyze --steps FIRST-LAST}: every analysis sees only the events that start within each
 * rank's steps FIRST to LAST, and the command says how many it kept and left out; recounted here
 * from the table's rows in plain Java.
 */
class AnalyzeStepsTest {
    static final int RANKS = 3;

    @TempDir
    static Path dir;

    static Path events;
    final CliRunner cli = new CliRunner();

    @BeforeAll
    static void build() throws Exception {
        events = SyntheticRanks.events(dir, RANKS, 1);
    }

    /** Per rank: the window of steps first..last (earliest start, latest end of its ProfilerStep ops) and the rows in it. */
    private static Map<Long, long[]> recount(long first, long last, Map<Long, Long> deviceWorkInWindow, long[] totals) throws Exception {
        Map<Long, long[]> window = new TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            String table = "read_parquet('" + events.toAbsolutePath().toString().replace("'", "''") + "')";
            try (ResultSet rs = s.executeQuery("SELECT rank, name, cat, ts_ns, dur_ns FROM " + table + " WHERE ph = 'X'")) {
                while (rs.next()) {
                    String name = rs.getString(2);
                    if (name.startsWith("ProfilerStep#")
                            && java.util.List.of("cpu_op", "user_annotation", "python_function", "Operator").contains(rs.getString(3))) {
                        long n = Long.parseLong(name.substring("ProfilerStep#".length()));
                        if (n >= first && n <= last) {
                            long[] w = window.computeIfAbsent(rs.getLong(1), r -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
                            w[0] = Math.min(w[0], rs.getLong(4));
                            w[1] = Math.max(w[1], rs.getLong(4) + rs.getLong(5));
                        }
                    }
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT rank, cat, ts_ns FROM " + table)) {
                while (rs.next()) {
                    totals[1]++;
                    long[] w = window.get(rs.getLong(1));
                    long ts = rs.getLong(3);
                    if (w != null && !rs.wasNull() && ts >= w[0] && ts < w[1]) {
                        totals[0]++;
                        if ("kernel".equals(rs.getString(2)) || "gpu_memcpy".equals(rs.getString(2)) || "gpu_memset".equals(rs.getString(2))) {
                            deviceWorkInWindow.merge(rs.getLong(1), 1L, Long::sum);
                        }
                    }
                }
            }
        }
        return window;
    }

    @Test
    void everyAnalysisSeesOnlyTheStepsAndTheCountIsSaid() throws Exception {
        Path out = dir.resolve("out");
        assertEquals(0, cli.run("analyze", events.toString(), "--steps", "2-3", "-o", out.toString(), "--format", "json"), cli.stderr());
        Map<Long, Long> device = new HashMap<>();
        long[] totals = new long[2];
        Map<Long, long[]> window = recount(2, 3, device, totals);
        assertEquals(RANKS, window.size());
        assertTrue(totals[0] > 0 && totals[0] < totals[1], totals[0] + " of " + totals[1]);
        assertTrue(cli.stdout().startsWith("steps 2-3: " + totals[0] + " of " + totals[1] + " events kept (" + (totals[1] - totals[0])
                + " left out), " + RANKS + " of " + RANKS + " ranks\n"), cli.stdout());

        JsonNode steps = TraceJson.MAPPER.readTree(out.resolve("rank_steps.json").toFile());
        TreeSet<Long> seen = new TreeSet<>();
        for (JsonNode r : steps) {
            seen.add(r.get("step").asLong());
            long[] w = window.get(r.get("rank").asLong());
            assertTrue(r.get("start_ns").asLong() >= w[0] && r.get("end_ns").asLong() <= w[1], r.toString());
        }
        assertEquals(new TreeSet<>(java.util.List.of(2L, 3L)), seen);
        assertEquals(2 * RANKS, steps.size());

        Map<Long, Long> calls = new HashMap<>();
        for (JsonNode r : TraceJson.MAPPER.readTree(out.resolve("kernel_stats.json").toFile())) {
            calls.merge(r.get("rank").asLong(), r.get("calls").asLong(), Long::sum);
        }
        assertEquals(device, calls, "device work starting within each rank's window");
        for (JsonNode r : TraceJson.MAPPER.readTree(out.resolve("kernel_launches.json").toFile())) {
            long[] w = window.get(r.get("rank").asLong());
            assertTrue(r.get("kernel_ns").asLong() < w[1] && r.get("launch_ns").asLong() >= w[0], r.toString());
        }

        // one step, the same rule
        assertEquals(0, cli.run("analyze", events.toString(), "--steps", "4", "--only", "rank_steps"), cli.stderr());
        assertTrue(cli.stdout().startsWith("step 4: "), cli.stdout());
    }

    @Test
    void badStepsAreOneLineAndNoFile() throws Exception {
        Path out = dir.resolve("none");
        for (String bad : new String[] {"3-2", "x", "1-2-3", ""}) {
            assertEquals(ExitCodes.USAGE, cli.run("analyze", events.toString(), "--steps", bad, "-o", out.toString()), bad);
            assertTrue(cli.stderr().contains("--steps"), cli.stderr());
        }
        assertEquals(1, cli.run("analyze", events.toString(), "--steps", "40-50", "-o", out.toString()));
        assertTrue(cli.stderr().contains("no rank has steps 40-50"), cli.stderr());
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        assertFalse(Files.exists(out.resolve("rank_steps.csv")));
    }
}
