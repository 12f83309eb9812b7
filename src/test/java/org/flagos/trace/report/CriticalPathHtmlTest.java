package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.flagos.trace.sql.ResultTable;
import org.flagos.trace.testing.HtmlPages;
import org.junit.jupiter.api.Test;

/**
 * The "Critical path" section from critical_path and critical_path_segments rows of fixed values: each
 * rank's bar split by category on one scale (the longest span is the full width), the length and
 * the straggler's time over the median beside it, and the names weighing most on the path, summed
 * over ranks, heaviest first, at most {@link CriticalPathHtml#TOP}.
 */
class CriticalPathHtmlTest {
    private static final List<String> SUMMARY = List.of("rank", "start_ns", "end_ns", "length_ns", "cpu_ns", "computation_ns",
            "communication_ns", "memory_ns", "launch_delay_ns", "kernel_gap_ns", "waiting_ns", "edges", "over_median_ns");
    private static final List<String> SEGMENTS = List.of("rank", "seq", "type", "category", "name", "pid", "tid", "device",
            "stream", "start_ns", "end_ns", "weight_ns", "on_rank");

    private static List<Object> rank(long rank, long start, long end, long length, Long... parts) {
        List<Object> r = new ArrayList<>(List.of(rank, start, end, length));
        r.addAll(Arrays.asList(parts)); // cpu .. kernel_gap, waiting, edges, over_median
        return r;
    }

    private static List<Object> segment(long rank, String category, String name, long weight) {
        return Arrays.asList(rank, 0L, "x", category, name, 1L, 1L, null, null, 0L, weight, weight, 1L);
    }

    private static String page(ResultTable summary, ResultTable segments) throws Exception {
        Html h = new Html();
        CriticalPathHtml.write(h, summary, segments);
        String html = h.toString();
        HtmlPages.parse("<div>" + html + "</div>"); // well-formed whatever the names
        return html;
    }

    @Test
    void barsShareOneScaleAndSayTheLengthAndTheStragglersTime() throws Exception {
        ResultTable summary = new ResultTable("critical_path", SUMMARY, List.of(
                // rank 0: a 10 ms span, 8 ms on the path: 2 host, 4 computation, 1 memory, 1 gap; 2 ms waiting
                rank(0, 0, 10_000_000, 8_000_000, 2_000_000L, 4_000_000L, 0L, 1_000_000L, 0L, 1_000_000L, 2_000_000L, 7L, 3_000_000L),
                // rank 1: a 5 ms span, all host calls; launch delay unknown (NULL)
                rank(1, 5, 5_000_005, 5_000_000, 5_000_000L, 0L, 0L, 0L, null, 0L, 0L, 2L, -3_000_000L)));
        String html = page(summary, new ResultTable("critical_path_segments", SEGMENTS, List.of()));
        assertTrue(html.contains("<svg id=\"critical-path\" width=\"1110\" height=\"64\">"), html);
        // rank 0: 152 + 304 + 76 + 76 + 152 px of 760 (10 ms), in PARTS' order, none for the empty ones
        assertTrue(html.contains("<rect x=\"90.0\" y=\"2\" height=\"16\" width=\"152.0\" fill=\"#7a5ea8\"><title>host calls: 2.000 ms</title></rect>"
                + "<rect x=\"242.0\" y=\"2\" height=\"16\" width=\"304.0\" fill=\"#3b73b9\"><title>computation: 4.000 ms</title></rect>"
                + "<rect x=\"546.0\" y=\"2\" height=\"16\" width=\"76.0\" fill=\"#3a9e6e\"><title>copies and sets: 1.000 ms</title></rect>"
                + "<rect x=\"622.0\" y=\"2\" height=\"16\" width=\"76.0\" fill=\"#e6b422\"><title>gaps between device work: 1.000 ms</title></rect>"
                + "<rect x=\"698.0\" y=\"2\" height=\"16\" width=\"152.0\" fill=\"#cccccc\"><title>waiting (not on the path&#39;s weight): 2.000 ms</title></rect>"
                + "<text x=\"854.0\" y=\"15\">8.000 ms, 3.000 ms over the median rank</text>"), html);
        // rank 1: half the scale, and under the median: nothing said
        assertTrue(html.contains("<text x=\"84\" y=\"35\" text-anchor=\"end\">rank 1</text>"
                + "<rect x=\"90.0\" y=\"22\" height=\"16\" width=\"380.0\" fill=\"#7a5ea8\"><title>host calls: 5.000 ms</title></rect>"
                + "<text x=\"474.0\" y=\"35\">5.000 ms</text>"), html);
        assertEquals(7, count(html, "<rect x=\"") - 5 - 1, "a legend square per category");
        assertFalse(html.contains("critical-path-top"), "no segment: no table");

        // one rank alone is its own median: no straggler words even when over_median is positive
        String one = page(new ResultTable("critical_path", SUMMARY, List.of(summary.rows().get(0))),
                new ResultTable("critical_path_segments", SEGMENTS, List.of()));
        assertTrue(one.contains(">8.000 ms</text>") && !one.contains("over the median"), one);
    }

    @Test
    void theHeaviestNamesSummedOverRanksAtMostTen() throws Exception {
        List<List<Object>> rows = new ArrayList<>();
        rows.add(segment(0, "computation", "gemm<float>", 4_000_000));
        rows.add(segment(1, "computation", "gemm<float>", 1_500_000)); // same name, another rank: summed, 2 edges
        rows.add(segment(0, "cpu", "gemm<float>", 9_000_000)); // same name, another category: its own row
        rows.add(segment(0, "cpu", null, 99_000_000)); // no name: left out
        rows.add(segment(0, "cpu", "idle", 0)); // no weight: left out
        for (int i = 0; i < 10; i++) {
            rows.add(segment(i % 2, "memory", "copy " + i, 1_000_000)); // ties: by category then name
        }
        ResultTable summary = new ResultTable("critical_path", SUMMARY, List.<List<Object>>of(
                rank(0, 0, 1000, 1000, 1000L, 0L, 0L, 0L, 0L, 0L, 0L, 1L, 0L)));
        String html = page(summary, new ResultTable("critical_path_segments", SEGMENTS, rows));
        String table = html.substring(html.indexOf("<table id=\"critical-path-top\">"), html.indexOf("</table>"));
        List<String> shown = new ArrayList<>();
        for (String line : table.split("\n")) {
            if (line.startsWith("<tr><td")) {
                shown.add(line.replaceAll("<[^>]+>", "|").replaceAll("\\|+", "|"));
            }
        }
        assertEquals(List.of("|gemm&lt;float&gt;|cpu|9.000 ms|1|", "|gemm&lt;float&gt;|computation|5.500 ms|2|",
                "|copy 0|memory|1.000 ms|1|", "|copy 1|memory|1.000 ms|1|", "|copy 2|memory|1.000 ms|1|",
                "|copy 3|memory|1.000 ms|1|", "|copy 4|memory|1.000 ms|1|", "|copy 5|memory|1.000 ms|1|",
                "|copy 6|memory|1.000 ms|1|", "|copy 7|memory|1.000 ms|1|"), shown);
        assertTrue(html.contains("<p class=\"muted\">2 more names on the path: analyze&#39;s critical_path_segments lists every edge.</p>"), html);
    }

    @Test
    void anEmptyPathSaysSoAndDrawsNothing() throws Exception {
        String html = page(new ResultTable("critical_path", SUMMARY, List.of()),
                new ResultTable("critical_path_segments", SEGMENTS, List.<List<Object>>of(segment(0, "cpu", "a", 5))));
        assertEquals("<h2>Critical path</h2>\n<p id=\"critical-path\" class=\"muted\">No host call or device work to make a path of"
                + " in this trace.</p>\n", html);
        assertEquals("0.000 ms", CriticalPathHtml.ms(0));
        assertEquals("1.234 ms", CriticalPathHtml.ms(1_234_499));
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
