package org.flagos.trace.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.sql.ResultTable;

/**
 * The report's sections drawn from two of analyze's tables (docs/analysis.md), each only when asked
 * for ({@code report --memory-bandwidth}, {@code --kernel-sequences}): "Memory bandwidth over time",
 * per rank a step chart of each kind of copy or set's bytes per second (the memory_bandwidth table),
 * and "Frequent kernel sequences", per rank, device and stream the most frequent run of 2 to 5
 * kernels of each length (kernel_sequences' place 1). Nothing is computed here: the numbers are the
 * tables', so the page and {@code analyze} cannot differ.
 */
final class DeviceAnalysesHtml {
    /** Ranks drawn in the bandwidth section; the others are counted under it. */
    static final int RANKS = 8;

    /** Colours of the kinds of copy and set, in the order first seen. */
    static final String[] COLOURS = {"#3b73b9", "#d9822b", "#3a9e6e", "#7a5ea8", "#c0392b", "#e6b422", "#5d6d7e", "#16a085"};

    private DeviceAnalysesHtml() {
    }

    /** The "Memory bandwidth over time" section of the memory_bandwidth table. */
    static void memoryBandwidth(Html h, ResultTable t) {
        h.raw("<h2>Memory bandwidth over time</h2>\n");
        if (t.rows().isEmpty()) {
            h.raw("<p id=\"memory-bandwidth\" class=\"muted\">").text("No copy or set with bytes and a duration in this trace.")
                    .raw("</p>\n");
            return;
        }
        h.raw("<p class=\"muted\">").text("Per rank, the bytes per second the copies and sets in flight move, by kind (each at its"
                + " bytes over its duration; analyze's memory_bandwidth). Time runs from the rank's first copy or set.").raw("</p>\n");
        Map<Long, Map<String, List<long[]>>> byRank = new LinkedHashMap<>(); // rank -> kind -> {ts, bytes/s}
        Map<String, String> colour = new LinkedHashMap<>();
        for (List<Object> r : t.rows()) {
            long rank = get(t, r, "rank");
            String kind = (String) r.get(t.columns().indexOf("kind"));
            colour.putIfAbsent(kind, COLOURS[colour.size() % COLOURS.length]);
            byRank.computeIfAbsent(rank, k -> new LinkedHashMap<>()).computeIfAbsent(kind, k -> new ArrayList<>())
                    .add(new long[] {get(t, r, "ts_ns"), get(t, r, "bytes_per_s")});
        }
        int label = 90;
        int width = 760;
        int height = 60;
        int gap = 14;
        List<Long> ranks = new ArrayList<>(byRank.keySet());
        ranks.sort(Long::compare);
        int drawn = Math.min(ranks.size(), RANKS);
        h.raw("<svg id=\"memory-bandwidth\" width=\"" + (label + width + 120) + "\" height=\"" + (drawn * (height + gap) + 24) + "\">\n");
        for (int i = 0; i < drawn; i++) {
            Map<String, List<long[]>> kinds = byRank.get(ranks.get(i));
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            long peak = 1;
            for (List<long[]> points : kinds.values()) {
                for (long[] p : points) {
                    first = Math.min(first, p[0]);
                    last = Math.max(last, p[0]);
                    peak = Math.max(peak, p[1]);
                }
            }
            long span = Math.max(last - first, 1);
            int top = i * (height + gap) + 2;
            int base = top + height;
            h.raw("<text x=\"" + (label - 6) + "\" y=\"" + (top + 13) + "\" text-anchor=\"end\">").text("rank " + ranks.get(i)).raw("</text>");
            h.raw("<line x1=\"" + label + "\" y1=\"" + base + "\" x2=\"" + (label + width) + "\" y2=\"" + base + "\" stroke=\"#999\"/>");
            for (Map.Entry<String, List<long[]>> k : kinds.entrySet()) {
                StringBuilder pts = new StringBuilder();
                double y = base;
                for (long[] p : k.getValue()) { // a step chart: the rate holds until the next moment
                    double x = label + (double) (p[0] - first) / span * width;
                    pts.append(KeyAveragesTable.fixed(x, 1)).append(',').append(KeyAveragesTable.fixed(y, 1)).append(' ');
                    y = base - (double) p[1] / peak * height;
                    pts.append(KeyAveragesTable.fixed(x, 1)).append(',').append(KeyAveragesTable.fixed(y, 1)).append(' ');
                }
                h.raw("<polyline fill=\"none\" stroke=\"" + colour.get(k.getKey()) + "\" points=\"" + pts.toString().strip() + "\"><title>")
                        .text(k.getKey()).raw("</title></polyline>");
            }
            h.raw("<text x=\"" + (label + width + 6) + "\" y=\"" + (top + 10) + "\">").text("peak " + rate(peak)).raw("</text>");
            h.raw("<text x=\"" + (label + width + 6) + "\" y=\"" + base + "\">").text(KeyAveragesTable.fixed(span / 1e6, 3) + " ms")
                    .raw("</text>\n");
        }
        int ly = drawn * (height + gap) + 16;
        double lx = label;
        for (Map.Entry<String, String> c : colour.entrySet()) {
            h.raw("<rect x=\"").num(lx).raw("\" y=\"" + (ly - 9) + "\" width=\"10\" height=\"10\" fill=\"" + c.getValue() + "\"/>")
                    .raw("<text x=\"").num(lx + 13).raw("\" y=\"" + ly + "\">").text(c.getKey()).raw("</text>");
            lx += 13 + c.getKey().length() * 6.2 + 12;
        }
        h.raw("\n</svg>\n");
        if (ranks.size() > drawn) {
            h.raw("<p class=\"muted\">").text((ranks.size() - drawn) + " more ranks: analyze's memory_bandwidth lists every rank.")
                    .raw("</p>\n");
        }
    }

    /** The "Frequent kernel sequences" section of the kernel_sequences table. */
    static void kernelSequences(Html h, ResultTable t) {
        h.raw("<h2>Frequent kernel sequences</h2>\n");
        List<List<Object>> first = new ArrayList<>();
        for (List<Object> r : t.rows()) {
            if (get(t, r, "place") == 1) {
                first.add(r);
            }
        }
        if (first.isEmpty()) {
            h.raw("<p id=\"kernel-sequences\" class=\"muted\">").text("No run of kernels repeats on any stream of this trace.")
                    .raw("</p>\n");
            return;
        }
        h.raw("<p class=\"muted\">").text("Per stream, the run of 2 to 5 back-to-back kernels seen most often of each length, with"
                + " the kernels' time and the time from each run's first start to its last end, summed over the runs"
                + " (analyze's kernel_sequences, which also lists the next 9 of each length).").raw("</p>\n");
        h.raw("<table id=\"kernel-sequences\"><tr><th>Rank</th><th>Device</th><th>Stream</th><th>Kernels</th><th>Runs</th>"
                + "<th>Kernel time</th><th>Span</th><th class=\"n\">Sequence</th></tr>\n");
        for (List<Object> r : first) {
            h.raw("<tr><td>").text(String.valueOf(r.get(t.columns().indexOf("rank")))).raw("</td><td>")
                    .text(String.valueOf(r.get(t.columns().indexOf("device")))).raw("</td><td>")
                    .text(String.valueOf(r.get(t.columns().indexOf("stream")))).raw("</td><td>")
                    .text(String.valueOf(get(t, r, "n"))).raw("</td><td>").text(String.valueOf(get(t, r, "occurrences")))
                    .raw("</td><td>").text(KeyAveragesTable.fixed(get(t, r, "kernel_ns") / 1e6, 3) + " ms").raw("</td><td>")
                    .text(KeyAveragesTable.fixed(get(t, r, "span_ns") / 1e6, 3) + " ms").raw("</td><td class=\"n\">");
            String[] names = ((String) r.get(t.columns().indexOf("kernels"))).split(" \\| ");
            for (int i = 0; i < names.length; i++) {
                h.raw(i == 0 ? "" : " &#8594; ").raw("<span title=\"").text(names[i]).raw("\">").text(ShortNames.fit(names[i], 48))
                        .raw("</span>");
            }
            h.raw("</td></tr>\n");
        }
        h.raw("</table>\n");
    }

    private static String rate(long bytesPerS) {
        return KeyAveragesTable.fixed(bytesPerS / 1e9, 2) + " GB/s";
    }

    private static long get(ResultTable t, List<Object> row, String column) {
        return ((Number) row.get(t.columns().indexOf(column))).longValue();
    }
}
