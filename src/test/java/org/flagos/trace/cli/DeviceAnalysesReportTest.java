package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flagos.trace.testing.HtmlPages;
import org.flagos.trace.testing.TableRows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code report --memory-bandwidth --kernel-sequences} on PyTorch's own H200 trace of the reference
 * workload: the two sections are there only when asked, and what they say is analyze's tables of the
 * same trace (made here by {@code flagtrace tables} and DuckDB): each rank's peak bandwidth, and one
 * table row per stream and length for the most frequent sequence, with its runs.
 */
class DeviceAnalysesReportTest {
    @TempDir
    Path dir;

    @Test
    void sectionsHoldAnalyzesTablesOnlyWhenAsked() throws Exception {
        Path trace = Path.of(getClass().getResource("/torch-reference/torch_trace.json").toURI());
        CliRunner cli = new CliRunner();
        Path with = dir.resolve("with.html");
        Path without = dir.resolve("without.html");
        assertEquals(0, cli.run("report", trace.toString(), "-o", with.toString(), "--memory-bandwidth", "--kernel-sequences"), cli.stderr());
        assertEquals(0, cli.run("report", trace.toString(), "-o", without.toString()), cli.stderr());
        String page = Files.readString(with);
        String plain = Files.readString(without);
        HtmlPages.parse(page); // well-formed, as every report page
        assertFalse(plain.contains("Memory bandwidth over time") || plain.contains("Frequent kernel sequences"), "not asked, not there");

        Path events = dir.resolve("events.parquet");
        assertEquals(0, cli.run("tables", trace.toString(), "-o", events.toString()), cli.stderr());
        List<Map<String, Object>> bandwidth = TableRows.maps(TableRows.run(events, "memory_bandwidth"));
        List<Map<String, Object>> sequences = TableRows.maps(TableRows.run(events, "kernel_sequences"));
        assertTrue(!bandwidth.isEmpty() && !sequences.isEmpty(), "the trace has copies and repeated kernels");

        assertTrue(page.contains("<h2>Memory bandwidth over time</h2>") && page.contains("id=\"memory-bandwidth\""), "the chart is there");
        long peak = 0;
        for (Map<String, Object> r : bandwidth) {
            peak = Math.max(peak, ((Number) r.get("bytes_per_s")).longValue());
        }
        String label = String.format(Locale.ROOT, "peak %.2f GB/s", peak / 1e9);
        assertTrue(page.contains(">" + label + "</text>"), "the rank's peak is the table's: " + label);
        int kinds = (int) bandwidth.stream().map(r -> r.get("kind")).distinct().count();
        assertEquals(kinds, count(page, "<polyline "), "one line per kind of copy or set");

        assertTrue(page.contains("<h2>Frequent kernel sequences</h2>") && page.contains("id=\"kernel-sequences\""), "the table is there");
        List<String> runs = new ArrayList<>();
        for (Map<String, Object> r : sequences) {
            if (((Number) r.get("place")).longValue() == 1) {
                runs.add(String.valueOf(r.get("occurrences")));
            }
        }
        String table = page.substring(page.indexOf("<table id=\"kernel-sequences\">"));
        table = table.substring(0, table.indexOf("</table>"));
        Matcher m = Pattern.compile("<tr><td>[^<]*</td><td>[^<]*</td><td>[^<]*</td><td>[^<]*</td><td>([0-9]+)</td>").matcher(table);
        List<String> shown = new ArrayList<>();
        while (m.find()) {
            shown.add(m.group(1));
        }
        assertEquals(runs, shown, "one row per stream and length, the most frequent sequence's runs");

        Path pftrace = dir.resolve("t.pftrace");
        Files.writeString(pftrace, "");
        assertEquals(2, cli.run("report", pftrace.toString(), "-o", dir.resolve("p.html").toString(), "--kernel-sequences"));
        assertTrue(cli.stderr().strip().lines().count() == 1 && cli.stderr().contains("--kernel-sequences reads JSON traces"), cli.stderr());
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
