package org.flagos.trace.report;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * One self-contained HTML page about a trace: the op table, where device time goes (top kernels,
 * device time per op, each stream's busy time over the profile) as inline SVG charts, and the
 * capture's loss counts from the trace's {@code flagtrace} block; for a merged trace also its ranks
 * side by side ({@link RanksHtml}). No script, no stylesheet or image
 * to fetch, no link out: it opens the same offline, and it is well-formed XML.
 */
public final class HtmlReport {
    /** Bars per chart. */
    static final int TOP = 15;
    /** Time bins of a stream's strip. */
    static final int BINS = DeviceStreams.BINS;
    /** Rows of the op table. */
    static final int TABLE_ROWS = 60;

    private static final String STYLE = String.join("\n",
            "body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}",
            "h1{font-size:20px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ddd}",
            "table{border-collapse:collapse;font-size:12px}td,th{padding:2px 8px;text-align:right;white-space:nowrap}",
            "td.n,th.n{text-align:left;max-width:520px;overflow:hidden;text-overflow:ellipsis}",
            "tr:nth-child(even){background:#f6f6f6}th{background:#eee}",
            ".loss{color:#b00;font-weight:bold}.muted{color:#777}svg text{font-size:11px}");

    private HtmlReport() {
    }

    /** Writes the page of {@code trace}. */
    public static void write(String title, TraceFile trace, KeyAverages averages, OutputStream out) throws IOException {
        write(title, trace, averages, null, null, out);
    }

    /** Writes the page of a merged trace with its ranks section; without {@code times} (null) the page of any trace. */
    public static void write(String title, TraceFile trace, KeyAverages averages, RankTimes times, RankOps ops, OutputStream out)
            throws IOException {
        out.write(render(title, trace, averages, times, ops).getBytes(StandardCharsets.UTF_8));
    }

    /** The page of {@code trace}. */
    public static String render(String title, TraceFile trace, KeyAverages averages) {
        return render(title, trace, averages, null, null);
    }

    /**
     * The page; with {@code times} and {@code rankOps} (a merged trace's, else both null) a section across
     * its ranks follows the capture's losses ({@link RanksHtml}).
     */
    public static String render(String title, TraceFile trace, KeyAverages averages, RankTimes times, RankOps rankOps) {
        Html h = new Html();
        h.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>flagtrace report: ").text(title)
                .raw("</title><style>").raw(STYLE).raw("</style></head><body>\n<h1>flagtrace report: ").text(title).raw("</h1>\n");
        List<KeyAveragesRow> all = KeyAveragesTable.select(averages, SortKey.SELF_DEVICE_TIME_TOTAL, -1);
        double cpu = KeyAverages.selfCpuTotalUs(all);
        double device = KeyAverages.selfDeviceTotalUs(all);
        h.raw("<p>").text(trace.devices().isEmpty() ? "devices: not named in the trace" : "devices: " + String.join(", ", trace.devices()))
                .raw("<br/>").text(trace.events() + " events summarised; self CPU time total "
                        + KeyAveragesTable.time(cpu) + "; self " + averages.deviceLabel() + " time total " + KeyAveragesTable.time(device))
                .raw("</p>\n");
        losses(h, trace);
        if (times != null) {
            RanksHtml.write(h, times, rankOps);
        }
        List<KeyAveragesRow> kernels = new ArrayList<>();
        List<KeyAveragesRow> ops = new ArrayList<>();
        for (KeyAveragesRow r : all) {
            (r.device() ? kernels : ops).add(r);
        }
        ops.sort(Comparator.comparingDouble(KeyAveragesRow::selfDeviceUs).reversed());
        h.raw("<h2>Top device work (kernels, copies, memsets) by total time</h2>\n");
        bars(h, "top-kernels", kernels, true);
        h.raw("<h2>Device time by op (self: work the op launched itself)</h2>\n");
        bars(h, "device-per-op", ops, false);
        h.raw("<h2>Device streams over time</h2>\n");
        streams(h, trace, trace.streams());
        if (trace.memory().events() > 0) { // a section only where the trace has memory events: other reports keep their bytes
            h.raw("<h2>Device memory over time</h2>\n");
            memory(h, trace.memory());
        }
        h.raw("<h2>Op table</h2>\n");
        table(h, averages);
        h.raw("</body></html>\n");
        return h.toString();
    }

    private static void losses(Html h, TraceFile trace) {
        h.raw("<h2>Capture losses</h2>\n");
        Map<String, Long> counts = trace.accounting();
        if (counts.isEmpty()) {
            h.raw("<p id=\"losses\" class=\"muted\">This trace carries no capture accounting (no <code>flagtrace</code> block:"
                    + " it was not written by flagtrace), so its losses are unknown.</p>\n");
            return;
        }
        long lost = 0;
        h.raw("<table id=\"losses\"><tr><th class=\"n\">count</th><th>value</th></tr>\n");
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            boolean loss = isLoss(e.getKey()) && e.getValue() > 0;
            lost += isLoss(e.getKey()) ? e.getValue() : 0;
            h.raw("<tr><td class=\"n\">").text(e.getKey()).raw("</td><td").raw(loss ? " class=\"loss\"" : "").raw(">")
                    .text(Long.toString(e.getValue())).raw("</td></tr>\n");
        }
        h.raw("</table>\n<p>").text(lost == 0 ? "No record was lost." : lost + " records lost or left out in all (in red).").raw("</p>\n");
        for (String note : trace.notes()) {
            h.raw("<p class=\"muted\">").text(note).raw("</p>\n");
        }
    }

    /** Counts that mean records lost or left out; the other counts say what was decoded and joined. */
    static boolean isLoss(String key) {
        return key.startsWith("dropped_outside_window.") || key.startsWith("skipped_vendor_kinds.")
                || key.equals("invalid_records") || key.equals("undecodable_bytes") || key.equals("incomplete_records")
                || key.equals("vendor_dropped") || key.equals("conflicting_bindings");
    }

    private static void bars(Html h, String id, List<KeyAveragesRow> rows, boolean total) {
        int n = Math.min(TOP, rows.size());
        double max = 0;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, total ? rows.get(i).deviceTotalUs() : rows.get(i).selfDeviceUs());
        }
        if (n == 0 || max <= 0) {
            h.raw("<p id=\"").raw(id).raw("\" class=\"muted\">No device time in this trace.</p>\n");
            return;
        }
        int row = 18;
        int labelWidth = 420;
        int barWidth = 560;
        h.raw("<svg id=\"").raw(id).raw("\" width=\"" + (labelWidth + barWidth + 90) + "\" height=\"" + (n * row + 4) + "\">\n");
        for (int i = 0; i < n; i++) {
            KeyAveragesRow r = rows.get(i);
            double v = total ? r.deviceTotalUs() : r.selfDeviceUs();
            int y = i * row + 2;
            String name = r.name().length() > 64 ? r.name().substring(0, 61) + "..." : r.name();
            h.raw("<g><title>").text(r.name() + ": " + KeyAveragesTable.time(v) + " over " + r.count() + " calls").raw("</title>")
                    .raw("<text x=\"" + (labelWidth - 6) + "\" y=\"" + (y + 12) + "\" text-anchor=\"end\">").text(name).raw("</text>")
                    .raw("<rect x=\"" + labelWidth + "\" y=\"" + y + "\" height=\"" + (row - 4) + "\" width=\"")
                    .num(Math.max(1, v / max * barWidth)).raw("\" fill=\"#3b73b9\"/>")
                    .raw("<text x=\"").num(labelWidth + v / max * barWidth + 4).raw("\" y=\"" + (y + 12) + "\">")
                    .text(KeyAveragesTable.time(v)).raw("</text></g>\n");
        }
        h.raw("</svg>\n");
    }

    /** One strip per device row (device, stream): how busy it was in each slice of the device span. */
    private static void streams(Html h, TraceFile trace, DeviceStreams streams) {
        long lo = streams.startNs();
        long hi = streams.endNs();
        if (lo >= hi || streams.streams().isEmpty()) {
            h.raw("<p id=\"streams\" class=\"muted\">No device work in this trace.</p>\n");
            return;
        }
        double bin = (double) (hi - lo) / BINS;
        int cell = 7;
        int label = 240;
        int count = streams.streams().size();
        int rowH = 20;
        h.raw("<p class=\"muted\">").text("Device span " + KeyAveragesTable.time((hi - lo) / 1000.0) + " in " + BINS
                + " slices of " + KeyAveragesTable.time(bin / 1000.0) + "; darker is busier.").raw("</p>\n");
        h.raw("<svg id=\"streams\" width=\"" + (label + BINS * cell + 130) + "\" height=\"" + (count * rowH + 4) + "\">\n");
        int y = 2;
        for (DeviceStreams.Stream s : streams.streams()) {
            String name = trace.deviceName(s.pid()) + " stream " + s.tid();
            h.raw("<g><text x=\"" + (label - 6) + "\" y=\"" + (y + 13) + "\" text-anchor=\"end\">").text(name).raw("</text>");
            for (int b = 0; b < BINS; b++) {
                double f = Math.min(1, s.busyNs()[b] / bin);
                if (f > 0) {
                    h.raw("<rect x=\"" + (label + b * cell) + "\" y=\"" + y + "\" width=\"" + cell + "\" height=\"" + (rowH - 4)
                            + "\" fill=\"#c0392b\" fill-opacity=\"").raw(KeyAveragesTable.fixed(0.15 + 0.85 * f, 2)).raw("\"/>");
                }
            }
            h.raw("<text x=\"" + (label + BINS * cell + 6) + "\" y=\"" + (y + 13) + "\">")
                    .text("busy " + KeyAveragesTable.fixed(100.0 * s.totalNs() / (hi - lo), 1) + "%").raw("</text></g>\n");
            y += rowH;
        }
        h.raw("</svg>\n");
    }

    /** Per device, the total allocated over time as a step line, when the trace has {@code [memory]} events. */
    private static void memory(Html h, MemoryTimeline memory) {
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (MemoryTimeline.Series s : memory.devices().values()) {
            for (int i = 0; i < s.size; i++) {
                lo = Math.min(lo, s.ts[i]);
                hi = Math.max(hi, s.ts[i]);
            }
        }
        int width = 700;
        int label = 240;
        int rowH = 90;
        double span = Math.max(1, hi - lo);
        h.raw("<p class=\"muted\">").text(memory.events() + " memory events over " + KeyAveragesTable.time(span / 1000.0)
                + "; each line is the total allocated after each event, from 0 to the device's peak.").raw("</p>\n");
        h.raw("<svg id=\"memory\" width=\"" + (label + width + 130) + "\" height=\"" + (memory.devices().size() * rowH + 4) + "\">\n");
        int y = 2;
        for (Map.Entry<String, MemoryTimeline.Series> e : memory.devices().entrySet()) {
            MemoryTimeline.Series s = e.getValue();
            Integer[] order = new Integer[s.size];
            for (int i = 0; i < s.size; i++) {
                order[i] = i;
            }
            Arrays.sort(order, Comparator.comparingLong(i -> s.ts[i]));
            double peak = Math.max(1, s.peak);
            int base = y + rowH - 10;
            StringBuilder points = new StringBuilder();
            double lastY = base;
            points.append(label).append(',').append(base);
            for (int i : order) {
                double x = label + width * ((s.ts[i] - lo) / span);
                double yy = base - (rowH - 20) * (s.total[i] / peak);
                points.append(' ').append(KeyAveragesTable.fixed(x, 1)).append(',').append(KeyAveragesTable.fixed(lastY, 1));
                points.append(' ').append(KeyAveragesTable.fixed(x, 1)).append(',').append(KeyAveragesTable.fixed(yy, 1));
                lastY = yy;
            }
            points.append(' ').append(label + width).append(',').append(KeyAveragesTable.fixed(lastY, 1));
            h.raw("<g><text x=\"" + (label - 6) + "\" y=\"" + (y + rowH / 2) + "\" text-anchor=\"end\">").text(e.getKey()).raw("</text>");
            h.raw("<line x1=\"" + label + "\" y1=\"" + base + "\" x2=\"" + (label + width) + "\" y2=\"" + base + "\" stroke=\"#999\"/>");
            h.raw("<polyline fill=\"none\" stroke=\"#2c7fb8\" points=\"").raw(points.toString()).raw("\"/>");
            h.raw("<text x=\"" + (label + width + 6) + "\" y=\"" + (y + 14) + "\">").text("peak " + bytes(s.peak)).raw("</text></g>\n");
            y += rowH;
        }
        h.raw("</svg>\n");
    }

    private static String bytes(long b) {
        if (b >= 1L << 30) {
            return KeyAveragesTable.fixed(b / (double) (1L << 30), 2) + " GiB";
        }
        if (b >= 1L << 20) {
            return KeyAveragesTable.fixed(b / (double) (1L << 20), 2) + " MiB";
        }
        return b >= 1L << 10 ? KeyAveragesTable.fixed(b / 1024.0, 2) + " KiB" : b + " B";
    }

    private static void table(Html h, KeyAverages averages) {
        List<KeyAveragesRow> rows = KeyAveragesTable.select(averages, SortKey.SELF_DEVICE_TIME_TOTAL, TABLE_ROWS);
        String d = averages.deviceLabel();
        h.raw("<table id=\"ops\"><tr><th class=\"n\">Name</th><th>Self CPU</th><th>CPU total</th><th>CPU time avg</th><th>Self ")
                .text(d).raw("</th><th>").text(d).raw(" total</th><th>").text(d).raw(" time avg</th><th># of Calls</th></tr>\n");
        for (KeyAveragesRow r : rows) {
            h.raw("<tr><td class=\"n\">").text(r.name()).raw("</td><td>").text(KeyAveragesTable.time(r.selfCpuUs()))
                    .raw("</td><td>").text(KeyAveragesTable.time(r.cpuTotalUs()))
                    .raw("</td><td>").text(KeyAveragesTable.time(r.cpuAvgUs()))
                    .raw("</td><td>").text(KeyAveragesTable.time(r.selfDeviceUs()))
                    .raw("</td><td>").text(KeyAveragesTable.time(r.deviceTotalUs()))
                    .raw("</td><td>").text(KeyAveragesTable.time(r.deviceAvgUs()))
                    .raw("</td><td>").text(Long.toString(r.count())).raw("</td></tr>\n");
        }
        h.raw("</table>\n");
        if (averages.rows().size() > rows.size()) {
            h.raw("<p class=\"muted\">").text((averages.rows().size() - rows.size()) + " more rows: ./flagtrace summary prints them all.")
                    .raw("</p>\n");
        }
    }
}
