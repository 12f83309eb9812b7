package org.flagos.trace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.cli.SyntheticRanks;
import org.flagos.trace.report.DeviceWorkKind;
import org.flagos.trace.testing.TableRows;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kernel_stats, kernel_launches, queue_length and stream_idle on DuckDB over the events table of a
 * merge of the real h200-app capture ({@link SyntheticRanks}: several ranks, NCCL-named kernels),
 * each against a recount in plain Java of the same rows (read back from the Parquet file as they
 * are, before any SQL): sorting, maps and BigInteger, nothing shared with the queries.
 * {@link HtaTraceAnalysesTest} checks the definitions against HTA's own numbers on HTA's trace.
 */
class DeviceAnalysesRecountTest {
    static final int RANKS = 3;

    @TempDir
    static Path dir;

    static Path events;
    static List<Ev> rows;

    /** One row of the events table, the columns these analyses read. */
    record Ev(long rank, String ph, String cat, String name, Long ts, Long dur, Long device, Long stream, Long correlation) {
        boolean complete() {
            return "X".equals(ph) && ts != null && dur != null && dur >= 0;
        }

        boolean deviceWork() {
            return complete() && cat != null && List.of("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset").contains(cat);
        }

        boolean runtime() {
            return complete() && correlation != null && cat != null
                    && (cat.equals("Runtime") || cat.endsWith("_runtime") || cat.endsWith("_driver"));
        }

        boolean launch() {
            return runtime() && Analyses.LAUNCH_CALLS.contains(name);
        }
    }

    @BeforeAll
    static void build() throws Exception {
        events = SyntheticRanks.events(dir, RANKS, 1);
        rows = read(events);
    }

    /** Every row of an events table, as stored. */
    static List<Ev> read(Path parquet) throws Exception {
        List<Ev> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT rank, ph, cat, name, ts_ns, dur_ns, device, stream, correlation FROM read_parquet('"
                        + parquet.toAbsolutePath().toString().replace("'", "''") + "')")) {
            while (rs.next()) {
                out.add(new Ev(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), lng(rs.getObject(5)),
                        lng(rs.getObject(6)), lng(rs.getObject(7)), lng(rs.getObject(8)), lng(rs.getObject(9))));
            }
        }
        return out;
    }

    private static Long lng(Object o) {
        return o == null ? null : ((Number) o).longValue();
    }

    /** kernel_stats of {@code rows}, recounted: one row per rank, kind and name, in the table's columns. */
    static List<List<Object>> kernelStats(List<Ev> rows) {
        Map<List<Object>, List<Long>> durations = new HashMap<>();
        for (Ev e : rows) {
            if (e.deviceWork()) {
                String kind = DeviceWorkKind.of(e.cat(), e.name()).name().toLowerCase(java.util.Locale.ROOT);
                durations.computeIfAbsent(List.of(e.rank(), kind, e.name()), k -> new ArrayList<>()).add(e.dur());
            }
        }
        List<List<Object>> out = new ArrayList<>();
        for (Map.Entry<List<Object>, List<Long>> g : durations.entrySet()) {
            List<Long> d = new ArrayList<>(g.getValue());
            d.sort(null);
            long n = d.size();
            BigInteger total = BigInteger.ZERO;
            BigInteger squares = BigInteger.ZERO;
            for (long x : d) {
                total = total.add(BigInteger.valueOf(x));
                squares = squares.add(BigInteger.valueOf(x).pow(2));
            }
            long std = 0;
            if (n > 1) {
                BigInteger num = BigInteger.valueOf(n).multiply(squares).subtract(total.pow(2));
                std = num.divide(BigInteger.valueOf(n * (n - 1))).sqrt().longValueExact();
            }
            List<Object> row = new ArrayList<>(g.getKey());
            row.addAll(List.of(n, total.longValueExact(), d.get(0), d.get(d.size() - 1), Math.floorDiv(total.longValueExact(), n), std,
                    nearestRank(d, 50), nearestRank(d, 90), nearestRank(d, 99)));
            out.add(row);
        }
        return out;
    }

    /** The p-th percentile by nearest rank: the value at 1-based position ceil(p * n / 100) of the sorted values. */
    static long nearestRank(List<Long> sorted, int p) {
        long n = sorted.size();
        long position = (p * n + 99) / 100;
        return sorted.get((int) Math.max(position, 1) - 1);
    }

    /** kernel_launches of {@code rows}, recounted. */
    static List<List<Object>> launches(List<Ev> rows) {
        Map<List<Long>, List<Ev>> work = new HashMap<>();
        for (Ev e : rows) {
            if (e.deviceWork() && e.correlation() != null) {
                work.computeIfAbsent(List.of(e.rank(), e.correlation()), k -> new ArrayList<>()).add(e);
            }
        }
        List<List<Object>> out = new ArrayList<>();
        for (Ev l : rows) {
            if (!l.launch()) {
                continue;
            }
            for (Ev d : work.getOrDefault(List.of(l.rank(), l.correlation()), List.of())) {
                long delay = Math.max(0, d.ts() - (l.ts() + l.dur()));
                out.add(Arrays.asList(l.rank(), l.correlation(), l.name(), d.name(), d.device(), d.stream(), l.ts(), l.dur(), d.ts(),
                        d.dur(), delay));
            }
        }
        return out;
    }

    /** queue_length of {@code rows}, recounted from the launch pairs. */
    static List<List<Object>> queueLength(List<Ev> rows) {
        Map<List<Object>, TreeMap<Long, Long>> moves = new HashMap<>();
        for (List<Object> p : launches(rows)) {
            TreeMap<Long, Long> m = moves.computeIfAbsent(Arrays.asList(p.get(0), p.get(4), p.get(5)), k -> new TreeMap<>());
            m.merge((Long) p.get(6), 1L, Long::sum);
            m.merge((Long) p.get(8), -1L, Long::sum);
        }
        List<List<Object>> out = new ArrayList<>();
        for (Map.Entry<List<Object>, TreeMap<Long, Long>> s : moves.entrySet()) {
            long length = 0;
            for (Map.Entry<Long, Long> m : s.getValue().entrySet()) {
                length += m.getValue();
                List<Object> row = new ArrayList<>(s.getKey());
                row.addAll(List.of(m.getKey(), length));
                out.add(row);
            }
        }
        return out;
    }

    /** stream_idle of {@code rows}, recounted with a consecutive-work threshold of {@code kernelWaitNs}. */
    static List<List<Object>> streamIdle(List<Ev> rows, long kernelWaitNs) {
        Map<List<Long>, Long> launchStart = new HashMap<>();
        Map<List<Object>, List<Ev>> streams = new HashMap<>();
        for (Ev e : rows) {
            if (e.runtime()) {
                launchStart.merge(List.of(e.rank(), e.correlation()), e.ts(), Math::min);
            }
            if (e.deviceWork()) {
                streams.computeIfAbsent(Arrays.asList(e.rank(), e.device(), e.stream()), k -> new ArrayList<>()).add(e);
            }
        }
        List<List<Object>> out = new ArrayList<>();
        for (Map.Entry<List<Object>, List<Ev>> s : streams.entrySet()) {
            List<Ev> work = new ArrayList<>(s.getValue());
            work.sort(Comparator.comparing(Ev::ts).thenComparing(e -> e.ts() + e.dur())
                    .thenComparing(Ev::correlation, Comparator.nullsLast(Comparator.naturalOrder())));
            long host = 0;
            long kernel = 0;
            long other = 0;
            for (int i = 1; i < work.size(); i++) {
                Ev e = work.get(i);
                long prevEnd = work.get(i - 1).ts() + work.get(i - 1).dur();
                long gap = e.ts() - prevEnd;
                Long launch = e.correlation() == null ? null : launchStart.get(List.of(e.rank(), e.correlation()));
                if (launch != null && launch > prevEnd) {
                    host += gap;
                } else if (gap < kernelWaitNs) {
                    kernel += gap;
                } else {
                    other += gap;
                }
            }
            List<Object> row = new ArrayList<>(s.getKey());
            row.addAll(List.of((long) work.size(), host, kernel, other, host + kernel + other));
            out.add(row);
        }
        return out;
    }

    static void assertSameRows(List<List<Object>> want, ResultTable got) {
        List<List<Object>> a = sorted(want);
        List<List<Object>> b = sorted(got.rows());
        assertEquals(a.size(), b.size(), got.name() + " rows");
        for (int i = 0; i < a.size(); i++) {
            assertEquals(a.get(i), b.get(i), got.name() + " row " + i + " " + got.columns());
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static List<List<Object>> sorted(List<List<Object>> rows) {
        List<List<Object>> s = new ArrayList<>(rows);
        s.sort((x, y) -> {
            for (int i = 0; i < x.size(); i++) {
                Object p = x.get(i);
                Object q = y.get(i);
                int c = p == null ? (q == null ? 0 : -1) : q == null ? 1 : ((Comparable) p).compareTo(q);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        });
        return s;
    }

    private static int column(ResultTable t, String name) {
        int i = t.columns().indexOf(name);
        assertTrue(i >= 0, t.name() + " has no " + name);
        return i;
    }

    @Test
    void kernelStatsEqualARecount() throws Exception {
        ResultTable t = TableRows.run(events, "kernel_stats");
        assertEquals(List.of("rank", "kind", "name", "calls", "total_ns", "min_ns", "max_ns", "mean_ns", "std_ns", "p50_ns", "p90_ns",
                "p99_ns"), t.columns());
        assertSameRows(kernelStats(rows), t);
        long communication = 0;
        long spread = 0;
        for (List<Object> r : t.rows()) {
            communication += r.get(1).equals("communication") ? 1 : 0;
            spread += (Long) r.get(column(t, "std_ns")) > 0 ? 1 : 0;
        }
        assertEquals(RANKS, communication, "the NCCL kernel of each rank");
        assertTrue(spread >= RANKS, "names whose calls differ in length: " + spread);
    }

    @Test
    void launchesAndQueueLengthEqualARecount() throws Exception {
        ResultTable l = TableRows.run(events, "kernel_launches");
        List<List<Object>> want = launches(rows);
        assertTrue(want.size() >= 10 * RANKS, "launch pairs: " + want.size());
        assertSameRows(want, l);
        long delayed = l.rows().stream().filter(r -> (Long) r.get(column(l, "launch_delay_ns")) > 0).count();
        assertTrue(delayed > 0, "some launch waited");
        ResultTable q = TableRows.run(events, "queue_length");
        assertSameRows(queueLength(rows), q);
        long max = q.rows().stream().mapToLong(r -> (Long) r.get(column(q, "queue_length"))).max().orElse(-1);
        long min = q.rows().stream().mapToLong(r -> (Long) r.get(column(q, "queue_length"))).min().orElse(-1);
        assertTrue(max >= 1 && min >= 0, "queue length between " + min + " and " + max);
    }

    @Test
    void streamIdleEqualsARecount() throws Exception {
        ResultTable t = TableRows.run(events, "stream_idle");
        assertSameRows(streamIdle(rows, 30_000), t);
        long host = 0;
        long other = 0;
        for (List<Object> r : t.rows()) {
            host += (Long) r.get(column(t, "host_wait_ns"));
            other += (Long) r.get(column(t, "other_ns"));
            assertEquals((Long) r.get(column(t, "host_wait_ns")) + (Long) r.get(column(t, "kernel_wait_ns"))
                    + (Long) r.get(column(t, "other_ns")), r.get(column(t, "idle_ns")));
        }
        assertTrue(host > 0 && other >= 0, "host wait " + host + ", other " + other);
    }
}
