package org.flagos.trace.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.sql.ResultTable;

/**
 * The report's "Critical path" section ({@code report --critical-path}): per rank, the critical
 * path's length split by category as one stacked bar (the ranks on one scale, the straggler's over
 * the median said beside it), and the events that weigh most on the path. Drawn from the
 * critical_path and critical_path_segments tables (docs/analysis.md, "Critical path").
 */
final class CriticalPathHtml {
    /** The categories of critical_path, in the bar's order, with their colour and words. */
    static final String[][] PARTS = {
        {"cpu_ns", "#7a5ea8", "host calls"},
        {"computation_ns", "#3b73b9", "computation"},
        {"communication_ns", "#d9822b", "communication"},
        {"memory_ns", "#3a9e6e", "copies and sets"},
        {"launch_delay_ns", "#c0392b", "launch delay"},
        {"kernel_gap_ns", "#e6b422", "gaps between device work"},
        {"waiting_ns", "#cccccc", "waiting (not on the path's weight)"},
    };

    /** Events listed under the bars. */
    static final int TOP = 10;

    private CriticalPathHtml() {
    }

    static void write(Html h, ResultTable summary, ResultTable segments) {
        h.raw("<h2>Critical path</h2>\n");
        if (summary.rows().isEmpty()) {
            h.raw("<p id=\"critical-path\" class=\"muted\">").text("No host call or device work to make a path of in this trace.")
                    .raw("</p>\n");
            return;
        }
        h.raw("<p class=\"muted\">").text("The longest chain of dependent host calls, launches, device work and syncs"
                + " (Holistic Trace Analysis's critical path): time off this chain does not shorten the run. Per rank, its"
                + " length split by what it was spent on; grey is the path's span its weight leaves out (gaps between top-level"
                + " host calls, syncs the device work on the path does not cover).").raw("</p>\n");
        long max = 0;
        for (List<Object> r : summary.rows()) {
            max = Math.max(max, get(summary, r, "end_ns") - get(summary, r, "start_ns"));
        }
        int row = 20;
        int label = 90;
        int width = 760;
        int n = summary.rows().size();
        h.raw("<svg id=\"critical-path\" width=\"" + (label + width + 260) + "\" height=\"" + (n * row + 24) + "\">\n");
        for (int i = 0; i < n; i++) {
            List<Object> r = summary.rows().get(i);
            int y = i * row + 2;
            double x = label;
            h.raw("<text x=\"" + (label - 6) + "\" y=\"" + (y + 13) + "\" text-anchor=\"end\">").text("rank " + r.get(0)).raw("</text>");
            for (String[] p : PARTS) {
                long v = get(summary, r, p[0]);
                if (v <= 0) {
                    continue;
                }
                double w = max == 0 ? 0 : (double) v / max * width;
                h.raw("<rect x=\"").num(x).raw("\" y=\"" + y + "\" height=\"" + (row - 4) + "\" width=\"").num(Math.max(w, 0.5))
                        .raw("\" fill=\"" + p[1] + "\"><title>").text(p[2] + ": " + ms(v)).raw("</title></rect>");
                x += w;
            }
            long over = get(summary, r, "over_median_ns");
            h.raw("<text x=\"").num(x + 4).raw("\" y=\"" + (y + 13) + "\">")
                    .text(ms(get(summary, r, "length_ns")) + (n > 1 && over > 0 ? ", " + ms(over) + " over the median rank" : ""))
                    .raw("</text>\n");
        }
        int ly = n * row + 16;
        double lx = label;
        for (String[] p : PARTS) {
            h.raw("<rect x=\"").num(lx).raw("\" y=\"" + (ly - 9) + "\" width=\"10\" height=\"10\" fill=\"" + p[1] + "\"/>")
                    .raw("<text x=\"").num(lx + 13).raw("\" y=\"" + ly + "\">").text(p[2]).raw("</text>");
            lx += 13 + p[2].length() * 6.2 + 12;
        }
        h.raw("\n</svg>\n");
        top(h, segments);
    }

    /** The events with the most time on the path, over every rank: name, category, time, edges. */
    private static void top(Html h, ResultTable segments) {
        Map<String, long[]> by = new HashMap<>();
        Map<String, String[]> what = new HashMap<>();
        for (List<Object> r : segments.rows()) {
            long w = get(segments, r, "weight_ns");
            Object name = r.get(segments.columns().indexOf("name"));
            if (w <= 0 || name == null) {
                continue;
            }
            String category = (String) r.get(segments.columns().indexOf("category"));
            String key = category + "\u0000" + name;
            long[] s = by.computeIfAbsent(key, k -> new long[2]);
            s[0] += w;
            s[1]++;
            what.put(key, new String[] {(String) name, category});
        }
        List<String> keys = new ArrayList<>(by.keySet());
        keys.sort((a, b) -> by.get(a)[0] != by.get(b)[0] ? Long.compare(by.get(b)[0], by.get(a)[0]) : a.compareTo(b));
        if (keys.isEmpty()) {
            return;
        }
        h.raw("<table id=\"critical-path-top\"><tr><th class=\"n\">on the path (every rank)</th><th class=\"n\">category</th>"
                + "<th>time</th><th>edges</th></tr>\n");
        for (String k : keys.subList(0, Math.min(TOP, keys.size()))) {
            h.raw("<tr><td class=\"n\">").text(what.get(k)[0]).raw("</td><td class=\"n\">").text(what.get(k)[1]).raw("</td><td>")
                    .text(ms(by.get(k)[0])).raw("</td><td>").text(Long.toString(by.get(k)[1])).raw("</td></tr>\n");
        }
        h.raw("</table>\n");
        if (keys.size() > TOP) {
            h.raw("<p class=\"muted\">").text((keys.size() - TOP) + " more names on the path: analyze's critical_path_segments lists"
                    + " every edge.").raw("</p>\n");
        }
    }

    private static long get(ResultTable t, List<Object> row, String column) {
        Object v = row.get(t.columns().indexOf(column));
        return v == null ? 0 : (Long) v;
    }

    /** ns as ms with three decimals. */
    static String ms(long ns) {
        return String.format(java.util.Locale.ROOT, "%.3f ms", ns / 1e6);
    }
}
