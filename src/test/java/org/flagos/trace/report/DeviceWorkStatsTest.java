package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.tracefile.TraceFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DeviceWorkStats}: the kernels, copies and sets of HTA's simple_add trace, read by Jackson and added one by
 * one, give HTA's own kernel breakdown (sum, min, max, mean, sample std) for all 18 names; random durations (some past
 * 2^31 so their squares carry into the high 64 bits) against a reference computed from the deviations in BigInteger;
 * the order, the one-call and rounding cases; and a total past 2^63 - 1 ns refused (it was an internal error of
 * {@code summary} and {@code report}: "long overflow").
 */
class DeviceWorkStatsTest {
    private static final Path HTA = Path.of("src/test/resources/hta");

    @TempDir
    Path dir;

    @Test
    void htasSimpleAddTraceGivesHtasKernelBreakdown() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        JsonNode trace;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(HTA.resolve("simple_add_trace.json.gz")))) {
            trace = mapper.readTree(in);
        }
        DeviceWorkStats stats = new DeviceWorkStats();
        int added = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            String cat = e.path("cat").asText();
            if (cat.equals("kernel") || cat.equals("gpu_memcpy") || cat.equals("gpu_memset")) {
                assertTrue(stats.add(e.get("name").asText(), e.get("dur").asLong() * 1000));
                added++;
            }
        }
        assertEquals(79 + 16 + 3, added);
        Map<String, DeviceWorkStats.Row> rows = new HashMap<>();
        for (DeviceWorkStats.Row r : stats.rows()) {
            rows.put(r.name(), r);
        }
        JsonNode hta = mapper.readTree(HTA.resolve("simple_add.hta.json").toFile());
        assertEquals(hta.get("kernels").size(), rows.size());
        assertEquals(18, rows.size());
        long calls = 0;
        for (JsonNode k : hta.get("kernels")) {
            DeviceWorkStats.Row r = rows.get(k.get("name").asText());
            String name = k.get("name").asText();
            assertEquals(Math.round(k.get("sum").asDouble() * 1000), r.totalNs(), name);
            assertEquals(Math.round(k.get("min").asDouble() * 1000), r.minNs(), name);
            assertEquals(Math.round(k.get("max").asDouble() * 1000), r.maxNs(), name);
            assertEquals((long) Math.floor(k.get("mean").asDouble() * 1000), r.meanNs(), name);
            double std = k.get("std").asDouble() * 1000; // HTA's is a double: ours is the whole ns below it
            assertTrue(r.stdNs() <= std + 1e-6 && std < r.stdNs() + 1, name + ": HTA " + std + ", ours " + r.stdNs());
            calls += r.calls();
        }
        assertEquals(added, calls);
        assertEquals(1414, rows.get("cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1").stdNs(), "sqrt(2) us, whole ns below it");
    }

    /** The sample std from the deviations: floor(sqrt(sum((n x - T)^2) / (n^2 (n - 1)))). */
    private static long referenceStd(List<Long> xs) {
        BigInteger n = BigInteger.valueOf(xs.size());
        BigInteger total = BigInteger.ZERO;
        for (long x : xs) {
            total = total.add(BigInteger.valueOf(x));
        }
        BigInteger s = BigInteger.ZERO;
        for (long x : xs) {
            BigInteger d = n.multiply(BigInteger.valueOf(x)).subtract(total);
            s = s.add(d.multiply(d));
        }
        return s.divide(n.multiply(n).multiply(n.subtract(BigInteger.ONE))).sqrt().longValueExact();
    }

    @Test
    void randomDurationsAgreeWithTheDeviationsInBigIntegers() {
        SplittableRandom random = new SplittableRandom(30);
        for (int round = 0; round < 300; round++) {
            DeviceWorkStats stats = new DeviceWorkStats();
            Map<String, List<Long>> want = new HashMap<>();
            int names = 1 + random.nextInt(5);
            int events = 1 + random.nextInt(200);
            long bound = round % 3 == 0 ? 1L << 20 : round % 3 == 1 ? 1L << 40 : (1L << 62) / 256; // squares past 64 bits
            for (int i = 0; i < events; i++) {
                String name = "k" + random.nextInt(names);
                long d = random.nextLong(bound);
                assertTrue(stats.add(name, d));
                want.computeIfAbsent(name, k -> new ArrayList<>()).add(d);
            }
            for (DeviceWorkStats.Row r : stats.rows()) {
                List<Long> xs = want.get(r.name());
                long total = xs.stream().mapToLong(Long::longValue).sum();
                assertEquals(xs.size(), r.calls());
                assertEquals(total, r.totalNs());
                assertEquals(xs.stream().mapToLong(Long::longValue).min().getAsLong(), r.minNs());
                assertEquals(xs.stream().mapToLong(Long::longValue).max().getAsLong(), r.maxNs());
                assertEquals(total / xs.size(), r.meanNs());
                assertEquals(xs.size() == 1 ? 0 : referenceStd(xs), r.stdNs(), r.name() + " of round " + round);
            }
        }
    }

    @Test
    void theOrderIsTheLongestTotalFirstThenTheName() {
        DeviceWorkStats stats = new DeviceWorkStats();
        stats.add("b", 5);
        stats.add("a", 5);
        stats.add("c", 9);
        stats.add("zero", 0);
        stats.add("c", 0);
        List<String> order = new ArrayList<>();
        for (DeviceWorkStats.Row r : stats.rows()) {
            order.add(r.name() + "=" + r.totalNs());
        }
        assertEquals(List.of("c=9", "a=5", "b=5", "zero=0"), order);
        assertEquals(new DeviceWorkStats.Row("c", 2, 9, 0, 9, 4, 6), stats.rows().get(0), "mean 4.5 down to 4; std sqrt(40.5) = 6.36");
        assertEquals(new DeviceWorkStats.Row("a", 1, 5, 5, 5, 5, 0), stats.rows().get(1), "one call: std 0");
        assertEquals(List.of(), new DeviceWorkStats().rows());
        DeviceWorkStats ties = new DeviceWorkStats();
        List<String> names = List.of("void gemm<7>", "memset", "aten::add", "Memcpy HtoD", "nccl:all_reduce", "k9", "k10", "zz", "b");
        for (String n : names) {
            ties.add(n, 5);
        }
        assertEquals(names.stream().sorted().toList(), ties.rows().stream().map(DeviceWorkStats.Row::name).toList(), "ties by name");
    }

    @Test
    void aTotalPastTheLongRangeIsRefusedAndLeavesTheRowAsItWas() throws Exception {
        DeviceWorkStats stats = new DeviceWorkStats();
        assertTrue(stats.add("k", Long.MAX_VALUE - 1));
        assertTrue(stats.add("k", 1), "exactly 2^63 - 1 in all");
        assertFalse(stats.add("k", 1));
        assertTrue(stats.add("other", Long.MAX_VALUE));
        DeviceWorkStats.Row k = stats.rows().stream().filter(r -> r.name().equals("k")).findFirst().orElseThrow();
        assertEquals(new DeviceWorkStats.Row("k", 2, Long.MAX_VALUE, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE / 2, k.stdNs()), k);
        assertEquals(referenceStd(List.of(Long.MAX_VALUE - 1, 1L)), k.stdNs(), "squares near 2^126, exact");
        // Through the trace reader: three kernels of 4e15 us each (each within the reader's bounds) are no trace, in one line.
        String kernel = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":4000000000000000,"
                + "\"args\":{\"device\":0,\"stream\":7}}";
        Path big = Files.writeString(dir.resolve("big.json"), "{\"traceEvents\":[" + kernel + "," + kernel + "," + kernel + "]}");
        String m = assertThrows(TraceFormatException.class, () -> TraceFile.read(big)).getMessage();
        assertEquals(big + " is not a trace: the device work of one name lasts more than 9223372036854775807 ns (292 years) in all", m);
        Path two = Files.writeString(dir.resolve("two.json"), "{\"traceEvents\":[" + kernel + "," + kernel + "]}");
        assertEquals(8_000_000_000_000_000_000L, TraceFile.read(two).deviceWorkStats().get(0).totalNs(), "two are within range");
    }
}
