package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flagtrace diff A B} on real traces: the live trace flagtrace wrote on the H200 against the
 * replay of the capture dumped in the same session (no row differs), and PyTorch's own trace of the
 * torch reference workload on the H200 against that flagtrace trace, every row held to a recount from
 * the two {@code summary --json} files (a separate run of the CLI; the diff's rows are those rows).
 */
class DiffCommandTest {
    private static final String LIVE = "h200-java-parity";

    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private static Path live() {
        return Captures.dir().resolve(LIVE + ".live.json");
    }

    @Test
    void aLiveTraceAndTheReplayOfItsCaptureDifferInNoRow() throws Exception {
        Path replayed = dir.resolve("replayed.json");
        int rc = cli.run("replay", Captures.capture(LIVE).toString(), "-o", replayed.toString());
        assertTrue(rc == 0 || rc == 3, cli.stderr());
        Path out = dir.resolve("diff.json");
        assertEquals(0, cli.run("diff", live().toString(), replayed.toString(), "--json", out.toString()), cli.stderr());
        JsonNode d = TraceJson.MAPPER.readTree(out.toFile());
        assertEquals(0, d.get("rows_differing").asInt(), cli.stdout());
        assertEquals(summaryRows(live()).size(), d.get("rows_unchanged").asInt());
        assertTrue(d.get("rows_unchanged").asInt() > 10);
        assertEquals(0, d.get("rows").size());
        assertTrue(cli.stdout().contains("0 rows differ, " + d.get("rows_unchanged").asInt() + " unchanged"), cli.stdout());
    }

    @Test
    void torchsOwnTraceAgainstFlagtracesEqualsARecountFromBothSummaries() throws Exception {
        Path torch = SummaryCommandTest.torchTrace();
        Path out = dir.resolve("diff.json");
        assertEquals(0, cli.run("diff", torch.toString(), live().toString(), "--json", out.toString()), cli.stderr());
        String table = cli.stdout();
        JsonNode d = TraceJson.MAPPER.readTree(out.toFile());

        // the recount: both summaries as summary --json writes them, matched by kind and name
        Map<String, long[]> a = summaryRows(torch);
        Map<String, long[]> b = summaryRows(live());
        List<String> keys = new ArrayList<>(new java.util.TreeSet<>(a.keySet()) {
            {
                addAll(b.keySet());
            }
        });
        List<Object[]> want = new ArrayList<>(); // key, change, difference ns
        int unchanged = 0;
        for (String k : keys) {
            long[] x = a.get(k);
            long[] y = b.get(k);
            boolean device = k.startsWith("device ") || x != null && x[4] > 0 || y != null && y[4] > 0;
            int m = device ? 4 : 1;
            long diff = (y == null ? 0 : y[m]) - (x == null ? 0 : x[m]);
            String change = x == null ? "added" : y == null ? "removed" : diff > 0 ? "slower" : diff < 0 ? "faster"
                    : java.util.Arrays.equals(x, y) ? "unchanged" : "changed";
            if (change.equals("unchanged")) {
                unchanged++;
            } else {
                want.add(new Object[] {k, change, diff});
            }
        }
        want.sort(Comparator.comparingLong((Object[] w) -> -Math.abs((Long) w[2]))
                .thenComparing(w -> ((String) w[0]).startsWith("device ")).thenComparing(w -> ((String) w[0]).substring(((String) w[0]).indexOf(' ') + 1)));
        assertEquals(want.size(), d.get("rows_differing").asInt());
        assertEquals(unchanged, d.get("rows_unchanged").asInt());
        assertEquals(want.size(), d.get("rows").size());
        int added = 0;
        int removed = 0;
        int moved = 0;
        for (int i = 0; i < want.size(); i++) {
            JsonNode r = d.get("rows").get(i);
            String key = r.get("kind").asText() + " " + r.get("name").asText();
            String who = i + ": " + key;
            assertEquals(want.get(i)[0], key, who);
            assertEquals(want.get(i)[1], r.get("change").asText(), who);
            assertEquals((long) (Long) want.get(i)[2], ns(r.get("difference_us")), who);
            for (String side : List.of("a", "b")) {
                long[] s = (side.equals("a") ? a : b).get(key);
                if (s == null) {
                    assertTrue(r.get(side).isNull(), who);
                    continue;
                }
                JsonNode f = r.get(side);
                assertEquals(s[0], f.get("count").asLong(), who);
                assertEquals(s[1], ns(f.get("cpu_time_total_us")), who);
                assertEquals(s[2], ns(f.get("self_cpu_time_total_us")), who);
                assertEquals(s[3], ns(f.get("self_device_time_total_us")), who);
                assertEquals(s[4], ns(f.get("device_time_total_us")), who);
            }
            added += r.get("change").asText().equals("added") ? 1 : 0;
            removed += r.get("change").asText().equals("removed") ? 1 : 0;
            moved += r.get("a").isNull() || r.get("b").isNull() ? 0 : 1;
        }
        assertTrue(added > 0 && removed > 0 && moved > 0, added + " added, " + removed + " removed, " + moved + " in both");
        // pinned: the rows of these two bundled traces as they are
        assertEquals(77, want.size());
        assertEquals(0, unchanged);
        assertRow(d.get("rows").get(0), "host", "cudaSetDevice", "added", "cpu_time_total", "138994.999", null);
        assertRow(d.get("rows").get(4), "host", "cudaLaunchKernel", "slower", "cpu_time_total", "3411.394", "17.3363");
        assertRow(d.get("rows").get(9), "device", "Memcpy HtoD (Pageable -> Device)", "slower", "device_time_total", "862.432", "4.4736");
        assertRow(d.get("rows").get(16), "host", "cudaMemcpyAsync", "removed", "cpu_time_total", "-383.118", "0");
        assertRow(d.get("rows").get(17), "host", "aten::copy_", "removed", "device_time_total", "-249.373", "0");
        assertRow(d.get("rows").get(76), "device", "Memcpy DtoD (Device -> Device)", "faster", "device_time_total", "-0.095", "0.9127");
        assertEquals(3, d.get("rows").get(9).get("b").get("count").asInt());
        assertEquals("370.239", d.get("rows").get(9).get("b").get("device_time_avg_us").decimalValue().toPlainString());
        assertTrue(table.lines().allMatch(l -> l.length() <= 100), table);
        assertTrue(table.contains("[device] Memcpy HtoD... slower  CUDA         1       3     248.285    1110.717      862.432   4.4736"), table);
        assertTrue(table.contains(want.size() + " rows differ, " + unchanged + " unchanged"), table);
    }

    @Test
    void badUsageIsExitTwoAndUnreadableInputExitOneWithOneLine() throws Exception {
        Path torch = SummaryCommandTest.torchTrace();
        assertEquals(2, cli.run("diff", torch.toString()));
        assertOneLine(cli.stderr(), "diff");
        assertEquals(2, cli.run("diff", torch.toString(), torch.toString(), "--limit", "-1"));
        assertOneLine(cli.stderr(), "row count");
        assertEquals(2, cli.run("diff", torch.toString(), live().toString(), "--json", live().toString()));
        assertOneLine(cli.stderr(), "diff");
        Path missing = dir.resolve("missing.json");
        assertEquals(1, cli.run("diff", torch.toString(), missing.toString()));
        assertOneLine(cli.stderr(), "missing.json");
        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, "{\"traceEvents\": [ {\"ph\": ");
        Path out = dir.resolve("d.json");
        assertEquals(1, cli.run("diff", broken.toString(), torch.toString(), "--json", out.toString()));
        assertOneLine(cli.stderr(), "broken.json");
        assertFalse(Files.exists(out), "no output left behind");
        assertEquals(1, cli.run("diff", Captures.capture(LIVE).toString(), torch.toString()));
        assertOneLine(cli.stderr(), "replay it first");
    }

    private static void assertRow(JsonNode r, String kind, String name, String change, String measured, String differenceUs, String ratio) {
        String who = r.toString();
        assertEquals(kind, r.get("kind").asText(), who);
        assertEquals(name, r.get("name").asText(), who);
        assertEquals(change, r.get("change").asText(), who);
        assertEquals(measured, r.get("measured").asText(), who);
        assertEquals(0, new BigDecimal(differenceUs).compareTo(r.get("difference_us").decimalValue()), who);
        if (ratio == null) {
            assertTrue(r.get("ratio").isNull(), who);
        } else {
            assertEquals(0, new BigDecimal(ratio).compareTo(r.get("ratio").decimalValue()), who);
        }
    }

    private static void assertOneLine(String err, String has) {
        assertEquals(1, err.strip().lines().count(), err);
        assertTrue(err.contains(has), err);
    }

    /** kind + " " + name: count, CPU total, self CPU, self device, device total (ns), from summary --json. */
    private Map<String, long[]> summaryRows(Path trace) throws Exception {
        Path json = dir.resolve("summary-" + trace.getFileName() + ".json");
        CliRunner run = new CliRunner();
        assertEquals(0, run.run("summary", trace.toString(), "--json", json.toString()), run.stderr());
        Map<String, long[]> rows = new TreeMap<>();
        for (JsonNode r : TraceJson.MAPPER.readTree(json.toFile()).get("rows")) {
            rows.put(r.get("kind").asText() + " " + r.get("name").asText(), new long[] {r.get("count").asLong(),
                    ns(r.get("cpu_time_total_us")), ns(r.get("self_cpu_time_total_us")), ns(r.get("self_device_time_total_us")),
                    ns(r.get("device_time_total_us"))});
        }
        return rows;
    }

    private static long ns(JsonNode us) {
        return us.decimalValue().setScale(3, RoundingMode.UNNECESSARY).movePointRight(3).longValueExact();
    }
}
