package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
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
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.sql.CollectiveKernels;
import org.flagos.trace.sql.ResultTable;
import org.flagos.trace.testing.TableRows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * collectives on DuckDB against a recount in plain Java over the table's rows as stored (sorting and
 * maps, BigInteger for the bandwidth), on HTA's traces: {@code nccl_data} (rank 0 of two; its NCCL
 * kernels carry torch's message args) and the two {@code sampled_rank} traces of one 128-rank job
 * (their NCCL kernels carry none: bytes NULL), the two made one table by {@code flagtrace tables}.
 * The message sizes are also read straight from the trace file's args.
 */
class CollectivesTest {
    @TempDir
    Path dir;

    /** The columns of the events table the recount reads. */
    record Comm(long rank, String ph, String cat, String name, Long ts, Long dur, Long device, Long stream, Long correlation,
            Long inElems, Long outElems, String dtype, Long groupSize, String processGroup) {
    }

    static List<Comm> read(Path parquet) throws Exception {
        List<Comm> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT rank, ph, cat, name, ts_ns, dur_ns, device, stream, correlation, in_elems,"
                        + " out_elems, dtype, group_size, process_group FROM read_parquet('"
                        + parquet.toAbsolutePath().toString().replace("'", "''") + "')")) {
            while (rs.next()) {
                out.add(new Comm(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), lng(rs.getObject(5)),
                        lng(rs.getObject(6)), lng(rs.getObject(7)), lng(rs.getObject(8)), lng(rs.getObject(9)),
                        lng(rs.getObject(10)), lng(rs.getObject(11)), rs.getString(12), lng(rs.getObject(13)), rs.getString(14)));
            }
        }
        return out;
    }

    private static Long lng(Object o) {
        return o == null ? null : ((Number) o).longValue();
    }

    /** A collective's kind from its kernel's name, the first word found (lower case, no underscores). */
    static String kind(String name) {
        String flat = name.toLowerCase(Locale.ROOT).replace("_", "");
        for (String[] k : new String[][] {{"allreduce", "all_reduce"}, {"allgather", "all_gather"}, {"reducescatter", "reduce_scatter"},
                {"alltoall", "all_to_all"}, {"sendrecv", "send_recv"}, {"broadcast", "broadcast"}, {"reduce", "reduce"},
                {"send", "send"}, {"recv", "recv"}}) {
            if (flat.contains(k[0])) {
                return k[1];
            }
        }
        return "other";
    }

    /** Bytes per element of torch's dtype names. */
    static final Map<String, Long> ELEMENT = new HashMap<>();

    static {
        for (String t : List.of("Byte", "Char", "Bool", "Float8_e4m3fn", "Float8_e5m2", "Float8_e4m3fnuz", "Float8_e5m2fnuz")) {
            ELEMENT.put(t, 1L);
        }
        for (String t : List.of("Half", "BFloat16", "Short", "UInt16")) {
            ELEMENT.put(t, 2L);
        }
        for (String t : List.of("Float", "Int", "UInt32", "ComplexHalf")) {
            ELEMENT.put(t, 4L);
        }
        for (String t : List.of("Double", "Long", "UInt64", "ComplexFloat")) {
            ELEMENT.put(t, 8L);
        }
        ELEMENT.put("ComplexDouble", 16L);
    }

    /** collectives of {@code rows}, recounted, in the table's columns. */
    static List<List<Object>> recount(List<Comm> rows) {
        Map<List<Object>, List<Comm>> byKind = new HashMap<>();
        for (Comm e : rows) {
            if ("X".equals(e.ph()) && e.ts() != null && e.dur() != null && e.dur() >= 0 && e.name() != null
                    && ("kernel".equals(e.cat()) || "Kernel".equals(e.cat())) && CollectiveKernels.isCommunication(e.name())) {
                byKind.computeIfAbsent(Arrays.asList(e.rank(), e.processGroup(), kind(e.name())), k -> new ArrayList<>()).add(e);
            }
        }
        Comparator<Comm> order = Comparator.comparing(Comm::ts).thenComparing(c -> c.ts() + c.dur())
                .thenComparing(Comm::correlation, Comparator.nullsLast(Comparator.naturalOrder())).thenComparing(Comm::name);
        Map<List<Object>, long[]> across = new HashMap<>(); // (group, kind, instance) -> ranks, first/last start, first/last end
        List<Object[]> numbered = new ArrayList<>();
        for (Map.Entry<List<Object>, List<Comm>> g : byKind.entrySet()) {
            List<Comm> k = new ArrayList<>(g.getValue());
            k.sort(order);
            for (int i = 0; i < k.size(); i++) {
                Comm c = k.get(i);
                List<Object> key = Arrays.asList(c.processGroup(), g.getKey().get(2), (long) i + 1);
                long[] a = across.computeIfAbsent(key, x -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE});
                a[0]++;
                a[1] = Math.min(a[1], c.ts());
                a[2] = Math.max(a[2], c.ts());
                a[3] = Math.min(a[3], c.ts() + c.dur());
                a[4] = Math.max(a[4], c.ts() + c.dur());
                numbered.add(new Object[] {c, key});
            }
        }
        List<List<Object>> out = new ArrayList<>();
        for (Object[] n : numbered) {
            Comm c = (Comm) n[0];
            @SuppressWarnings("unchecked")
            List<Object> key = (List<Object>) n[1];
            long[] a = across.get(key);
            Long elems = c.inElems() == null ? c.outElems() : c.outElems() == null ? c.inElems() : Long.valueOf(Math.max(c.inElems(), c.outElems()));
            Long size = c.dtype() == null ? null : ELEMENT.get(c.dtype());
            Long bytes = elems == null || size == null || elems < 0 ? null : elems * size;
            Long bw = bytes == null || c.dur() == 0 ? null
                    : BigInteger.valueOf(bytes).multiply(BigInteger.TEN.pow(9)).divide(BigInteger.valueOf(c.dur())).longValueExact();
            out.add(Arrays.asList(c.rank(), c.processGroup(), key.get(1), key.get(2), c.name(), c.device(), c.stream(), c.ts(), c.dur(),
                    c.dtype(), c.groupSize(), c.inElems(), c.outElems(), bytes, bw, a[0], a[2] - a[1], a[4] - a[3], c.ts() - a[1]));
        }
        out.sort(CollectivesTest::compare);
        return out;
    }

    /** Rows by rank, kind, instance. */
    static int compare(List<Object> a, List<Object> b) {
        return Comparator.<List<Object>, Long>comparing(r -> (Long) r.get(0)).thenComparing(r -> (String) r.get(2))
                .thenComparing(r -> (Long) r.get(3)).thenComparing(r -> String.valueOf(r.get(1))).compare(a, b);
    }

    private List<Map<String, Object>> check(Path events) throws Exception {
        ResultTable t = TableRows.run(events, "collectives");
        assertEquals(List.of("rank", "process_group", "kind", "instance", "name", "device", "stream", "ts_ns", "dur_ns", "dtype",
                "group_size", "in_elems", "out_elems", "bytes", "algbw_bytes_per_s", "ranks", "start_skew_ns", "end_skew_ns", "late_ns"),
                t.columns());
        List<List<Object>> got = new ArrayList<>(t.rows());
        got.sort(CollectivesTest::compare);
        assertEquals(recount(read(events)), got);
        return TableRows.maps(t);
    }

    @Test
    void htasNcclDataTraceCarriesTheMessage() throws Exception {
        Path trace = Path.of(getClass().getResource("/hta/nccl_data.json.gz").toURI());
        List<Map<String, Object>> rows = check(TableRows.table(dir.resolve("nccl.parquet"), trace));
        assertEquals(15, rows.stream().filter(r -> r.get("kind").equals("all_reduce")).count());
        assertEquals(6, rows.stream().filter(r -> r.get("kind").equals("broadcast")).count());
        // the bytes again, from the file's own args: the larger of In/Out msg nelems times the dtype's size
        List<Long> want = new ArrayList<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            for (JsonNode e : new ObjectMapper().readTree(in).get("traceEvents")) {
                if ("kernel".equals(e.path("cat").asText()) && e.path("name").asText().startsWith("nccl")) {
                    JsonNode a = e.get("args");
                    want.add(Math.max(a.get("In msg nelems").asLong(), a.get("Out msg nelems").asLong())
                            * ELEMENT.get(a.get("dtype").asText()));
                }
            }
        }
        List<Long> got = rows.stream().map(r -> (Long) r.get("bytes")).toList();
        assertEquals(want.stream().sorted().toList(), got.stream().sorted().toList());
        assertTrue(rows.stream().allMatch(r -> "0".equals(r.get("process_group")) && Long.valueOf(2).equals(r.get("group_size"))
                && r.get("algbw_bytes_per_s") != null && r.get("ranks").equals(1L) && r.get("start_skew_ns").equals(0L)), "one rank of two");
        Map<String, Object> first = rows.stream().filter(r -> r.get("kind").equals("all_reduce") && r.get("instance").equals(1L))
                .findFirst().orElseThrow();
        // 2,049,000 floats in 3.307 ms: 2.48 GB/s
        assertEquals(8_196_000L, first.get("bytes"));
        assertEquals(3_306_963L, first.get("dur_ns"));
        assertEquals(2_478_406_925L, first.get("algbw_bytes_per_s"));
    }

    @Test
    void twoRanksOfHtasSampledJobAreMatchedAcrossRanks() throws Exception {
        Path r0 = Path.of(getClass().getResource("/hta/sampled_rank-0.json.gz").toURI());
        Path r1 = Path.of(getClass().getResource("/hta/sampled_rank-1.json.gz").toURI());
        List<Map<String, Object>> rows = check(TableRows.table(dir.resolve("sampled.parquet"), r0, r1));
        assertEquals(20, rows.size());
        assertTrue(rows.stream().allMatch(r -> r.get("kind").equals("send_recv") && r.get("bytes") == null && r.get("ranks").equals(2L)),
                "send/recv without args, on both ranks");
        assertTrue(rows.stream().anyMatch(r -> (Long) r.get("start_skew_ns") > 0));
        // the sampled traces keep some of each rank's kernels, so the n-th ones are not always one collective; the 9th
        // ends on both ranks within 8 us, the two starts 22.3 ms apart (rank 1 waited in it for rank 0)
        Map<String, Object> ninth = rows.stream().filter(r -> r.get("instance").equals(9L) && r.get("rank").equals(1L)).findFirst().orElseThrow();
        assertEquals(22_328_000L, ninth.get("start_skew_ns"));
        assertEquals(8_000L, ninth.get("end_skew_ns"));
        assertEquals(22_328_000L, ninth.get("late_ns"));
    }

    /**
     * The report's Collectives section ({@code CollectiveStats}, one streaming pass over the trace) equals the
     * collectives table summed per kind: calls, time, bytes and the bandwidth over the calls with bytes.
     */
    @Test
    void theReportsCollectivesAreTheTableSummedPerKind() throws Exception {
        Path trace = Path.of(getClass().getResource("/hta/nccl_data.json.gz").toURI());
        List<Map<String, Object>> rows = TableRows.maps(TableRows.run(TableRows.table(dir.resolve("nccl.parquet"), trace), "collectives"));
        Map<String, long[]> want = new java.util.TreeMap<>();
        for (Map<String, Object> r : rows) {
            long[] a = want.computeIfAbsent((String) r.get("kind"), k -> new long[4]);
            a[0]++;
            a[1] += (Long) r.get("dur_ns");
            a[2] += (Long) r.get("bytes");
            a[3] += (Long) r.get("dur_ns");
        }
        Map<String, long[]> got = new java.util.TreeMap<>();
        for (org.flagos.trace.report.CollectiveStats.Row r : org.flagos.trace.report.TraceFile.read(trace).collectives()) {
            got.put(r.kind(), new long[] {r.calls(), r.totalNs(), r.bytes(), r.sizedNs()});
            assertEquals(r.calls(), r.sizedCalls(), "every call carries its size");
            assertEquals(BigInteger.valueOf(r.bytes()).multiply(BigInteger.TEN.pow(9)).divide(BigInteger.valueOf(r.sizedNs())).longValueExact(),
                    r.algbwBytesPerS());
        }
        assertEquals(want.keySet(), got.keySet());
        want.forEach((k, v) -> assertEquals(Arrays.toString(v), Arrays.toString(got.get(k)), k));
        Path html = dir.resolve("nccl.html");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("report", trace.toString(), "-o", html.toString()), cli.stderr());
        String page = Files.readString(html);
        int section = page.indexOf("<h2>Collectives</h2>");
        assertTrue(section > 0 && page.indexOf("<td class=\"n\">all_reduce</td><td>15</td>", section) > 0, "the section and its all-reduces");
        // without message args (HTA's sampled rank): the calls are counted, their bytes said to be missing
        Path sampled = Path.of(getClass().getResource("/hta/sampled_rank-0.json.gz").toURI());
        Path html0 = dir.resolve("sampled.html");
        assertEquals(0, cli.run("report", sampled.toString(), "-o", html0.toString()), cli.stderr());
        String page0 = Files.readString(html0);
        assertTrue(page0.contains("<td class=\"n\">send_recv</td><td>10</td>") && page0.contains("not recorded")
                && page0.contains("10 calls carry no message size"), "send/recv without bytes");
    }

    /** The kind and element-size rules as Java (the report's) and as SQL (the table's) agree, name by name. */
    @Test
    void theKindAndSizeRulesAgreeInJavaAndSql() throws Exception {
        List<String> names = List.of("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
                "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
                "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "ncclDevKernel_Reduce_Sum_f32_RING_LL",
                "ncclDevKernel_AllToAll", "ncclDevKernel_Send", "ncclDevKernel_Recv", "ncclDevKernel_Generic_4", "void ncclKernel_all_reduce");
        List<String> dtypes = new ArrayList<>(ELEMENT.keySet());
        dtypes.addAll(List.of("Float32", "float", ""));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            for (String n : names) {
                try (ResultSet rs = s.executeQuery("SELECT " + CollectiveKernels.kindSql("x") + " FROM (SELECT '" + n + "' AS x)")) {
                    rs.next();
                    assertEquals(CollectiveKernels.kind(n), rs.getString(1), n);
                    assertEquals(kind(n), rs.getString(1), n);
                }
            }
            for (String d : dtypes) {
                try (ResultSet rs = s.executeQuery("SELECT " + CollectiveKernels.elementBytesSql("x") + " FROM (SELECT '" + d + "' AS x)")) {
                    rs.next();
                    Integer java = CollectiveKernels.ELEMENT_BYTES.get(d);
                    assertEquals(java == null ? null : java.longValue(), lng(rs.getObject(1)), d);
                    assertEquals(ELEMENT.get(d), lng(rs.getObject(1)), d);
                }
            }
        }
        assertEquals("all_reduce", CollectiveKernels.kind(names.get(0)));
        assertEquals("other", CollectiveKernels.kind("ncclDevKernel_Generic_4"));
    }

    @Test
    void aTableWrittenBeforeTheMessageColumnsReadsThemAsNull() throws Exception {
        Path trace = Path.of(getClass().getResource("/hta/nccl_data.json.gz").toURI());
        Path events = TableRows.table(dir.resolve("new.parquet"), trace);
        Path old = dir.resolve("old.parquet");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            s.execute("COPY (SELECT * EXCLUDE (in_elems, out_elems, dtype, group_size, process_group) FROM read_parquet('"
                    + events.toAbsolutePath() + "')) TO '" + old.toAbsolutePath() + "' (FORMAT parquet)");
        }
        List<Map<String, Object>> rows = TableRows.maps(TableRows.run(old, "collectives"));
        assertEquals(21, rows.size());
        assertTrue(rows.stream().allMatch(r -> r.get("bytes") == null && r.get("algbw_bytes_per_s") == null && r.get("process_group") == null));
        assertEquals(15, rows.stream().filter(r -> r.get("kind").equals("all_reduce")).count());
    }
}
