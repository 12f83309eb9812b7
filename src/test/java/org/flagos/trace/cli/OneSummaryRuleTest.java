package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One op-summary rule (torch's key_averages, {@code stages/KeyAveragesRule}) in all three places
 * that compute it, to the nanosecond: the walk's fold ({@code replay X --summary S.json -o T.json}),
 * the trace file's summary ({@code summary T.json --json S2.json}) and the SQL ({@code tables T.json}
 * and {@code analyze}'s rank_ops on DuckDB). Every row (ops, runtime calls, device work) of every
 * bundled capture, of the demo's, and of the h200-app capture with ops that cross (parent 0-1000 us,
 * childA 100-700, childB 300-900: the parent's self CPU is 1000 - union 800 = 200 us), of touching,
 * zero-length and deeply nested ops (a chain {@code outer > deep > deep > outer ...}) and of random op
 * trees; no self time negative.
 *
 * <p>Ops that cross (one starts inside another and ends after it) are generated with nothing inside
 * both: an event in the overlap of two crossing ops has no single parent by the rule. The trace's
 * summary and the SQL nest it, as torch's stack does, in the later-starting one; the walk, which folds
 * ops as they end, in the earlier-ending one. The walk counts and names such ops in its crossing note
 * (their self CPU times are "not meaningful"), docs/summary.md says so.
 */
class OneSummaryRuleTest {
    @TempDir
    Path dir;

    static List<String> captures() {
        List<String> all = new ArrayList<>(Captures.EVERY);
        all.add("fake/fake-mcpti");
        return all;
    }

    @ParameterizedTest
    @MethodSource("captures")
    void replaySummaryAndRankOpsAgreeToTheNanosecond(String name) throws Exception {
        assertAllAgree(Captures.capture(name), null);
    }

    @Test
    void theDemosCaptureAgrees() throws Exception {
        Path demo = Path.of(OneSummaryRuleTest.class.getResource("/org/flagos/trace/demo/h200-app.fltrbuf").toURI());
        assertAllAgree(demo, null);
    }

    /** The case, and touching, zero-length and deeply nested ops, on the real h200-app capture. */
    @Test
    void crossingTouchingZeroLengthAndDeepOpsAgreeAndNoSelfTimeIsNegative() throws Exception {
        Path capture = copyOfCapture("h200-app");
        long t = 1795982694852089627L + 500_000; // inside the capture window, before its first op
        List<String> extra = new ArrayList<>();
        long id = 900_000;
        extra.add(op("parent", id++, t, t + 1_000_000));
        extra.add(op("childA", id++, t + 100_000, t + 700_000));
        extra.add(op("childB", id++, t + 300_000, t + 900_000));
        long u = t + 1_100_000; // touching siblings and zero-length ops inside a parent, one at its end
        extra.add(op("touchParent", id++, u, u + 300_000));
        extra.add(op("touch", id++, u, u + 100_000));
        extra.add(op("touch", id++, u + 100_000, u + 200_000));
        extra.add(op("zero", id++, u + 200_000, u + 200_000));
        extra.add(op("zero", id++, u + 300_000, u + 300_000));
        long v = u + 400_000; // outer > deep > deep > outer > ... with 8 deep
        for (int level = 0; level < 4; level++) {
            long s = v + level * 30_000;
            long e = v + 1_000_000 - level * 30_000;
            extra.add(op("outer", id++, s, e));
            extra.add(op("deep", id++, s + 10_000, e - 10_000));
            extra.add(op("deep", id++, s + 20_000, e - 20_000));
        }
        insert(capture.resolveSibling("h200-app.ops.jsonl"), extra);
        Map<String, long[]> rows = assertAllAgree(capture, null);
        assertEquals(200_000, rows.get("host parent")[2], "parent: 1000 us less the union (800 us) of its crossing children");
        assertEquals(600_000, rows.get("host childA")[1]);
        assertEquals(8, rows.get("host deep")[0], "every event counts, nested in its own name too");
        assertEquals(4, rows.get("host outer")[0]);
        assertEquals(100_000, rows.get("host touchParent")[2], "300 us less two touching 100 us children");
        assertEquals(2, rows.get("host zero")[0]);
    }

    /**
     * Random op trees (seeded): nesting up to 7 deep with names repeating down a chain, siblings
     * that touch, cross one another or last no time, on two threads, inserted into the h200-app
     * capture's window before its first op (among the runtime calls there): the three agree.
     */
    @Test
    void randomOpTreesAgree() throws Exception {
        for (long seed = 1; seed <= 4; seed++) {
            java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
            Path capture = copyOfCapture("h200-app");
            long window = 1795982694852089627L;
            List<String> extra = new ArrayList<>();
            long[] id = {900_000};
            tree(random, extra, id, window + 10_000, window + 2_900_000, 0, 0); // the app's thread, with its runtime calls
            tree(random, extra, id, window + 10_000, window + 2_900_000, 0, 7); // a thread of its own
            insert(capture.resolveSibling("h200-app.ops.jsonl"), extra);
            Files.createDirectories(Path.of("target", "one-summary-rule")); // the ops of the last seed run, to look into a failure
            Files.copy(capture.resolveSibling("h200-app.ops.jsonl"), Path.of("target", "one-summary-rule", "random-trees.ops.jsonl"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Map<String, long[]> rows = assertAllAgree(capture, "seed " + seed);
            assertTrue(rows.keySet().stream().anyMatch(k -> k.startsWith("host r")), "seed " + seed + ": random ops in the rows");
            try (var files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    deleteTree(f);
                }
            }
        }
    }

    private static void tree(java.util.SplittableRandom random, List<String> out, long[] id, long from, long to, int depth, int thread) {
        long t = from;
        while (t < to && out.size() < 300) {
            int shape = random.nextInt(10);
            long s = shape == 0 ? t : t + random.nextLong(1, Math.max(2, (to - t) / 4)); // shape 0: touches the last
            if (s >= to) {
                break;
            }
            long e = shape == 1 ? s : Math.min(to, s + random.nextLong(1, Math.max(2, (to - s) / 2)));
            String name = "r" + random.nextInt(depth < 3 ? 3 : 2);
            out.add(op(name, id[0]++, s, e, thread));
            long next = e;
            if (shape == 2 && e < to && thread != 0) { // a sibling that starts inside this one and ends after it
                long cs = s + (e - s) / 2;
                long ce = Math.min(to, e + 1 + random.nextInt(50_000));
                if (cs > s && ce > e) {
                    out.add(op("rcross", id[0]++, cs, ce, thread));
                    next = ce; // nothing in the overlap of the two (see the class comment)
                }
            }
            if (depth < 7 && e - s > 20 && shape != 1 && next == e) {
                tree(random, out, id, s + random.nextInt(3) * (e - s) / 10, e - random.nextInt(2) * (e - s) / 10, depth + 1, thread);
            }
            t = next;
        }
    }

    private static String op(String name, long id, long start, long end, int thread) {
        return "{\"name\":\"" + name + "\",\"external_id\":" + id + (thread == 0 ? "" : ",\"thread\":" + thread)
                + ",\"start\":" + start + ",\"end\":" + end + "}";
    }

    /** Puts {@code extra} after the ops file's first line (its window), in the order ops end (then the later start first). */
    private static void insert(Path ops, List<String> extra) throws IOException {
        java.util.regex.Pattern time = java.util.regex.Pattern.compile("\"start\":(\\d+),\"end\":(\\d+)");
        List<String> sorted = new ArrayList<>(extra);
        sorted.sort(java.util.Comparator.comparingLong((String o) -> at(time, o, 2)).thenComparing(o -> -at(time, o, 1)));
        List<String> lines = new ArrayList<>(Files.readAllLines(ops));
        lines.addAll(1, sorted);
        Files.write(ops, lines);
    }

    private static long at(java.util.regex.Pattern time, String op, int group) {
        java.util.regex.Matcher m = time.matcher(op);
        assertTrue(m.find(), op);
        return Long.parseLong(m.group(group));
    }

    private static void deleteTree(Path p) throws IOException {
        if (Files.isDirectory(p)) {
            try (var files = Files.list(p)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    deleteTree(f);
                }
            }
        }
        Files.delete(p);
    }

    private static String op(String name, long id, long start, long end) {
        return "{\"name\":\"" + name + "\",\"external_id\":" + id + ",\"start\":" + start + ",\"end\":" + end + "}";
    }

    private Path copyOfCapture(String name) throws IOException {
        Path to = dir.resolve("capture");
        Files.createDirectories(to);
        try (var files = Files.list(Captures.dir())) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (f.getFileName().toString().startsWith(name + ".")) {
                    Files.copy(f, to.resolve(f.getFileName()));
                }
            }
        }
        return to.resolve(name + ".fltrbuf");
    }

    /** Runs the three and compares every row; returns the rows (kind + " " + name: count, CPU, self CPU, self device, device total, ns). */
    private Map<String, long[]> assertAllAgree(Path capture, String unused) throws Exception {
        CliRunner cli = new CliRunner();
        Path trace = dir.resolve("t.json");
        Path walk = dir.resolve("s.json");
        Path read = dir.resolve("s2.json");
        Path events = dir.resolve("events.parquet");
        int rc = cli.run("replay", capture.toString(), "-o", trace.toString(), "--summary", walk.toString());
        assertTrue(rc == 0 || rc == 3, capture + ": replay exit " + rc + " " + cli.stderr());
        assertTrue(cli.stdout().contains(OpTable.NOTE), cli.stdout());
        assertEquals(0, cli.run("summary", trace.toString(), "--json", read.toString()), cli.stderr());
        assertEquals(0, cli.run("tables", trace.toString(), "-o", events.toString()), cli.stderr());
        Map<String, long[]> fromWalk = rows(walk);
        Map<String, long[]> fromTrace = rows(read);
        Map<String, long[]> fromSql = new TreeMap<>();
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            ResultTable t = duck.run("rank_ops");
            List<String> c = t.columns();
            for (List<Object> r : t.rows()) {
                String key = r.get(c.indexOf("kind")) + " " + r.get(c.indexOf("name"));
                long[] v = {(Long) r.get(c.indexOf("calls")), (Long) r.get(c.indexOf("cpu_total_ns")),
                        (Long) r.get(c.indexOf("self_cpu_ns")), (Long) r.get(c.indexOf("self_device_ns")),
                        (Long) r.get(c.indexOf("device_total_ns"))};
                long[] had = fromSql.putIfAbsent(key, v);
                assertTrue(had == null, key + ": one rank");
            }
        }
        assertTrue(fromWalk.size() > 5, capture + ": " + fromWalk.keySet());
        assertEquals(fromTrace.keySet(), fromWalk.keySet(), capture + ": rows of replay --summary and summary --json");
        assertEquals(fromTrace.keySet(), fromSql.keySet(), capture + ": rows of summary --json and rank_ops");
        // One order too, by the one sort key. Rows that tie as printed may differ: summary sums as torch does,
        // in double microseconds, whose last bits break its ties; the walk sums exact ns, ties in first appearance.
        assertEquals(order(read), order(walk), capture + ": the order of rows in replay --summary and summary --json");
        Map<String, Double> first = firstStarts(trace);
        for (java.util.Set<String> tie : order(walk)) {
            double previous = Double.NEGATIVE_INFINITY;
            for (String row : orderedRows(walk, tie)) {
                Double at = first.get(row);
                if (at != null) {
                    assertTrue(at >= previous, capture + ": " + row + " ties " + tie + " and is listed after a row that appeared later");
                    previous = at;
                }
            }
        }
        String[] what = {"count", "CPU total", "self CPU", "self device", "device total"};
        for (Map.Entry<String, long[]> e : fromTrace.entrySet()) {
            for (int i = 0; i < what.length; i++) {
                String who = capture.getFileName() + " " + e.getKey() + ": " + what[i];
                assertEquals(e.getValue()[i], fromWalk.get(e.getKey())[i], who + " (replay --summary vs summary --json)");
                assertEquals(e.getValue()[i], fromSql.get(e.getKey())[i], who + " (rank_ops vs summary --json)");
                assertTrue(e.getValue()[i] >= 0, who + " negative");
            }
        }
        return fromTrace;
    }

    /** The rows of {@code tie} in the summary file's order. */
    private static List<String> orderedRows(Path summary, java.util.Set<String> tie) throws IOException {
        List<String> out = new java.util.ArrayList<>();
        for (JsonNode r : TraceJson.MAPPER.readTree(summary.toFile()).get("rows")) {
            String key = r.get("kind").asText() + " " + r.get("name").asText();
            if (tie.contains(key)) {
                out.add(key);
            }
        }
        return out;
    }

    /** Each summary row's first event in the trace (its earliest ts), as "kind name"; device rows from device events. */
    private static Map<String, Double> firstStarts(Path trace) throws IOException {
        java.util.Set<String> device = java.util.Set.of("kernel", "gpu_memcpy", "gpu_memset");
        Map<String, Double> out = new java.util.HashMap<>();
        for (JsonNode e : TraceJson.MAPPER.readTree(trace.toFile()).get("traceEvents")) {
            String cat = e.path("cat").asText("");
            if (!"X".equals(e.path("ph").asText()) || cat.equals("gpu_user_annotation")) {
                continue;
            }
            String key = (device.contains(cat) ? "device " : "host ") + e.path("name").asText();
            out.merge(key, e.path("ts").asDouble(), Math::min);
        }
        return out;
    }

    /**
     * A summary file's rows in the file's order, as groups of the rows that share the printed value of
     * the file's sort key (a set each, in order).
     */
    private static List<java.util.Set<String>> order(Path summary) throws IOException {
        JsonNode root = TraceJson.MAPPER.readTree(summary.toFile());
        String key = root.get("sort").asText() + "_us"; // self_device_time_total_us, cpu_time_total_us, ...
        List<java.util.Set<String>> out = new java.util.ArrayList<>();
        String last = null;
        for (JsonNode r : root.get("rows")) {
            String value = r.get(key).asText();
            if (!value.equals(last)) {
                out.add(new java.util.TreeSet<>());
                last = value;
            }
            out.get(out.size() - 1).add(r.get("kind").asText() + " " + r.get("name").asText());
        }
        return out;
    }

    /** A summary file's rows, times in ns (the file's microseconds have three decimals). */
    static Map<String, long[]> rows(Path summary) throws IOException {
        JsonNode root = TraceJson.MAPPER.readTree(summary.toFile());
        Map<String, long[]> out = new TreeMap<>();
        assertEquals(root.get("rows_total").asInt(), root.get("rows").size(), summary + ": every row");
        for (JsonNode r : root.get("rows")) {
            String key = r.get("kind").asText() + " " + r.get("name").asText();
            long[] had = out.put(key, new long[] {r.get("count").asLong(), ns(r, "cpu_time_total_us"),
                    ns(r, "self_cpu_time_total_us"), ns(r, "self_device_time_total_us"), ns(r, "device_time_total_us")});
            assertTrue(had == null, summary + ": one row " + key);
        }
        return out;
    }

    private static long ns(JsonNode row, String field) {
        return new java.math.BigDecimal(row.get(field).asText()).movePointRight(3).longValueExact();
    }
}
