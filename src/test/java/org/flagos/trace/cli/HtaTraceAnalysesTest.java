package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;
import org.flagos.trace.testing.TableRows;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kernel_stats, kernel_launches, queue_length and stream_idle against what Holistic Trace Analysis
 * itself computes on one of its own test traces (src/test/resources/hta: HTA's
 * {@code critical_path/simple_add} trace, MIT licence, and HTA's results on it, made by
 * {@code hta_reference.py} there). The trace's times are whole microseconds, HTA's unit, so every
 * figure of HTA times 1000 is flagtrace's in ns, exactly (the standard deviation to within 1 ns:
 * HTA's is a float, flagtrace's the exact whole ns below it).
 */
class HtaTraceAnalysesTest {
    @TempDir
    static Path dir;

    static Path trace;
    static JsonNode hta;
    static Map<String, ResultTable> tables = new HashMap<>();

    @BeforeAll
    static void build() throws Exception {
        trace = Path.of(HtaTraceAnalysesTest.class.getResource("/hta/simple_add_trace.json.gz").toURI());
        hta = new ObjectMapper().readTree(HtaTraceAnalysesTest.class.getResource("/hta/simple_add.hta.json"));
        Path events = dir.resolve("events.parquet");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("tables", trace.toString(), "-o", events.toString()), cli.stderr());
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            for (String name : List.of("kernel_stats", "kernel_launches", "queue_length", "stream_idle")) {
                tables.put(name, duck.run(name));
            }
        }
    }

    private static List<Map<String, Object>> rows(String table) {
        return TableRows.maps(tables.get(table));
    }

    private static long ns(JsonNode us) {
        double v = us.asDouble() * 1000;
        assertEquals(Math.rint(v), v, 1e-6, "a whole ns: " + us);
        return Math.round(v);
    }

    @Test
    void kernelStatsAreHtasKernelBreakdown() {
        Map<String, Map<String, Object>> ours = new HashMap<>();
        for (Map<String, Object> r : rows("kernel_stats")) {
            assertEquals(0L, r.get("rank"));
            ours.put((String) r.get("name"), r);
        }
        assertEquals(hta.get("kernels").size(), ours.size(), "one row per name, as HTA's breakdown with every kernel kept");
        assertTrue(ours.size() >= 15, "names: " + ours.size());
        for (JsonNode k : hta.get("kernels")) {
            String name = k.get("name").asText();
            Map<String, Object> r = ours.get(name);
            assertTrue(r != null, name);
            assertEquals(k.get("kind").asText().toLowerCase(java.util.Locale.ROOT), r.get("kind"), name);
            assertEquals(ns(k.get("sum")), r.get("total_ns"), name);
            assertEquals(ns(k.get("max")), r.get("max_ns"), name);
            assertEquals(ns(k.get("min")), r.get("min_ns"), name);
            assertEquals((long) Math.floor(k.get("mean").asDouble() * 1000 + 1e-6), r.get("mean_ns"), name);
            double std = k.get("std").asDouble() * 1000;
            long got = (Long) r.get("std_ns");
            assertTrue(got <= std + 1e-6 && std < got + 1, name + ": HTA's std " + std + " ns, ours " + got);
        }
    }

    @Test
    void kernelLaunchesAreHtasLaunchStats() {
        Map<Long, Map<String, Object>> ours = new HashMap<>();
        for (Map<String, Object> r : rows("kernel_launches")) {
            ours.put((Long) r.get("correlation"), r);
        }
        assertEquals(hta.get("launches").size(), ours.size());
        assertTrue(ours.size() >= 90, "launches: " + ours.size());
        long delayed = 0;
        for (JsonNode l : hta.get("launches")) {
            Map<String, Object> r = ours.get(l.get("correlation").asLong());
            assertTrue(r != null, l.toString());
            assertEquals(ns(l.get("cpu_duration")), r.get("launch_dur_ns"), l.toString());
            assertEquals(ns(l.get("gpu_duration")), r.get("kernel_dur_ns"), l.toString());
            assertEquals(ns(l.get("launch_delay")), r.get("launch_delay_ns"), l.toString());
            delayed += (Long) r.get("launch_delay_ns") > 0 ? 1 : 0;
        }
        assertTrue(delayed > 10, "launches that waited: " + delayed);
    }

    /**
     * HTA's series has one row per launch and per start, in time order (its order among rows of one
     * moment is its sort's); the length after the last row of a moment is the length flagtrace's one
     * row for that moment holds. HTA's times start at the trace's first event, flagtrace's are the
     * trace's own: both are compared from the series' first moment.
     */
    @Test
    void queueLengthIsHtasAtEveryMoment() {
        Map<Long, TreeMap<Long, Long>> want = new TreeMap<>();
        long htaFirst = Long.MAX_VALUE;
        for (JsonNode q : hta.get("queue_length")) {
            htaFirst = Math.min(htaFirst, q.get("ts").asLong());
        }
        for (JsonNode q : hta.get("queue_length")) {
            want.computeIfAbsent(q.get("stream").asLong(), s -> new TreeMap<>())
                    .put((q.get("ts").asLong() - htaFirst) * 1000, q.get("queue_length").asLong()); // the last row of a moment stays
        }
        long first = rows("queue_length").stream().mapToLong(r -> (Long) r.get("ts_ns")).min().orElseThrow();
        Map<Long, TreeMap<Long, Long>> got = new TreeMap<>();
        for (Map<String, Object> r : rows("queue_length")) {
            got.computeIfAbsent((Long) r.get("stream"), s -> new TreeMap<>()).put((Long) r.get("ts_ns") - first, (Long) r.get("queue_length"));
        }
        assertEquals(2, want.size(), "streams");
        assertEquals(want, got);
        assertTrue(got.values().stream().flatMap(m -> m.values().stream()).anyMatch(v -> v >= 2), "a queue of two or more");
    }

    @Test
    void streamIdleIsHtasIdleBreakdown() {
        Map<Long, Map<String, Long>> want = new TreeMap<>();
        for (JsonNode i : hta.get("idle")) {
            String column = switch (i.get("category").asText()) {
                case "host_wait" -> "host_wait_ns";
                case "kernel_wait" -> "kernel_wait_ns";
                case "other" -> "other_ns";
                default -> throw new AssertionError(i.toString());
            };
            want.computeIfAbsent(i.get("stream").asLong(), s -> new TreeMap<>()).put(column, ns(i.get("idle_time")));
        }
        Map<Long, Map<String, Long>> got = new TreeMap<>();
        for (Map<String, Object> r : rows("stream_idle")) {
            Map<String, Long> m = new TreeMap<>();
            for (String c : List.of("host_wait_ns", "kernel_wait_ns", "other_ns")) {
                m.put(c, (Long) r.get(c));
            }
            got.put((Long) r.get("stream"), m);
        }
        assertEquals(want, got);
        assertTrue(got.values().stream().allMatch(m -> m.get("host_wait_ns") > 0 && m.get("kernel_wait_ns") > 0));
    }

    /**
     * The report's device work statistics (one streaming pass over the trace, no SQL) are HTA's kernel
     * breakdown too, and kernel_stats' figures less the percentiles; the page shows them.
     */
    @Test
    void theReportsDeviceWorkStatisticsAreHtasAndKernelStats() throws Exception {
        List<org.flagos.trace.report.DeviceWorkStats.Row> stats = org.flagos.trace.report.TraceFile.read(trace).deviceWorkStats();
        Map<String, Map<String, Object>> sql = new HashMap<>();
        for (Map<String, Object> r : rows("kernel_stats")) {
            sql.put((String) r.get("name"), r);
        }
        assertEquals(hta.get("kernels").size(), stats.size());
        Map<String, JsonNode> byName = new HashMap<>();
        for (JsonNode k : hta.get("kernels")) {
            byName.put(k.get("name").asText(), k);
        }
        for (org.flagos.trace.report.DeviceWorkStats.Row r : stats) {
            JsonNode k = byName.get(r.name());
            assertTrue(k != null, r.name());
            assertEquals(ns(k.get("sum")), r.totalNs(), r.name());
            assertEquals(ns(k.get("min")), r.minNs(), r.name());
            assertEquals(ns(k.get("max")), r.maxNs(), r.name());
            double std = k.get("std").asDouble() * 1000;
            assertTrue(r.stdNs() <= std + 1e-6 && std < r.stdNs() + 1, r.name() + ": HTA's std " + std + " ns, ours " + r.stdNs());
            Map<String, Object> s = sql.get(r.name());
            assertEquals(List.of(s.get("calls"), s.get("total_ns"), s.get("min_ns"), s.get("max_ns"), s.get("mean_ns"), s.get("std_ns")),
                    List.of(r.calls(), r.totalNs(), r.minNs(), r.maxNs(), r.meanNs(), r.stdNs()), r.name());
        }
        assertTrue(stats.get(0).totalNs() >= stats.get(stats.size() - 1).totalNs(), "longest first");
        Path html = dir.resolve("report.html");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("report", trace.toString(), "-o", html.toString()), cli.stderr());
        String page = java.nio.file.Files.readString(html);
        int section = page.indexOf("<table id=\"device-work-stats\">");
        assertTrue(section > 0, "the section is on the page");
        String first = stats.get(0).name().replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                .replace("\"", "&quot;").replace("'", "&#39;"); // as the page escapes names
        int row = page.indexOf("<td class=\"n\">", section);
        assertEquals(row + "<td class=\"n\">".length(), page.indexOf(first, section), "its first row is the longest name: " + first);
    }
}
