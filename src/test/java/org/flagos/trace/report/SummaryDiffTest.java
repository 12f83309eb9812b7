package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link SummaryDiff} ({@code flagtrace diff}). On torch's own two traces of one run (two cycles of the step schedule,
 * the same ops with other times), every row of the diff is checked against {@code summary --json} of each trace
 * ({@link KeyAveragesJson}, the rows the diff says it compares): its figures in A and B field for field, its change,
 * difference and ratio worked out again from those two documents, the rows it leaves out equal in every figure, and the
 * order by absolute difference. Hand-built tables pin the words (added, removed, slower, faster, changed), the ties of
 * the order, the ratio's rounding, the device label, the limit and a name with terminal escapes.
 */
class SummaryDiffTest {
    private static final Path STEPS = Path.of("src/test/resources/torch-reference/step-schedule");
    private static final Path A = STEPS.resolve("vm_509.1796158180130093925.pt.trace.json");
    private static final Path B = STEPS.resolve("vm_509.1796158180134530441.pt.trace.json");
    private static final List<String> FIGURES = List.of("count", "self_cpu_time_total_us", "cpu_time_total_us", "cpu_time_avg_us",
            "self_device_time_total_us", "device_time_total_us", "device_time_avg_us");
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private static Map<String, JsonNode> summary(TraceFile file) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        KeyAveragesJson.write(file, file.averages(), SortKey.CPU_TIME_TOTAL, -1, out);
        Map<String, JsonNode> rows = new LinkedHashMap<>();
        for (JsonNode r : MAPPER.readTree(out.toByteArray()).get("rows")) {
            rows.put(r.get("kind").asText() + ":" + r.get("name").asText(), r);
        }
        return rows;
    }

    private static JsonNode json(SummaryDiff diff, int limit) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        diff.write("A.json", "B.json", limit, out);
        return MAPPER.readTree(out.toByteArray());
    }

    private static BigDecimal dec(JsonNode n) {
        return n.decimalValue();
    }

    private static void sameFigures(JsonNode want, JsonNode got, String what) {
        for (String f : FIGURES) {
            assertEquals(0, dec(want.get(f)).compareTo(dec(got.get(f))), what + ": " + f + " " + want.get(f) + " vs " + got.get(f));
        }
    }

    @Test
    void torchsTwoCyclesDifferRowForRowAsTheirSummariesSay() throws Exception {
        Map<String, Integer> changes = againstSummaries(A, B);
        // The second cycle's step and its annotation have other names (ProfilerStep#3, #4): added and removed; the rest ran faster.
        assertEquals(Map.of("rows", 9, "added", 2, "removed", 2, "faster", 5, "slower", 0, "changed", 0), changes);
    }

    @Test
    void torchsLegacyTracesOfTwoProgramsShareSomeOpsAndNotOthers() throws Exception {
        Path legacy = Path.of("src/test/resources/torch-legacy");
        Map<String, Integer> changes = againstSummaries(legacy.resolve("shapes.json"), legacy.resolve("chain.json"));
        assertTrue(changes.get("added") > 0 && changes.get("removed") > 0, "chain's ops are not shapes': " + changes);
    }

    /** Checks the diff of {@code pa} and {@code pb} against the two summaries; returns how many rows of each change. */
    private static Map<String, Integer> againstSummaries(Path pa, Path pb) throws Exception {
        TraceFile fa = TraceFile.read(pa);
        TraceFile fb = TraceFile.read(pb);
        Map<String, JsonNode> sa = summary(fa);
        Map<String, JsonNode> sb = summary(fb);
        SummaryDiff diff = SummaryDiff.of(fa.averages(), fb.averages());
        JsonNode doc = json(diff, -1);
        assertEquals("A.json", doc.get("a").asText());
        assertEquals(fa.averages().deviceLabel(), doc.get("device_label").asText());
        Set<String> keys = new HashSet<>(sa.keySet());
        keys.addAll(sb.keySet());
        Map<String, Integer> changes = new LinkedHashMap<>();
        changes.put("rows", keys.size());
        assertEquals(keys.size(), doc.get("rows_differing").asInt() + doc.get("rows_unchanged").asInt(), "every row differs or is counted");
        assertEquals(diff.rows().size(), doc.get("rows").size());
        assertEquals(diff.unchanged(), doc.get("rows_unchanged").asInt());
        Set<String> listed = new HashSet<>();
        BigDecimal previous = null;
        for (JsonNode r : doc.get("rows")) {
            String key = r.get("kind").asText() + ":" + r.get("name").asText();
            assertTrue(listed.add(key), "each row once: " + key);
            JsonNode a = sa.get(key);
            JsonNode b = sb.get(key);
            if (a == null) {
                assertTrue(r.get("a").isNull(), key);
            } else {
                sameFigures(a, r.get("a"), key + " in A");
            }
            if (b == null) {
                assertTrue(r.get("b").isNull(), key);
            } else {
                sameFigures(b, r.get("b"), key + " in B");
            }
            // The change again, from the two summaries alone.
            boolean byDevice = r.get("kind").asText().equals("device")
                    || a != null && dec(a.get("device_time_total_us")).signum() > 0
                    || b != null && dec(b.get("device_time_total_us")).signum() > 0;
            String field = byDevice ? "device_time_total_us" : "cpu_time_total_us";
            assertEquals(byDevice ? "device_time_total" : "cpu_time_total", r.get("measured").asText(), key);
            BigDecimal ma = a == null ? BigDecimal.ZERO : dec(a.get(field));
            BigDecimal mb = b == null ? BigDecimal.ZERO : dec(b.get(field));
            BigDecimal d = mb.subtract(ma);
            assertEquals(0, d.compareTo(dec(r.get("difference_us"))), key + ": B less A");
            String change = a == null ? "added" : b == null ? "removed" : d.signum() > 0 ? "slower" : d.signum() < 0 ? "faster" : "changed";
            assertEquals(change, r.get("change").asText(), key);
            changes.merge(change, 1, Integer::sum);
            if (ma.signum() == 0) {
                assertTrue(r.get("ratio").isNull(), key + ": no ratio over nothing");
            } else {
                assertEquals(0, mb.divide(ma, 4, RoundingMode.HALF_EVEN).compareTo(dec(r.get("ratio"))), key + ": B over A " + r.get("ratio"));
            }
            if (previous != null) {
                assertTrue(previous.compareTo(d.abs()) >= 0, key + ": largest absolute difference first");
            }
            previous = d.abs();
        }
        for (String key : keys) {
            if (!listed.contains(key)) {
                assertNotNull(sa.get(key), key);
                assertNotNull(sb.get(key), key);
                sameFigures(sa.get(key), sb.get(key), key + " is left out as unchanged");
            }
        }
        String table = diff.render(-1);
        assertTrue(table.endsWith(diff.rows().size() + " rows differ, " + diff.unchanged() + " unchanged" + System.lineSeparator()), table);
        for (String c : List.of("added", "removed", "slower", "faster", "changed")) {
            changes.putIfAbsent(c, 0);
        }
        return changes;
    }

    @Test
    void aTraceAgainstItselfIsAllUnchanged() throws Exception {
        TraceFile f = TraceFile.read(A);
        SummaryDiff diff = SummaryDiff.of(f.averages(), TraceFile.read(A).averages());
        assertEquals(0, diff.rows().size());
        assertEquals(f.averages().rows().size(), diff.unchanged());
        assertTrue(diff.render(-1).endsWith("0 rows differ, " + f.averages().rows().size() + " unchanged" + System.lineSeparator()));
        assertEquals(0, json(diff, -1).get("rows").size());
    }

    private static KeyAveragesRow host(String name, long count, double cpuTotalUs, double deviceTotalUs) {
        return new KeyAveragesRow(name, false, count, cpuTotalUs / 2, cpuTotalUs, 0, deviceTotalUs);
    }

    private static KeyAveragesRow device(String name, long count, double us) {
        return new KeyAveragesRow(name, true, count, 0, 0, us, us);
    }

    private static KeyAverages table(boolean cuda, KeyAveragesRow... rows) {
        return new KeyAverages(List.of(rows), cuda);
    }

    @Test
    void eachChangeHasItsWordAndTheOrderIsByAbsoluteDifferenceThenHostFirstThenName() {
        KeyAverages a = table(true,
                host("same", 3, 30, 0),
                host("slower", 1, 10, 0),
                host("faster", 1, 50, 0),
                host("gone", 2, 7, 0),
                host("launcher", 1, 100, 20), // device time in A: measured by device time
                host("recounted", 2, 8, 0),
                device("k", 4, 12),
                host("k", 4, 40, 0),
                host("tie-b", 1, 5, 0),
                host("tie-a", 1, 5, 0));
        KeyAverages b = table(true,
                host("same", 3, 30, 0),
                host("slower", 1, 12, 0),
                host("faster", 1, 47, 0),
                host("new", 1, 0.001, 0),
                host("launcher", 1, 500, 18), // CPU time up by 400 us, device time down by 2 us: faster
                host("recounted", 4, 8, 0), // same time, other count: changed
                device("k", 4, 15),
                host("k", 4, 43, 0),
                host("tie-b", 1, 8, 0),
                host("tie-a", 1, 8, 0));
        SummaryDiff diff = SummaryDiff.of(a, b);
        List<String> order = new ArrayList<>();
        for (SummaryDiff.Row r : diff.rows()) {
            order.add((r.device() ? "d:" : "") + r.name() + " " + r.change() + " " + r.differenceNs());
        }
        assertEquals(List.of(
                "gone removed -7000",
                "faster faster -3000", // one absolute difference: host rows by name, then the device row
                "k slower 3000",
                "tie-a slower 3000",
                "tie-b slower 3000",
                "d:k slower 3000",
                "launcher faster -2000",
                "slower slower 2000",
                "new added 1",
                "recounted changed 0"), order);
        assertEquals(1, diff.unchanged());
        SummaryDiff.Row launcher = diff.rows().get(6);
        assertTrue(launcher.byDevice());
        assertEquals(20_000, launcher.measuredA());
        assertEquals(new BigDecimal("0.9000"), launcher.ratio());
        assertNull(diff.rows().get(8).ratio(), "added: no A to divide by");
        assertEquals(0, diff.rows().get(0).measuredB(), "removed: nothing in B");
        assertEquals(new BigDecimal("1.2000"), diff.rows().get(7).ratio());
    }

    @Test
    void theRatioIsRoundedHalfEvenToFourDecimalsAndTimesToTheNanosecond() {
        SummaryDiff.Row r = new SummaryDiff.Row("x", false, new SummaryDiff.Side(1, 3, 0, 0, 0, 3, 0), new SummaryDiff.Side(1, 2, 0, 0, 0, 2, 0));
        assertEquals(new BigDecimal("0.6667"), r.ratio());
        SummaryDiff.Row tie = new SummaryDiff.Row("x", false, new SummaryDiff.Side(1, 16, 0, 0, 0, 16, 0), new SummaryDiff.Side(1, 1, 0, 0, 0, 1, 0));
        assertEquals(new BigDecimal("0.0625"), tie.ratio());
        SummaryDiff.Row tie5 = new SummaryDiff.Row("x", false, new SummaryDiff.Side(1, 32, 0, 0, 0, 32, 0), new SummaryDiff.Side(1, 1, 0, 0, 0, 1, 0));
        assertEquals(new BigDecimal("0.0312"), tie5.ratio(), "0.03125: to the even 2");
        assertEquals(1_000, SummaryDiff.ns(1.0));
        assertEquals(1_000, SummaryDiff.ns(1.0004999));
        assertEquals(1_001, SummaryDiff.ns(1.0006));
        assertEquals(123_456_789_012L, SummaryDiff.ns(123_456_789.012));
        assertEquals(0, SummaryDiff.ns(0.0));
    }

    @Test
    void theDeviceLabelIsAsUnlessOnlyBHasDeviceTime() {
        KeyAverages cpuOnly = table(false, host("op", 1, 5, 0));
        KeyAverages cuda = table(true, host("op", 1, 5, 4), device("k", 1, 3));
        assertTrue(SummaryDiff.of(cpuOnly, cuda).render(-1).contains(" CUDA "), "A has none, B has: B's label");
        assertTrue(SummaryDiff.of(cuda, cpuOnly).render(-1).contains(" CUDA "));
        KeyAverages otherDevice = table(false, host("op", 1, 5, 3), device("k", 1, 3));
        String t = SummaryDiff.of(otherDevice, cuda).render(-1);
        assertTrue(t.contains(" device ") && !t.contains(" CUDA "), "A has device time: A's label\n" + t);
    }

    @Test
    void theLimitCutsTheTableAndTheJsonButNotTheCounts() throws Exception {
        KeyAverages a = table(false, host("a", 1, 1, 0), host("b", 1, 2, 0), host("c", 1, 3, 0));
        KeyAverages b = table(false, host("a", 1, 2, 0), host("b", 1, 4, 0), host("c", 1, 6, 0));
        SummaryDiff diff = SummaryDiff.of(a, b);
        String n = System.lineSeparator();
        String two = diff.render(2);
        assertEquals(1 + 2 + 1, two.split(n).length, two);
        assertTrue(two.endsWith("3 rows differ (2 shown), 0 unchanged" + n), two);
        assertTrue(diff.render(0).endsWith("3 rows differ (0 shown), 0 unchanged" + n));
        assertTrue(diff.render(3).endsWith("3 rows differ, 0 unchanged" + n));
        assertTrue(diff.render(-1).endsWith("3 rows differ, 0 unchanged" + n));
        JsonNode doc = json(diff, 2);
        assertEquals(2, doc.get("rows").size());
        assertEquals(3, doc.get("rows_differing").asInt());
        assertEquals("c", doc.get("rows").get(0).get("name").asText());
        assertEquals(0, json(diff, 0).get("rows").size());
        assertEquals(3, json(diff, 3).get("rows").size());
        SummaryDiff one = SummaryDiff.of(table(false, host("a", 1, 1, 0)), table(false, host("a", 1, 2, 0)));
        assertTrue(one.render(-1).endsWith("1 row differs, 0 unchanged" + n));
    }

    @Test
    void namesAreMadeSafeForATerminalAndCutAsTorchCutsThem() throws Exception {
        String evil = "op\u001b]0;owned\u0007\u001b[2J";
        String longName = "aten::a_very_long_operator_name_indeed";
        SummaryDiff diff = SummaryDiff.of(table(false, host(evil, 1, 1, 0), host(longName, 1, 1, 0)),
                table(false, host(evil, 1, 2, 0), host(longName, 1, 3, 0)));
        String t = diff.render(-1);
        assertFalse(t.contains("\u001b") || t.contains("\u0007"), t);
        assertTrue(t.contains("aten::a_very_long_op... "), t);
        assertFalse(t.contains(longName));
        for (String line : t.split(System.lineSeparator())) {
            if (!line.contains("differ")) {
                assertEquals(100, line.length(), "a row is 100 columns: " + line);
            }
        }
        JsonNode doc = json(diff, -1);
        assertEquals(longName, doc.get("rows").get(0).get("name").asText(), "the JSON keeps the whole name");
    }
}
