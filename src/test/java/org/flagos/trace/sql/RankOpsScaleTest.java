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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.flagos.trace.encoders.EventTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rank_ops at scale: one thread of 100,000 host ops, nested up to five deep (siblings that touch,
 * cross one another or last no time, names repeating down a chain), plus kernels linked to a fifth
 * of the ops, written to Parquet with the events table's columns, run on DuckDB and held to a recount
 * in plain Java (torch's stack: an event nests in the innermost open one it lies in; self time the
 * duration less the union of the direct children's spans; device total its own and its descendants').
 * The old per-thread self-join took minutes here; the time it takes now is printed, not asserted.
 */
public class RankOpsScaleTest {
    public static final int OPS = 100_000;

    @TempDir
    Path dir;

    /** One generated host op (start, end in ns; its External id; the device time linked to it). */
    public record Op(String name, long start, long end, long id, long device) {
    }

    @Test
    void hundredThousandOpsOnOneThreadEqualAJavaRecount() throws Exception {
        List<Op> ops = generate(new SplittableRandom(32));
        Path parquet = writeEvents(dir, ops);

        long began = System.nanoTime();
        ResultTable t;
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(parquet)) {
            t = duck.run("rank_ops");
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        System.out.printf("rank_ops over %d ops on one thread: %.2f s on DuckDB%n", ops.size(), seconds);

        Map<String, long[]> want = recount(ops);
        Map<String, long[]> got = hostRows(t);
        assertEquals(want.keySet(), got.keySet());
        for (Map.Entry<String, long[]> e : want.entrySet()) {
            assertEquals(Arrays.toString(e.getValue()), Arrays.toString(got.get(e.getKey())), e.getKey()
                    + ": calls, cpu total, self device, device total, self cpu");
        }
        long calls = want.values().stream().mapToLong(v -> v[0]).sum();
        assertEquals(OPS, calls);
        long deviceTotal = want.values().stream().mapToLong(v -> v[3]).sum();
        long selfDevice = want.values().stream().mapToLong(v -> v[2]).sum();
        assertTrue(deviceTotal > selfDevice, "nested device time counts in every ancestor: " + deviceTotal + " vs " + selfDevice);
        assertTrue(want.containsKey("d5_0") && want.get("d5_0")[0] > 100, "ops nested six deep");
        long zero = ops.stream().filter(o -> o.start() == o.end()).count();
        long crossing = 0;
        for (int i = 1; i < ops.size(); i++) {
            Op a = ops.get(i - 1);
            Op b = ops.get(i);
            crossing += b.start() > a.start() && b.start() < a.end() && b.end() > a.end() ? 1 : 0;
        }
        assertTrue(zero > 1000 && crossing > 1000, zero + " zero-length ops, " + crossing + " crossing their predecessor");
    }

    /** {@code ops} (one thread, pid 1 tid 1) and their kernels (pid 0 tid 7) as DIR/events.parquet, with the table's columns. */
    public static Path writeEvents(Path dir, List<Op> ops) throws Exception {
        Path csv = dir.resolve("events.csv");
        try (BufferedWriter w = Files.newBufferedWriter(csv)) {
            w.write("pid,tid,ph,cat,name,ts_ns,dur_ns,external_id\n");
            long k = 0;
            for (Op o : ops) {
                w.write("1,1,X,cpu_op," + o.name() + "," + o.start() + "," + (o.end() - o.start()) + "," + o.id() + "\n");
                if (o.device() > 0) { // a kernel on a stream of the device, linked by the External id
                    w.write("0,7,X,kernel,k" + (k++ % 3) + "," + o.start() + "," + o.device() + "," + o.id() + "\n");
                }
            }
        }
        Path parquet = dir.resolve("events.parquet");
        StringBuilder select = new StringBuilder();
        for (String[] c : EventTable.COLUMNS) {
            String v = switch (c[0]) {
                case "rank", "slot" -> "0";
                case "pid", "tid", "ph", "cat", "name", "ts_ns", "dur_ns", "external_id" -> c[0];
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

    /** rank_ops' host rows by name: calls, CPU total, self device, device total, self CPU. */
    public static Map<String, long[]> hostRows(ResultTable t) {
        Map<String, long[]> got = new TreeMap<>();
        for (List<Object> r : t.rows()) {
            if (r.get(t.columns().indexOf("kind")).equals("host")) {
                long[] v = new long[5];
                int i = 0;
                for (String col : List.of("calls", "cpu_total_ns", "self_device_ns", "device_total_ns", "self_cpu_ns")) {
                    v[i++] = (Long) r.get(t.columns().indexOf(col));
                }
                got.put((String) r.get(t.columns().indexOf("name")), v);
            }
        }
        return got;
    }

    /** Roots one after another (some touching), each with a random tree under it, until {@link #OPS} ops. */
    public static List<Op> generate(SplittableRandom random) {
        List<Op> out = new ArrayList<>();
        long[] id = {1};
        long t = 1_000_000;
        while (out.size() < OPS) {
            long len = 2_000 + random.nextInt(200_000);
            tree(random, out, id, t, t + len, 0);
            t += len + (random.nextInt(4) == 0 ? 0 : random.nextInt(5_000));
        }
        return out.subList(0, OPS);
    }

    private static void tree(SplittableRandom random, List<Op> out, long[] id, long from, long to, int depth) {
        long device = random.nextInt(5) == 0 ? 1 + random.nextInt(Math.max(1, (int) Math.min(1_000_000, (to - from) / 2))) : 0;
        out.add(new Op("d" + depth + "_" + random.nextInt(3), from, to, id[0]++, device));
        if (depth == 5 || to - from < 40) {
            return;
        }
        long t = from + (random.nextInt(3) == 0 ? 0 : random.nextLong(1, Math.max(2, (to - from) / 10)));
        int children = random.nextInt(5);
        for (int i = 0; i < children && t < to; i++) {
            int shape = random.nextInt(10);
            long s = shape == 0 ? t : t + random.nextLong(0, Math.max(1, (to - t) / 6)); // shape 0: touches the last
            long e = shape == 1 ? s : Math.min(to, s + random.nextLong(1, Math.max(2, (to - s) / 2))); // shape 1: no time
            if (s > to) {
                break;
            }
            if (shape == 2 && !out.isEmpty() && i > 0) { // starts inside the previous sibling and ends after it
                Op last = out.get(out.size() - 1);
                if (last.end() - last.start() > 2 && last.end() < to) {
                    s = last.start() + (last.end() - last.start()) / 2;
                    e = Math.min(to, last.end() + 1 + random.nextInt(1_000));
                }
            }
            tree(random, out, id, s, e, depth + 1);
            t = Math.max(e, t);
        }
    }

    /** Per name: calls, CPU total, self device, device total, self CPU; torch's stack over the ops in start order. */
    public static Map<String, long[]> recount(List<Op> ops) {
        List<Op> order = new ArrayList<>(ops);
        order.sort((a, b) -> a.start() != b.start() ? Long.compare(a.start(), b.start())
                : a.end() != b.end() ? Long.compare(b.end(), a.end()) : Long.compare(a.id(), b.id()));
        int n = order.size();
        int[] parent = new int[n];
        int[] stack = new int[n];
        int depth = 0;
        for (int i = 0; i < n; i++) {
            Op c = order.get(i);
            while (depth > 0) {
                Op top = order.get(stack[depth - 1]);
                if (c.start() < top.end() && c.end() <= top.end()) {
                    break;
                }
                depth--;
            }
            parent[i] = depth == 0 ? -1 : stack[depth - 1];
            stack[depth++] = i;
        }
        long[] union = new long[n];
        long[] coveredTo = new long[n];
        Arrays.fill(coveredTo, Long.MIN_VALUE);
        long[] deviceTotal = new long[n];
        for (int i = 0; i < n; i++) {
            Op c = order.get(i);
            deviceTotal[i] = c.device();
            int p = parent[i];
            if (p >= 0) { // children come in start order: add the part of this one not yet covered
                long from = Math.max(c.start(), coveredTo[p]);
                union[p] += Math.max(0, c.end() - from);
                coveredTo[p] = Math.max(coveredTo[p], c.end());
            }
        }
        for (int i = n - 1; i >= 0; i--) { // children after parents: add each subtree up once
            if (parent[i] >= 0) {
                deviceTotal[parent[i]] += deviceTotal[i];
            }
        }
        Map<String, long[]> rows = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            Op c = order.get(i);
            long[] v = rows.computeIfAbsent(c.name(), k -> new long[5]);
            long dur = c.end() - c.start();
            v[0]++;
            v[1] += dur;
            v[2] += c.device();
            v[3] += deviceTotal[i];
            v[4] += Math.max(0, dur - union[i]);
        }
        return rows;
    }
}
