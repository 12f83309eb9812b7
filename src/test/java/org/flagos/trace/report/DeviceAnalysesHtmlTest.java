package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.flagos.trace.sql.ResultTable;
import org.flagos.trace.testing.HtmlPages;
import org.junit.jupiter.api.Test;

/**
 * The report's "Memory bandwidth over time" and "Frequent kernel sequences" sections from
 * memory_bandwidth and kernel_sequences rows of fixed values: the step chart's points exactly (each
 * rank on its own time and rate scale, ranks in numeric order, a colour per kind in the order first
 * seen, at most {@link DeviceAnalysesHtml#RANKS} drawn), and one table row per place-1 sequence.
 */
class DeviceAnalysesHtmlTest {
    private static final List<String> BANDWIDTH = List.of("rank", "kind", "ts_ns", "in_flight", "bytes_per_s");
    private static final List<String> SEQUENCES = List.of("rank", "device", "stream", "n", "place", "occurrences", "kernel_ns",
            "span_ns", "kernels");

    private static List<Object> rate(long rank, String kind, long ts, long bytesPerS) {
        return List.of(rank, kind, ts, bytesPerS == 0 ? 0L : 1L, bytesPerS);
    }

    /** One section drawn from {@code rows} under {@code columns}; the page must parse as HTML. */
    private static String section(BiConsumer<Html, ResultTable> draw, String table, List<String> columns,
            List<List<Object>> rows) throws Exception {
        Html h = new Html();
        draw.accept(h, new ResultTable(table, columns, rows));
        String html = h.toString();
        HtmlPages.parse("<div>" + html + "</div>");
        return html;
    }

    private static String bandwidth(List<List<Object>> rows) throws Exception {
        return section(DeviceAnalysesHtml::memoryBandwidth, "memory_bandwidth", BANDWIDTH, rows);
    }

    private static String sequences(List<List<Object>> rows) throws Exception {
        return section(DeviceAnalysesHtml::kernelSequences, "kernel_sequences", SEQUENCES, rows);
    }

    @Test
    void eachRankIsAStepChartOnItsOwnScale() throws Exception {
        String html = bandwidth(List.of(
                rate(10, "HtoD", 1_000, 2_000_000_000L), rate(10, "HtoD", 3_000, 0),
                rate(10, "Memset <dev>", 2_000, 1_000_000_000L), rate(10, "Memset <dev>", 2_500, 0),
                rate(2, "HtoD", 0, 4_000_000_000L), rate(2, "HtoD", 1_000_000, 0)));
        assertTrue(html.contains("<svg id=\"memory-bandwidth\" width=\"970\" height=\"172\">"), html);
        // rank 2 before rank 10 (numbers, not text): 1 ms wide, peak 4 GB/s at the top of its 60 px
        int two = html.indexOf(">rank 2</text>");
        int ten = html.indexOf(">rank 10</text>");
        assertTrue(two > 0 && ten > two, html);
        assertTrue(html.contains("<polyline fill=\"none\" stroke=\"#3b73b9\" points=\"90.0,62.0 90.0,2.0 850.0,2.0 850.0,62.0\">"
                + "<title>HtoD</title></polyline><text x=\"856\" y=\"12\">peak 4.00 GB/s</text><text x=\"856\" y=\"62\">1.000 ms</text>"), html);
        // rank 10: 2 us from its first copy, peak 2 GB/s; the memset at 1 GB/s rises half way, at the middle
        assertTrue(html.contains("<polyline fill=\"none\" stroke=\"#3b73b9\" points=\"90.0,136.0 90.0,76.0 850.0,76.0 850.0,136.0\">"), html);
        assertTrue(html.contains("<polyline fill=\"none\" stroke=\"#d9822b\" points=\"470.0,136.0 470.0,106.0 660.0,106.0 660.0,136.0\">"
                + "<title>Memset &lt;dev&gt;</title></polyline>"), html);
        assertTrue(html.contains(">peak 2.00 GB/s</text>") && html.contains(">0.002 ms</text>"), html);
        // the legend: one square per kind, in the order first seen
        assertTrue(html.indexOf("fill=\"#3b73b9\"/><text x=\"103.0\" y=\"164\">HtoD</text>") > 0, html);
        assertTrue(html.indexOf("fill=\"#d9822b\"/><text x=\"") > 0, html);
        assertFalse(html.contains("more ranks"), html);
    }

    @Test
    void pastEightRanksTheRestAreCountedAndColoursCycle() throws Exception {
        List<List<Object>> rows = new ArrayList<>();
        for (int r = 0; r < 11; r++) {
            rows.add(rate(r, "kind " + r, 0, 1_000));
            rows.add(rate(r, "kind " + r, 10, 0));
        }
        String html = bandwidth(rows);
        assertEquals(8, html.split("<polyline ").length - 1, "8 ranks drawn");
        assertTrue(html.contains(">rank 7</text>") && !html.contains(">rank 8</text>"), html);
        assertTrue(html.contains("<p class=\"muted\">3 more ranks: analyze&#39;s memory_bandwidth lists every rank.</p>"), html);
        // the legend names every kind, drawn or not: the 9th takes the first colour again
        assertTrue(html.split("fill=\"#3b73b9\"/>").length - 1 == 2, "kinds 0 and 8 share a colour: " + html);
    }

    @Test
    void emptyTablesSaySo() throws Exception {
        assertEquals("<h2>Memory bandwidth over time</h2>\n<p id=\"memory-bandwidth\" class=\"muted\">No copy or set with bytes and"
                + " a duration in this trace.</p>\n", bandwidth(List.of()));
        assertEquals("<h2>Frequent kernel sequences</h2>\n<p id=\"kernel-sequences\" class=\"muted\">No run of kernels repeats on any"
                + " stream of this trace.</p>\n", sequences(List.of()));
        // rows but no place 1 (cannot come from analyze, but the page says the same)
        assertTrue(sequences(List.of(List.of(0L, 0L, 7L, 2L, 2L, 3L, 10L, 20L, "a | b"))).contains("No run of kernels repeats"));
    }

    @Test
    void onlyEachLengthsMostFrequentSequenceIsARow() throws Exception {
        String longName = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
        String html = sequences(List.of(
                List.of(0L, 0L, 7L, 2L, 1L, 12L, 3_000_000L, 4_500_000L, "gemm | " + longName),
                List.of(0L, 0L, 7L, 2L, 2L, 5L, 1_000_000L, 2_000_000L, "a | b"),
                List.of(3L, 1L, 13L, 3L, 1L, 4L, 1_234L, 9_999_999L, "x<1> | y & z | x<1>")));
        String table = html.substring(html.indexOf("<table id=\"kernel-sequences\">"));
        assertEquals(3, table.split("<tr>").length - 1, "a header and the two place-1 rows");
        assertTrue(table.contains("<tr><td>0</td><td>0</td><td>7</td><td>2</td><td>12</td><td>3.000 ms</td><td>4.500 ms</td>"
                + "<td class=\"n\"><span title=\"gemm\">gemm</span> &#8594; <span title=\"void at::native::vectorized_elementwise_kernel&lt;4,"), table);
        assertTrue(table.contains(">" + ShortNames.fit(longName, 48).replace("<", "&lt;").replace(">", "&gt;") + "</span></td></tr>"), table);
        assertTrue(ShortNames.fit(longName, 48).length() <= 48);
        assertTrue(table.contains("<tr><td>3</td><td>1</td><td>13</td><td>3</td><td>4</td><td>0.001 ms</td><td>10.000 ms</td>"
                + "<td class=\"n\"><span title=\"x&lt;1&gt;\">x&lt;1&gt;</span> &#8594; <span title=\"y &amp; z\">y &amp; z</span>"
                + " &#8594; <span title=\"x&lt;1&gt;\">x&lt;1&gt;</span></td></tr>"), table);
        assertFalse(table.contains(">a</span>"), "place 2 is analyze's, not the page's");
    }
}
