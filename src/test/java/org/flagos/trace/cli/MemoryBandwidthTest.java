package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.sql.ResultTable;
import org.flagos.trace.testing.TableRows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * memory_bandwidth on DuckDB: against a recount in plain Java over the table's rows (BigInteger
 * rates, a sorted map of changes per rank and kind), and against HTA's memory bandwidth time series
 * as HTA's code computes it ({@code TraceCounters._get_memory_bw_time_series_for_rank}, HTA commit
 * f4d0062), recomputed here from the trace file itself: per copy or set, torch's own
 * {@code "memory bandwidth (GB/s)"} arg added at its start and taken off at its end, a running sum per
 * kind ({@code get_memory_kernel_type}: the name's first 11 characters, or {@code Memset}). HTA cannot
 * run here (no pandas, no package index), so its numbers are its rules over the same file.
 * On traces of ns resolution torch's arg is bytes over ns, flagtrace's rate before rounding down, so
 * the two series agree to within one byte per second per copy in flight.
 */
class MemoryBandwidthTest {
    @TempDir
    Path dir;

    /** memory_bandwidth of {@code rows}, recounted: (rank, kind) -> moment -> {in flight, bytes per second}. */
    static Map<List<Object>, TreeMap<Long, long[]>> recount(List<TableRows.Ev> rows) {
        Map<List<Object>, TreeMap<Long, long[]>> changes = new TreeMap<>(KernelSequencesTest::compareRows);
        for (TableRows.Ev e : rows) {
            boolean set = "gpu_memset".equals(e.cat()) || "Memset".equals(e.cat());
            boolean copy = "gpu_memcpy".equals(e.cat()) || "Memcpy".equals(e.cat());
            if (!(set || copy) || !e.complete() || e.dur() == 0 || e.bytes() == null || e.bytes() < 0) {
                continue;
            }
            String kind = set ? "Memset" : "Memcpy " + (e.copyKind() == null ? "Unknown" : e.copyKind());
            long bps = BigInteger.valueOf(e.bytes()).multiply(BigInteger.TEN.pow(9)).divide(BigInteger.valueOf(e.dur())).longValueExact();
            TreeMap<Long, long[]> series = changes.computeIfAbsent(List.of(e.rank(), kind), k -> new TreeMap<>());
            long[] at = series.computeIfAbsent(e.ts(), t -> new long[2]);
            at[0]++;
            at[1] += bps;
            long[] off = series.computeIfAbsent(e.end(), t -> new long[2]);
            off[0]--;
            off[1] -= bps;
        }
        for (TreeMap<Long, long[]> series : changes.values()) {
            long n = 0;
            long bps = 0;
            for (long[] v : series.values()) {
                n += v[0];
                bps += v[1];
                v[0] = n;
                v[1] = bps;
            }
        }
        return changes;
    }

    /** The table as the same map. */
    static Map<List<Object>, TreeMap<Long, long[]>> series(ResultTable t) {
        assertEquals(List.of("rank", "kind", "ts_ns", "in_flight", "bytes_per_s"), t.columns());
        Map<List<Object>, TreeMap<Long, long[]>> out = new TreeMap<>(KernelSequencesTest::compareRows);
        for (Map<String, Object> r : TableRows.maps(t)) {
            long[] v = {(Long) r.get("in_flight"), (Long) r.get("bytes_per_s")};
            assertTrue(out.computeIfAbsent(List.of(r.get("rank"), r.get("kind")), k -> new TreeMap<>()).put((Long) r.get("ts_ns"), v) == null,
                    "one row per moment: " + r);
        }
        return out;
    }

    /** Maps of long arrays compared by content. */
    static Map<List<Object>, Map<Long, List<Long>>> plain(Map<List<Object>, TreeMap<Long, long[]>> m) {
        Map<List<Object>, Map<Long, List<Long>>> out = new TreeMap<>(KernelSequencesTest::compareRows);
        m.forEach((k, s) -> {
            Map<Long, List<Long>> p = new TreeMap<>();
            s.forEach((t, v) -> p.put(t, List.of(v[0], v[1])));
            out.put(k, p);
        });
        return out;
    }

    /**
     * HTA's series on one rank's torch trace, recomputed from the file: kind -> moment (ns, the trace's
     * own clock) -> GB/s after every change at that moment.
     */
    static Map<String, TreeMap<Long, Double>> hta(Path trace) throws Exception {
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            root = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).readTree(in);
        }
        Map<String, TreeMap<Long, Double>> changes = new TreeMap<>();
        for (JsonNode e : root.get("traceEvents")) {
            String cat = e.path("cat").asText();
            String name = e.path("name").asText();
            if (!(cat.equals("gpu_memcpy") || cat.equals("gpu_memset")) || e.path("args").path("stream").asLong(-1) == -1) {
                continue;
            }
            String kind = name.startsWith("Memset") ? "Memset" : !name.startsWith("Memcpy") ? "Memcpy Unknown" : name.substring(0, 11);
            BigDecimal dur = e.get("dur").decimalValue();
            if (dur.signum() == 0) {
                dur = BigDecimal.ONE; // HTA: "round it up to 1 us"
            }
            long start = e.get("ts").decimalValue().movePointRight(3).longValueExact();
            long end = e.get("ts").decimalValue().add(dur).movePointRight(3).longValueExact();
            double bw = e.path("args").path("memory bandwidth (GB/s)").asDouble();
            TreeMap<Long, Double> s = changes.computeIfAbsent(kind, k -> new TreeMap<>());
            s.merge(start, bw, Double::sum);
            s.merge(end, -bw, Double::sum);
        }
        for (TreeMap<Long, Double> s : changes.values()) {
            double sum = 0;
            for (Map.Entry<Long, Double> m : s.entrySet()) {
                sum += m.getValue();
                m.setValue(sum);
            }
        }
        return changes;
    }

    /** Holds rank {@code rank}'s table rows to HTA's series at every moment of either, the trace's clock shifted by {@code baseNs}. */
    private static int compareWithHta(Map<List<Object>, TreeMap<Long, long[]>> ours, Map<String, TreeMap<Long, Double>> hta, long rank,
            long baseNs) {
        int compared = 0;
        assertEquals(hta.keySet(), new java.util.TreeSet<>(ours.keySet().stream().map(k -> (String) k.get(1)).toList()));
        for (Map.Entry<String, TreeMap<Long, Double>> h : hta.entrySet()) {
            TreeMap<Long, long[]> o = ours.get(List.of(rank, h.getKey()));
            java.util.TreeSet<Long> moments = new java.util.TreeSet<>(o.keySet());
            h.getValue().keySet().forEach(t -> moments.add(t + baseNs));
            for (long t : moments) {
                Map.Entry<Long, long[]> oe = o.floorEntry(t);
                Map.Entry<Long, Double> he = h.getValue().floorEntry(t - baseNs);
                long got = oe == null ? 0 : oe.getValue()[1];
                long inFlight = oe == null ? 0 : oe.getValue()[0];
                double want = he == null ? 0 : he.getValue() * 1e9;
                assertTrue(got <= want + 1 && want <= got + inFlight + 1,
                        h.getKey() + " at " + t + ": HTA " + want + " B/s, ours " + got + " with " + inFlight + " in flight");
                compared++;
            }
        }
        return compared;
    }

    @Test
    void htasNcclDataTraceIsHtasSeriesAndTheRecount() throws Exception {
        Path trace = Path.of(getClass().getResource("/hta/nccl_data.json.gz").toURI());
        Path events = TableRows.table(dir.resolve("nccl.parquet"), trace);
        Map<List<Object>, TreeMap<Long, long[]>> ours = series(TableRows.run(events, "memory_bandwidth"));
        assertEquals(plain(recount(TableRows.read(events))), plain(ours));
        // HTA: 960 device-to-device copies and 114 sets on rank 0, every one with torch's bandwidth arg
        assertEquals(List.of(List.of(0L, "Memcpy DtoD"), List.of(0L, "Memset")), new ArrayList<>(ours.keySet()));
        int compared = compareWithHta(ours, hta(trace), 0, baseNs(trace));
        assertTrue(compared >= 2 * 1074 - 50, "moments compared: " + compared);
        // every copy's start and end is a moment of its own (1,920 and 228); the fastest copy 605.2 GB/s, set 1,925.2 GB/s
        assertEquals(1920, ours.get(List.of(0L, "Memcpy DtoD")).size());
        assertEquals(228, ours.get(List.of(0L, "Memset")).size());
        assertEquals(605_200_945_626L, ours.get(List.of(0L, "Memcpy DtoD")).values().stream().mapToLong(v -> v[1]).max().orElseThrow());
        assertEquals(1_925_218_225_419L, ours.get(List.of(0L, "Memset")).values().stream().mapToLong(v -> v[1]).max().orElseThrow());
    }

    @Test
    void torchsH200TraceOfEveryCopyKindIsHtasSeriesAndTheRecount() throws Exception {
        Path trace = Path.of(getClass().getResource("/captures/h200-kinds/h200-kinds.torch.pt.trace.json.gz").toURI());
        Path events = TableRows.table(dir.resolve("kinds.parquet"), trace);
        Map<List<Object>, TreeMap<Long, long[]>> ours = series(TableRows.run(events, "memory_bandwidth"));
        assertEquals(plain(recount(TableRows.read(events))), plain(ours));
        assertEquals(List.of("Memcpy DtoD", "Memcpy DtoH", "Memcpy HtoD"), ours.keySet().stream().map(k -> (String) k.get(1)).toList());
        long rank = (Long) ours.keySet().iterator().next().get(0);
        assertTrue(compareWithHta(ours, hta(trace), rank, baseNs(trace)) >= 20);
    }

    /** The trace's baseTimeNanoseconds (0 when absent): the table's times are the trace's plus it. */
    private static long baseNs(Path trace) throws Exception {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            return new ObjectMapper().readTree(in).path("baseTimeNanoseconds").asLong(0);
        }
    }
}
