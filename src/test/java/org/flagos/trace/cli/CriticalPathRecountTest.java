package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.flagos.trace.sql.CollectiveKernels;
import org.flagos.trace.sql.CriticalPathTest;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * critical_path against an independent recount on real traces: the events table's rows read back,
 * HTA's graph built again in plain Java (a stack walk of each host thread, each stream's work in
 * order, the queue counted per launch, syncs) and its longest path found by the textbook
 * topological-order pass. Per rank the SQL's length equals the recount's, and every edge the SQL
 * lists is an edge of the recount's graph with the same weight, each starting where the previous
 * one ended. On HTA's own simple_add trace the path is HTA's, edge by edge, and so are its length and
 * split (HTA at commit f4d0062, src/test/resources/hta/simple_add.cp.hta.json, times 1000: HTA works
 * in µs).
 */
public class CriticalPathRecountTest {
    @TempDir
    static Path dir;

    /** A row of the events table. */
    record Row(String cat, String name, long pid, long tid, long ts, long dur, Integer device, Long stream, Long corr, String processGroup) {
        long end() {
            return ts + dur;
        }
    }

    /** An edge of the recount's graph: from node to node (ts of each), its type and weight. */
    record Edge(int from, int to, String type, long weight) {
    }

    /** The recount's graph of one rank. */
    static final class Graph {
        final List<long[]> nodes = new ArrayList<>(); // {ts, chainKind (0 host, 1 device), c1, c2}
        final List<Edge> edges = new ArrayList<>();

        int node(long ts, int kind, long c1, long c2) {
            nodes.add(new long[] {ts, kind, c1, c2});
            return nodes.size() - 1;
        }

        void edge(int from, int to, String type, long weight) {
            edges.add(new Edge(from, to, type, Math.max(0, weight)));
        }

        /** The longest path's length, by Kahn's topological order. */
        long longest() {
            long best = 0;
            for (long d : dists()) {
                best = Math.max(best, d);
            }
            return best;
        }

        /** The longest path to every node (a path may start anywhere), by Kahn's topological order. */
        long[] dists() {
            int n = nodes.size();
            List<List<Edge>> out = new ArrayList<>();
            int[] in = new int[n];
            for (int i = 0; i < n; i++) {
                out.add(new ArrayList<>());
            }
            for (Edge e : edges) {
                out.get(e.from()).add(e);
                in[e.to()]++;
            }
            long[] dist = new long[n];
            Deque<Integer> ready = new ArrayDeque<>();
            for (int i = 0; i < n; i++) {
                if (in[i] == 0) {
                    ready.add(i);
                }
            }
            int seen = 0;
            while (!ready.isEmpty()) {
                int u = ready.poll();
                seen++;
                for (Edge e : out.get(u)) {
                    dist[e.to()] = Math.max(dist[e.to()], dist[u] + e.weight());
                    if (--in[e.to()] == 0) {
                        ready.add(e.to());
                    }
                }
            }
            assertEquals(n, seen, "the recount's graph is acyclic");
            return dist;
        }
    }

    static final Set<String> BLOCKING = Set.of("cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery", "cudaEventSynchronize",
            "cudaMemcpy");
    static final Set<String> LAUNCHES = Set.of("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
            "cudaMemcpyAsync", "cudaMemsetAsync");

    static boolean runtime(String cat) {
        return cat != null && (cat.equals("Runtime") || cat.endsWith("_runtime") || cat.endsWith("_driver"));
    }

    static boolean work(String cat) {
        return cat != null && Set.of("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset").contains(cat);
    }

    /** HTA's graph of one rank's rows, built again without SQL; edges keyed "kind c1 c2 fromTs toTs type" to weight. */
    static Graph graph(List<Row> rows, Map<String, Long> edgeKeys) {
        return graph(rows, edgeKeys, Map.of(), new HashMap<>());
    }

    /**
     * As {@link #graph(List, Map)}, where the collective kernels of {@code lastStart} waited for another
     * rank until that moment (their kernel edge weighs only the time after it); {@code workNodes} gets
     * each work item's start and end node.
     */
    static Graph graph(List<Row> rows, Map<String, Long> edgeKeys, Map<Row, Long> lastStart, Map<Row, int[]> workNodesOut) {
        Graph g = new Graph();
        List<Row> host = new ArrayList<>();
        Map<Long, Row> runtimeByCorr = new HashMap<>();
        for (Row r : rows) {
            if (r.dur() > 0 && (("cpu_op".equals(r.cat()) || "Operator".equals(r.cat())) || runtime(r.cat()))) {
                host.add(r);
                if (runtime(r.cat()) && r.corr() != null) {
                    runtimeByCorr.merge(r.corr(), r, (a, b) -> a);
                }
            }
        }
        Map<Row, int[]> hostNodes = new HashMap<>();
        // each thread: a stack walk, outer before inner, each node linked to the previous one
        Map<List<Long>, List<Row>> threads = new TreeMap<>(Comparator.comparing((List<Long> k) -> k.get(0)).thenComparing(k -> k.get(1)));
        for (Row r : host) {
            threads.computeIfAbsent(List.of(r.pid(), r.tid()), k -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<List<Long>, List<Row>> t : threads.entrySet()) {
            List<Row> evs = t.getValue();
            evs.sort(Comparator.comparingLong(Row::ts).thenComparing(Comparator.comparingLong(Row::end).reversed()));
            long pid = t.getKey().get(0);
            long tid = t.getKey().get(1);
            Deque<Row> stack = new ArrayDeque<>();
            int[] last = {-1};
            long[] lastTs = {0};
            Runnable[] dummy = new Runnable[0];
            java.util.function.Consumer<Row> exit = r -> {
                int end = hostNodes.get(r)[1];
                long w = BLOCKING.contains(r.name()) ? 0 : r.end() - lastTs[0];
                String type = BLOCKING.contains(r.name()) ? "sync_call" : "cpu";
                link(g, edgeKeys, last[0], end, type, w);
                last[0] = end;
                lastTs[0] = r.end();
            };
            for (Row r : evs) {
                while (!stack.isEmpty() && stack.peek().end() <= r.ts()) {
                    exit.accept(stack.pop());
                }
                int start = g.node(r.ts(), 0, pid, tid);
                int end = g.node(r.end(), 0, pid, tid);
                hostNodes.put(r, new int[] {start, end});
                if (last[0] >= 0) {
                    link(g, edgeKeys, last[0], start, stack.isEmpty() ? "dependency" : "cpu", stack.isEmpty() ? 0 : r.ts() - lastTs[0]);
                }
                last[0] = start;
                lastTs[0] = r.ts();
                stack.push(r);
            }
            while (!stack.isEmpty()) {
                exit.accept(stack.pop());
            }
        }
        // the queue of each stream: every launch call paired with its work, over the whole rank
        Map<Long, Long> launchTs = new HashMap<>();
        for (Row r : rows) {
            if (runtime(r.cat()) && LAUNCHES.contains(r.name()) && r.corr() != null && r.dur() >= 0) {
                launchTs.merge(r.corr(), r.ts(), Math::min);
            }
        }
        Map<List<Long>, List<long[]>> queueMoves = new HashMap<>();
        for (Row r : rows) {
            if (work(r.cat()) && r.dur() >= 0 && r.corr() != null && launchTs.containsKey(r.corr())) {
                List<long[]> m = queueMoves.computeIfAbsent(List.of((long) r.device(), r.stream()), k -> new ArrayList<>());
                m.add(new long[] {launchTs.get(r.corr()), 1});
                m.add(new long[] {r.ts(), -1});
            }
        }
        // each stream's work in order
        Map<List<Long>, List<Row>> streams = new HashMap<>();
        for (Row r : rows) {
            if (work(r.cat()) && r.dur() >= 0 && r.corr() != null && r.device() != null && r.stream() != null && runtimeByCorr.containsKey(r.corr())) {
                streams.computeIfAbsent(List.of((long) r.device(), r.stream()), k -> new ArrayList<>()).add(r);
            }
        }
        Map<List<Long>, List<long[]>> workNodes = new HashMap<>(); // stream -> {start ts, end node}
        for (Map.Entry<List<Long>, List<Row>> s : streams.entrySet()) {
            List<Row> items = s.getValue();
            items.sort(Comparator.comparingLong(Row::ts).thenComparingLong(Row::end));
            long dev = s.getKey().get(0);
            long stream = s.getKey().get(1);
            List<long[]> moves = queueMoves.getOrDefault(s.getKey(), List.of());
            List<long[]> ends = new ArrayList<>();
            Row prev = null;
            int prevEnd = -1;
            for (Row k : items) {
                int start = g.node(k.ts(), 1, dev, stream);
                int end = g.node(k.end(), 1, dev, stream);
                link(g, edgeKeys, start, end, "kernel", k.end() - lastStart.getOrDefault(k, k.ts()));
                workNodesOut.put(k, new int[] {start, end});
                Row call = runtimeByCorr.get(k.corr());
                Long launched = launchTs.get(k.corr());
                boolean bound = launched != null && queue(moves, launched) == 1 && queue(moves, k.ts()) == 0
                        && (prev == null || prev.end() < call.ts());
                if (bound) {
                    link(g, edgeKeys, hostNodes.get(call)[0], start, "launch", k.ts() - call.ts());
                } else if (prev != null && k.ts() - prev.end() < 1_500_000) {
                    link(g, edgeKeys, prevEnd, start, "kernel_gap", k.ts() - prev.end());
                }
                ends.add(new long[] {k.ts(), end});
                prev = k;
                prevEnd = end;
            }
            workNodes.put(s.getKey(), ends);
        }
        // syncs: the last work of the stream (or of every stream) that started before the sync ended
        for (Row r : rows) {
            if (!"cuda_sync".equals(r.cat()) || r.corr() == null || !runtimeByCorr.containsKey(r.corr())) {
                continue;
            }
            List<List<Long>> waited = new ArrayList<>();
            if ("Stream Sync".equals(r.name()) && r.device() != null && r.stream() != null) {
                waited.add(List.of((long) r.device(), r.stream()));
            } else if ("Context Sync".equals(r.name())) {
                waited.addAll(workNodes.keySet());
            }
            for (List<Long> s : waited) {
                long[] lastBefore = null;
                for (long[] w : workNodes.getOrDefault(s, List.of())) {
                    if (w[0] < r.end()) {
                        lastBefore = w;
                    }
                }
                if (lastBefore != null) {
                    link(g, edgeKeys, (int) lastBefore[1], hostNodes.get(runtimeByCorr.get(r.corr()))[1], "sync", 0);
                }
            }
        }
        return g;
    }

    /** The queue's length after everything at moment {@code t}. */
    static long queue(List<long[]> moves, long t) {
        long q = 0;
        for (long[] m : moves) {
            if (m[0] <= t) {
                q += m[1];
            }
        }
        return q;
    }

    static void link(Graph g, Map<String, Long> keys, int from, int to, String type, long weight) {
        g.edge(from, to, type, weight);
        long[] a = g.nodes.get(from);
        long[] b = g.nodes.get(to);
        String side = b[1] == 0 ? "host" : "device";
        keys.put(side + " " + b[2] + " " + b[3] + " " + a[0] + " " + b[0] + " " + type, Math.max(0, weight));
    }

    static Map<Long, List<Row>> read(Path events) throws Exception {
        Map<Long, List<Row>> byRank = new TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT rank, cat, name, pid, tid, ts_ns, dur_ns, device, stream, correlation, process_group"
                        + " FROM read_parquet('"
                        + events + "') WHERE ph = 'X' AND dur_ns IS NOT NULL AND pid IS NOT NULL AND tid IS NOT NULL")) {
            while (rs.next()) {
                byRank.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(new Row(rs.getString(2), rs.getString(3), rs.getLong(4),
                        rs.getLong(5), rs.getLong(6), rs.getLong(7), (Integer) rs.getObject(8) == null ? null : rs.getInt(8),
                        rs.getObject(9) == null ? null : rs.getLong(9), rs.getObject(10) == null ? null : rs.getLong(10), rs.getString(11)));
            }
        }
        return byRank;
    }

    /** Of the last {@link #check}: how many collective kernels waited for another rank, and path edges lie on another rank. */
    static long lastWaits;
    static long lastElsewhere;

    /** Holds every rank of {@code events}' critical_path to the recount; returns the tables. */
    static ResultTable[] check(Path events) throws Exception {
        ResultTable summary;
        ResultTable segments;
        long began = System.nanoTime();
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            summary = duck.run("critical_path");
            segments = duck.run("critical_path_segments");
        }
        System.out.printf("critical path of %s on DuckDB: %.0f ms (%d edges)%n", events.getFileName(), (System.nanoTime() - began) / 1e6,
                segments.rows().size());
        Map<Long, List<Row>> byRank = read(events);
        Map<Long, List<Object>> sqlRows = new HashMap<>();
        for (List<Object> r : summary.rows()) {
            sqlRows.put((Long) r.get(0), r);
        }
        int cols = summary.columns().size();
        // the collectives that waited for another rank, recounted: every rank's collective kernels (by
        // the one communication rule), numbered per process group and kind in start order (then end,
        // correlation id, name); of one instance's kernels that are nodes of the graph, the last to start
        // (lowest rank on a tie) is waited for by every other rank's that started earlier and had not ended
        Map<List<Object>, List<Object[]>> instances = new HashMap<>();
        for (Map.Entry<Long, List<Row>> rank : byRank.entrySet()) {
            Set<Long> launched = new java.util.HashSet<>();
            for (Row r : rank.getValue()) {
                if (runtime(r.cat()) && r.dur() > 0 && r.corr() != null) {
                    launched.add(r.corr());
                }
            }
            List<Row> comm = new ArrayList<>();
            for (Row r : rank.getValue()) {
                if (("kernel".equals(r.cat()) || "Kernel".equals(r.cat())) && r.dur() >= 0 && CollectiveKernels.isCommunication(r.name())) {
                    comm.add(r);
                }
            }
            comm.sort(Comparator.comparingLong(Row::ts).thenComparingLong(Row::end)
                    .thenComparing(Row::corr, Comparator.nullsLast(Comparator.naturalOrder())).thenComparing(Row::name));
            Map<List<String>, Integer> count = new HashMap<>();
            for (Row r : comm) {
                List<String> group = List.of(r.processGroup() == null ? "" : r.processGroup(), CollectivesTest.kind(r.name()));
                int n = count.merge(group, 1, Integer::sum);
                boolean node = r.corr() != null && launched.contains(r.corr()) && r.device() != null && r.stream() != null;
                if (node) {
                    instances.computeIfAbsent(List.of(group.get(0), group.get(1), n), k -> new ArrayList<>())
                            .add(new Object[] {rank.getKey(), r});
                }
            }
        }
        Map<Long, Map<Row, Long>> lastStart = new HashMap<>();
        List<Object[]> waits = new ArrayList<>(); // {rank, kernel, last rank, last kernel}
        for (List<Object[]> members : instances.values()) {
            Object[] last = null;
            for (Object[] m : members) {
                Row r = (Row) m[1];
                if (last == null || r.ts() > ((Row) last[1]).ts() || (r.ts() == ((Row) last[1]).ts() && (Long) m[0] < (Long) last[0])) {
                    last = m;
                }
            }
            Row l = (Row) last[1];
            for (Object[] m : members) {
                Row r = (Row) m[1];
                if (!m[0].equals(last[0]) && l.ts() > r.ts() && l.ts() <= r.end()) {
                    lastStart.computeIfAbsent((Long) m[0], k -> new HashMap<>()).put(r, l.ts());
                    waits.add(new Object[] {m[0], r, last[0], l});
                }
            }
        }
        // one graph of every rank, joined by those waits
        Graph all = new Graph();
        Map<String, Long> keys = new HashMap<>();
        Map<Long, int[]> nodeRange = new HashMap<>();
        Map<Long, Map<Row, int[]>> work = new HashMap<>();
        for (Map.Entry<Long, List<Row>> rank : byRank.entrySet()) {
            Map<String, Long> rankKeys = new HashMap<>();
            Map<Row, int[]> rankWork = new HashMap<>();
            Graph g = graph(rank.getValue(), rankKeys, lastStart.getOrDefault(rank.getKey(), Map.of()), rankWork);
            int off = all.nodes.size();
            all.nodes.addAll(g.nodes);
            for (Edge e : g.edges) {
                all.edges.add(new Edge(e.from() + off, e.to() + off, e.type(), e.weight()));
            }
            rankKeys.forEach((k, v) -> keys.put(rank.getKey() + " " + k, v));
            rankWork.replaceAll((k, v) -> new int[] {v[0] + off, v[1] + off});
            work.put(rank.getKey(), rankWork);
            nodeRange.put(rank.getKey(), new int[] {off, all.nodes.size()});
        }
        for (Object[] w : waits) {
            Row r = (Row) w[1];
            Row l = (Row) w[3];
            all.edge(work.get((Long) w[2]).get(l)[0], work.get((Long) w[0]).get(r)[1], "collective", r.end() - l.ts());
            keys.put(w[0] + " device " + r.device() + " " + r.stream() + " " + l.ts() + " " + r.end() + " collective", r.end() - l.ts());
        }
        long[] dist = all.dists();
        long elsewhere = 0;
        for (List<Object> e : segments.rows()) {
            if (!e.get(0).equals(e.get(segments.columns().indexOf("on_rank")))) {
                elsewhere++;
            }
        }
        System.out.printf("  %d collective kernels waited for another rank; %d edges of the paths lie on another rank%n", waits.size(),
                elsewhere);
        lastWaits = waits.size();
        lastElsewhere = elsewhere;
        for (Map.Entry<Long, List<Row>> rank : byRank.entrySet()) {
            long longest = 0;
            for (int i = nodeRange.get(rank.getKey())[0]; i < nodeRange.get(rank.getKey())[1]; i++) {
                longest = Math.max(longest, dist[i]);
            }
            List<Object> ours = sqlRows.get(rank.getKey());
            assertNotNull(ours, "rank " + rank.getKey() + " has a row");
            assertEquals(longest, ours.get(summary.columns().indexOf("length_ns")), "rank " + rank.getKey() + ": the longest path");
            assertTrue(longest > 0);
            long sum = 0;
            Long lastEnd = null;
            for (List<Object> e : segments.rows()) {
                if (!e.get(0).equals(rank.getKey())) {
                    continue;
                }
                Map<String, Object> m = new HashMap<>();
                for (int i = 0; i < e.size(); i++) {
                    m.put(segments.columns().get(i), e.get(i));
                }
                boolean host = m.get("pid") != null;
                String key = m.get("on_rank") + " " + (host ? "host " + m.get("pid") + " " + m.get("tid") : "device " + m.get("device") + " " + m.get("stream")) + " "
                        + m.get("start_ns") + " " + m.get("end_ns") + " " + m.get("type");
                assertEquals(keys.get(key), m.get("weight_ns"), "an edge of the recount's graph with this weight: " + key);
                if (lastEnd != null) {
                    assertEquals(lastEnd, m.get("start_ns"), "each edge starts where the previous ended: " + key);
                }
                lastEnd = (Long) m.get("end_ns");
                sum += (Long) m.get("weight_ns");
            }
            assertEquals(longest, sum, "the listed edges weigh the path's length");
            assertEquals(cols, ours.size());
            long parts = 0;
            for (String c : List.of("cpu_ns", "computation_ns", "communication_ns", "memory_ns", "launch_delay_ns", "kernel_gap_ns")) {
                parts += (Long) ours.get(summary.columns().indexOf(c));
            }
            assertEquals(longest, parts, "the categories add up to the length");
            assertEquals((Long) ours.get(summary.columns().indexOf("end_ns")) - (Long) ours.get(summary.columns().indexOf("start_ns")) - longest,
                    ours.get(summary.columns().indexOf("waiting_ns")));
        }
        assertEquals(byRank.keySet(), sqlRows.keySet());
        return new ResultTable[] {summary, segments};
    }

    static long col(ResultTable t, int row, String column) {
        return (Long) t.rows().get(row).get(t.columns().indexOf(column));
    }

    /** HTA's simple_add trace (src/test/resources/hta) as DIR/simple_add.parquet, written by {@code flagtrace tables}. */
    public static Path simpleAddEvents(Path dir) throws Exception {
        Path trace = Path.of(CriticalPathRecountTest.class.getResource("/hta/simple_add_trace.json.gz").toURI());
        Path events = dir.resolve("simple_add.parquet");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("tables", trace.toString(), "-o", events.toString()), cli.stderr());
        return events;
    }

    @Test
    void htasSimpleAddTraceGivesHtasCriticalPath() throws Exception {
        JsonNode hta = new ObjectMapper().readTree(getClass().getResource("/hta/simple_add.cp.hta.json"));
        Path events = simpleAddEvents(dir);
        ResultTable[] tables = check(events);
        ResultTable summary = tables[0];
        System.out.print("critical_path of HTA's simple_add trace:\n" + summary.render());
        // edge by edge, HTA's path: the same times (HTA's are us from the trace's first event), types and weights
        JsonNode path = hta.get("path");
        ResultTable segments = tables[1];
        assertEquals(path.size(), segments.rows().size(), "as many edges as HTA's path");
        long base = (Long) segments.rows().get(0).get(segments.columns().indexOf("start_ns")) - path.get(0).get(0).asLong() * 1000;
        Map<String, Set<String>> types = Map.of("critical_path_operator", Set.of("cpu", "kernel", "sync_call"),
                "critical_path_dependency", Set.of("dependency"), "critical_path_kernel_launch_delay", Set.of("launch"),
                "critical_path_sync_dependency", Set.of("sync"), "critical_path_kernel_kernel_delay", Set.of("kernel_gap"));
        for (int i = 0; i < path.size(); i++) {
            List<Object> e = segments.rows().get(i);
            JsonNode h = path.get(i);
            String at = "edge " + (i + 1) + " " + e + " against HTA's " + h;
            assertEquals(h.get(0).asLong() * 1000, (Long) e.get(segments.columns().indexOf("start_ns")) - base, at);
            assertEquals(h.get(1).asLong() * 1000, (Long) e.get(segments.columns().indexOf("end_ns")) - base, at);
            assertEquals(h.get(3).asLong() * 1000, e.get(segments.columns().indexOf("weight_ns")), at);
            assertTrue(types.get(h.get(2).asText()).contains((String) e.get(segments.columns().indexOf("type"))), at);
        }
        assertEquals(1, summary.rows().size());
        assertEquals(hta.get("length").asLong() * 1000, col(summary, 0, "length_ns"), summary.render());
        JsonNode by = hta.get("by_bound");
        assertEquals(by.get("cpu_bound").asLong() * 1000, col(summary, 0, "cpu_ns"), summary.render());
        assertEquals(by.get("gpu_compute_bound").asLong() * 1000, col(summary, 0, "computation_ns") + col(summary, 0, "memory_ns"),
                summary.render());
        assertEquals(by.get("gpu_kernel_launch_overhead").asLong() * 1000, col(summary, 0, "launch_delay_ns"), summary.render());
        assertEquals(by.get("gpu_kernel_kernel_overhead").asLong() * 1000, col(summary, 0, "kernel_gap_ns"), summary.render());
    }

    @Test
    void reportDrawsTheCriticalPathOnlyWhenAsked() throws Exception {
        Path trace = Path.of(getClass().getResource("/hta/simple_add_trace.json.gz").toURI());
        Path with = dir.resolve("with.html");
        Path without = dir.resolve("without.html");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("report", trace.toString(), "-o", with.toString(), "--critical-path"), cli.stderr());
        assertEquals(0, cli.run("report", trace.toString(), "-o", without.toString()), cli.stderr());
        String page = java.nio.file.Files.readString(with);
        String plain = java.nio.file.Files.readString(without);
        assertTrue(page.contains("<h2>Critical path</h2>") && page.contains("id=\"critical-path\""), "the section is there");
        assertTrue(!plain.contains("Critical path"), "a report not asked for it has no such section");
        ResultTable summary = check(simpleAddEvents(dir))[0];
        String length = String.format(java.util.Locale.ROOT, "%.3f ms", col(summary, 0, "length_ns") / 1e6);
        assertTrue(page.contains("rank 0</text>") && page.contains(">" + length + "</text>"), "the rank's bar says its length, " + length);
        assertTrue(page.contains("id=\"critical-path-top\""), "the events with most time on the path are listed");
        Path pftrace = dir.resolve("t.pftrace");
        java.nio.file.Files.writeString(pftrace, "");
        assertEquals(2, cli.run("report", pftrace.toString(), "-o", dir.resolve("p.html").toString(), "--critical-path"));
        assertTrue(cli.stderr().strip().lines().count() == 1 && cli.stderr().contains("--critical-path reads JSON traces"), cli.stderr());
        assertTrue(!java.nio.file.Files.exists(dir.resolve("p.html")));
        try (var left = java.nio.file.Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            assertTrue(left.noneMatch(p -> p.getFileName().toString().startsWith("flagtrace-report-")), "no scratch folder is left");
        }
    }

    @Test
    void pytorchsOwnH200TraceEqualsTheRecount() throws Exception {
        Path trace = Path.of(getClass().getResource("/torch-reference/torch_trace.json").toURI());
        Path events = dir.resolve("torch.parquet");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("tables", trace.toString(), "-o", events.toString()), cli.stderr());
        ResultTable summary = check(events)[0];
        assertEquals(1, summary.rows().size());
        // torch recorded no sync records here (no cuda_sync rows): no edge leads from the device back to
        // the host, so the path is the host thread's, as HTA's would be (it warns that it lacks them)
        assertEquals(col(summary, 0, "length_ns"), col(summary, 0, "cpu_ns"), summary.render());
        assertTrue(col(summary, 0, "length_ns") > 10_000_000, summary.render());
    }

    @Test
    void twoRanksOfHtasNcclJobEqualTheRecount() throws Exception {
        Path events = dir.resolve("nccl.parquet");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("tables", Path.of(getClass().getResource("/hta/sampled_rank-0.json.gz").toURI()).toString(),
                Path.of(getClass().getResource("/hta/sampled_rank-1.json.gz").toURI()).toString(), "-o", events.toString()), cli.stderr());
        ResultTable summary = check(events)[0];
        assertEquals(2, summary.rows().size(), summary.render());
        // the two ranks share all-reduces: in 4 of them one rank started late and the other waited for it;
        // the recount's graph has those edges too (whether a path takes one is the recount's to say)
        assertEquals(4, lastWaits, "collective kernels that waited for the other rank");
    }

    /**
     * Rank {@code rank} of a step with one all-reduce: op step [0, 4400) launches gemm (call [10, 20),
     * gemm [30, 30 + gemm)) and an NCCL all-reduce behind it on the same stream (call [40, 50), 5 ns after
     * gemm, ending at 4100 on every rank: the ranks finish it together), waits for the stream
     * (cudaStreamSynchronize [60, 4200)), then runs op optimizer [4250, 4350).
     */
    public static List<CriticalPathTest.Ev> allReduceStep(int rank, long gemm) {
        long ar = 30 + gemm + 5;
        return List.of(CriticalPathTest.Ev.op(rank, "step", 0, 4400), CriticalPathTest.Ev.call(rank, "cudaLaunchKernel", 10, 10, 1),
                CriticalPathTest.Ev.work(rank, "kernel", "gemm", 30, gemm, 7, 1), CriticalPathTest.Ev.call(rank, "cudaLaunchKernel", 40, 10, 2),
                CriticalPathTest.Ev.work(rank, "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", ar, 4100 - ar, 7, 2),
                CriticalPathTest.Ev.call(rank, "cudaStreamSynchronize", 60, 4140, 3),
                new CriticalPathTest.Ev(rank, 0, 7, "cuda_sync", "Stream Sync", 60, 4140, 0, 7L, 3L),
                CriticalPathTest.Ev.op(rank, "optimizer", 4250, 100));
    }

    /**
     * Three ranks of one step; rank 1 is the straggler (its gemm takes 4000 ns, the others' 1000), so
     * ranks 0 and 2 wait in the all-reduce from about 1035 until rank 1 starts it at 4035. Every rank's
     * path is rank 1's: its host 10, launch 20, gemm 4000, gap 5, then the all-reduce's 65 ns after the
     * last arrival, on the rank's own stream, the sync, and the rank's own host 200: 4300 ns. Without the
     * collective's edges ranks 0 and 2 would run through their own all-reduce kernel, waiting included.
     */
    @Test
    void aRankWaitingInACollectiveHasTheStragglersWorkOnItsPath() throws Exception {
        List<CriticalPathTest.Ev> all = new ArrayList<>();
        all.addAll(allReduceStep(0, 1000));
        all.addAll(allReduceStep(1, 4000));
        all.addAll(allReduceStep(2, 1000));
        Path events = CriticalPathTest.write(java.nio.file.Files.createDirectories(dir.resolve("straggler")), "events", all);
        ResultTable[] tables = check(events);
        ResultTable summary = tables[0];
        ResultTable segments = tables[1];
        for (int r = 0; r < 3; r++) {
            assertEquals(4300L, col(summary, r, "length_ns"), summary.render());
            assertEquals(4000L, col(summary, r, "computation_ns"), summary.render());
            assertEquals(65L, col(summary, r, "communication_ns"), summary.render());
            assertEquals(0L, col(summary, r, "over_median_ns"), summary.render());
        }
        for (long r : new long[] {0, 2}) {
            List<String> path = new ArrayList<>();
            for (List<Object> e : segments.rows()) {
                if (((Number) e.get(0)).longValue() == r) {
                    path.add(e.get(segments.columns().indexOf("on_rank")) + ":" + e.get(segments.columns().indexOf("type")) + ":"
                            + e.get(segments.columns().indexOf("name")) + ":" + e.get(segments.columns().indexOf("weight_ns")));
                }
            }
            assertEquals(List.of("1:cpu:step:10", "1:launch:null:20", "1:kernel:gemm:4000", "1:kernel_gap:null:5",
                    r + ":collective:ncclDevKernel_AllReduce_Sum_f32_RING_LL:65", r + ":sync:null:0", r + ":cpu:step:50",
                    r + ":cpu:optimizer:100", r + ":cpu:step:50"), path, "rank " + r + "'s path runs through the straggler's gemm\n"
                    + segments.render());
        }
    }

    @Test
    void threeReplayedH200RanksEqualTheRecount() throws Exception {
        Path events = SyntheticRanks.events(java.nio.file.Files.createDirectories(dir.resolve("ranks")), 3, 1);
        ResultTable summary = check(events)[0];
        assertEquals(3, summary.rows().size());
        assertTrue(col(summary, 0, "communication_ns") > 0 || col(summary, 1, "communication_ns") > 0
                || col(summary, 2, "communication_ns") > 0 || col(summary, 0, "computation_ns") > 0, summary.render());
        assertTrue(CollectiveKernels.isCommunication("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
    }
}
