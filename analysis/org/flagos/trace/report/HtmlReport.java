package org.flagos.trace.report;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.flagos.trace.sql.ResultTable;

/**
 * One self-contained HTML page about a trace, findings first: for a merged trace its ranks side by
 * side ({@link RanksHtml}); where device time goes (top kernels, device time per op, each stream's
 * busy time over the profile) as inline SVG charts; the op table; and last the capture's losses from
 * the trace's {@code flagtrace} block: one line when nothing was lost, the counts behind a fold (a
 * loss is also said under the title, since every number above misses it). No script, no stylesheet
 * or image to fetch, no link out: it opens the same offline, and it is well-formed XML.
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
            ".loss{color:#b00;font-weight:bold}.muted{color:#777}svg text{font-size:11px}",
            "details{margin:6px 0}summary{cursor:pointer;color:#555}");

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

    /** As {@link #write(String, TraceFile, KeyAverages, RankTimes, RankOps, OutputStream)}, with the critical path's section (or null). */
    public static void write(String title, TraceFile trace, KeyAverages averages, RankTimes times, RankOps ops, ResultTable[] criticalPath,
            OutputStream out) throws IOException {
        write(title, trace, averages, times, ops, criticalPath, null, null, out);
    }

    /**
     * As {@link #write(String, TraceFile, KeyAverages, RankTimes, RankOps, ResultTable[], OutputStream)}, with
     * the sections of analyze's memory_bandwidth and kernel_sequences tables (each, or null for none).
     */
    public static void write(String title, TraceFile trace, KeyAverages averages, RankTimes times, RankOps ops, ResultTable[] criticalPath,
            ResultTable memoryBandwidth, ResultTable kernelSequences, OutputStream out) throws IOException {
        out.write(render(title, trace, averages, times, ops, criticalPath, memoryBandwidth, kernelSequences)
                .getBytes(StandardCharsets.UTF_8));
    }

    /** The page of {@code trace}. */
    public static String render(String title, TraceFile trace, KeyAverages averages) {
        return render(title, trace, averages, null, null);
    }

    /**
     * The page; with {@code times} and {@code rankOps} (a merged trace's, else both null) a section across
     * its ranks comes first ({@link RanksHtml}).
     */
    public static String render(String title, TraceFile trace, KeyAverages averages, RankTimes times, RankOps rankOps) {
        return render(title, trace, averages, times, rankOps, null);
    }

    /**
     * As {@link #render(String, TraceFile, KeyAverages, RankTimes, RankOps)}; with {@code criticalPath} (the
     * critical_path and critical_path_segments tables of the trace, or null) a "Critical path" section
     * follows the ranks' ({@link CriticalPathHtml}).
     */
    public static String render(String title, TraceFile trace, KeyAverages averages, RankTimes times, RankOps rankOps,
            ResultTable[] criticalPath) {
        return render(title, trace, averages, times, rankOps, criticalPath, null, null);
    }

    /**
     * As {@link #render(String, TraceFile, KeyAverages, RankTimes, RankOps, ResultTable[])}; with
     * {@code memoryBandwidth} and {@code kernelSequences} (analyze's tables of the trace, each or null) a
     * "Memory bandwidth over time" and a "Frequent kernel sequences" section after the streams'
     * ({@link DeviceAnalysesHtml}).
     */
    public static String render(String title, TraceFile trace, KeyAverages averages, RankTimes times, RankOps rankOps,
            ResultTable[] criticalPath, ResultTable memoryBandwidth, ResultTable kernelSequences) {
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
        long lost = lost(trace.accounting());
        if (lost > 0) { // the numbers below miss these: said before them, counted at the end
            h.raw("<p class=\"loss\">").text(lost + " records were lost or left out by the capture: every number below misses"
                    + " them (Capture losses, at the end, says which).").raw("</p>\n");
        }
        if (times != null) {
            RanksHtml.write(h, times, rankOps);
        }
        if (criticalPath != null) {
            CriticalPathHtml.write(h, criticalPath[0], criticalPath[1]);
        }
        List<KeyAveragesRow> kernels = new ArrayList<>();
        List<KeyAveragesRow> ops = new ArrayList<>();
        for (KeyAveragesRow r : all) {
            (r.device() ? kernels : ops).add(r);
        }
        List<KeyAveragesRow> launching = launching(ops);
        h.raw("<h2>Top device work (kernels, copies, memsets) by total time</h2>\n");
        bars(h, "top-kernels", kernels, true, "No device time in this trace.");
        if (!trace.deviceWorkStats().isEmpty()) {
            h.raw("<h2>Device work statistics</h2>\n");
            deviceWorkStats(h, trace.deviceWorkStats());
        }
        if (!trace.collectives().isEmpty()) {
            h.raw("<h2>Collectives</h2>\n");
            collectives(h, trace.collectives());
        }
        h.raw("<h2>Device time by op (self: work the op launched itself)</h2>\n");
        bars(h, "device-per-op", launching, false, kernels.isEmpty() ? "No device time in this trace."
                : "No op has device time of its own in this trace (no device work was joined to an op).");
        if (!launching.isEmpty() && ops.size() > launching.size()) {
            h.raw("<p class=\"muted\">").text((ops.size() - launching.size()) + " more names (runtime calls, and ops whose device"
                    + " work their children launched) have no device time of their own; the op table lists them.").raw("</p>\n");
        }
        h.raw("<h2>Device streams over time</h2>\n");
        streams(h, trace, trace.streams());
        if (memoryBandwidth != null) {
            DeviceAnalysesHtml.memoryBandwidth(h, memoryBandwidth);
        }
        if (kernelSequences != null) {
            DeviceAnalysesHtml.kernelSequences(h, kernelSequences);
        }
        if (trace.memory().events() > 0) { // a section only where the trace has memory events: other reports keep their bytes
            h.raw("<h2>Device memory over time</h2>\n");
            memory(h, trace.memory());
        }
        h.raw("<h2>Op table</h2>\n");
        table(h, averages);
        losses(h, trace);
        h.raw("</body></html>\n");
        return h.toString();
    }

    /**
     * Names with device time of their own, most first: what "device time by op" draws. A runtime call
     * (cudaMalloc, cudaLaunchKernel) or an op whose kernels its children launched has none, and a bar of
     * zero says nothing; the op table keeps every row.
     */
    static List<KeyAveragesRow> launching(List<KeyAveragesRow> ops) {
        List<KeyAveragesRow> out = new ArrayList<>();
        for (KeyAveragesRow r : ops) {
            if (r.selfDeviceUs() > 0) {
                out.add(r);
            }
        }
        out.sort(Comparator.comparingDouble(KeyAveragesRow::selfDeviceUs).reversed());
        return out;
    }

    /** Records lost or left out in all, by the counts {@link #isLoss} names (a sum that stops at Long.MAX_VALUE). */
    static long lost(Map<String, Long> counts) {
        long lost = 0;
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            long v = e.getValue();
            if (isLoss(e.getKey()) && v > 0) {
                lost = v > Long.MAX_VALUE - lost ? Long.MAX_VALUE : lost + v;
            }
        }
        return lost;
    }

    /**
     * The last section: one line when nothing was lost (or when the trace carries no accounting), else the
     * counts that lost records; every count of the capture behind a fold.
     */
    private static void losses(Html h, TraceFile trace) {
        h.raw("<h2>Capture losses</h2>\n");
        Map<String, Long> counts = trace.accounting();
        if (counts.isEmpty()) {
            h.raw("<p id=\"losses\" class=\"muted\">This trace carries no capture accounting (no <code>flagtrace</code> block:"
                    + " it was not written by flagtrace), so its losses are unknown.</p>\n");
            return;
        }
        long lost = lost(counts);
        if (lost == 0) {
            h.raw("<p id=\"losses\">No record was lost.</p>\n");
        } else {
            h.raw("<p class=\"loss\">").text(lost + " records lost or left out in all:").raw("</p>\n");
            h.raw("<table id=\"losses\"><tr><th class=\"n\">count</th><th>value</th></tr>\n");
            for (Map.Entry<String, Long> e : counts.entrySet()) {
                if (isLoss(e.getKey()) && e.getValue() > 0) {
                    h.raw("<tr><td class=\"n\">").text(e.getKey()).raw("</td><td class=\"loss\">").text(Long.toString(e.getValue()))
                            .raw("</td></tr>\n");
                }
            }
            h.raw("</table>\n");
        }
        for (String note : trace.notes()) {
            h.raw("<p class=\"muted\">").text(note).raw("</p>\n");
        }
        h.raw("<details><summary>").text("All " + counts.size() + " counts of the capture (what was decoded, joined, kept and lost)")
                .raw("</summary>\n<table id=\"counts\"><tr><th class=\"n\">count</th><th>value</th></tr>\n");
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            boolean loss = isLoss(e.getKey()) && e.getValue() > 0;
            h.raw("<tr><td class=\"n\">").text(e.getKey()).raw("</td><td").raw(loss ? " class=\"loss\"" : "").raw(">")
                    .text(Long.toString(e.getValue())).raw("</td></tr>\n");
        }
        h.raw("</table></details>\n");
    }

    /** Counts that mean records lost or left out; the other counts say what was decoded and joined. */
    static boolean isLoss(String key) {
        return key.startsWith("dropped_outside_window.") || key.startsWith("skipped_vendor_kinds.")
                || key.equals("invalid_records") || key.equals("undecodable_bytes") || key.equals("incomplete_records")
                || key.equals("unwritten_bytes")
                || key.equals("vendor_dropped") || key.equals("conflicting_bindings");
    }

    private static void bars(Html h, String id, List<KeyAveragesRow> rows, boolean total, String none) {
        int n = Math.min(TOP, rows.size());
        double max = 0;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, total ? rows.get(i).deviceTotalUs() : rows.get(i).selfDeviceUs());
        }
        if (n == 0 || max <= 0) {
            h.raw("<p id=\"").raw(id).raw("\" class=\"muted\">").text(none).raw("</p>\n");
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

    /**
     * One strip per device row (device, stream): in each slice of the shown time, a bar as high as the
     * share of the slice the stream was busy. Idle stretches of every stream that {@link DeviceStreams}
     * cut out are marked where they were, with their length, and the axis under the strips gives the
     * time since the first device work at each side of a cut.
     */
    private static void streams(Html h, TraceFile trace, DeviceStreams streams) {
        long lo = streams.startNs();
        long hi = streams.endNs();
        if (lo >= hi || streams.streams().isEmpty()) {
            h.raw("<p id=\"streams\" class=\"muted\">No device work in this trace.</p>\n");
            return;
        }
        double span = hi - lo;
        double shown = streams.shownNs();
        double bin = streams.binNs();
        List<DeviceStreams.Cut> cuts = streams.cuts();
        int cell = 7;
        int label = 180;
        int plot = BINS * cell;
        int rowH = 20;
        int top = cuts.isEmpty() ? 4 : 18;
        int count = streams.streams().size();
        int bottom = top + count * rowH;
        double cut = span - shown;
        String caption = "Device span " + KeyAveragesTable.time(span / 1000.0) + ", from the first device work to the last";
        if (cuts.isEmpty()) {
            caption += ", in " + BINS + " slices of " + KeyAveragesTable.time(bin / 1000.0) + ".";
        } else {
            caption += ". " + (cuts.size() == 1 ? "1 idle stretch" : cuts.size() + " idle stretches") + " with no work on any stream ("
                    + KeyAveragesTable.time(cut / 1000.0) + ", " + KeyAveragesTable.fixed(100.0 * cut / span, 1)
                    + "% of the span) " + (cuts.size() == 1 ? "is" : "are") + " cut out and marked by a dashed line; the strips show the other "
                    + KeyAveragesTable.time(shown / 1000.0) + " in " + BINS + " slices of " + KeyAveragesTable.time(bin / 1000.0) + ".";
        }
        caption += " Each bar is the share of its slice the stream was busy (full height: all of it); any work shows at least"
                + " a sliver. The figure at the right is the stream's busy time and its share of the whole span.";
        h.raw("<p class=\"muted\">").text(caption + foldedNote(streams)).raw("</p>\n");
        h.raw("<svg id=\"streams\" width=\"" + (label + plot + 190) + "\" height=\"" + (bottom + 18) + "\">\n");
        int y = top;
        for (DeviceStreams.Stream s : streams.streams()) {
            String name = streamLabel(trace, streams, s);
            String busy = KeyAveragesTable.time(s.totalNs() / 1000.0) + " (" + KeyAveragesTable.fixed(100.0 * s.totalNs() / span, 1) + "%)";
            h.raw("<g><title>").text(name + ": busy " + busy + " of the span").raw("</title>")
                    .raw("<text x=\"" + (label - 6) + "\" y=\"" + (y + 13) + "\" text-anchor=\"end\">").text(name).raw("</text>")
                    .raw("<line x1=\"" + label + "\" y1=\"" + (y + rowH - 3) + "\" x2=\"" + (label + plot) + "\" y2=\"" + (y + rowH - 3)
                            + "\" stroke=\"#ddd\"/>");
            int full = rowH - 4;
            for (int b = 0; b < BINS; b++) {
                double f = Math.min(1, s.busyNs()[b] / bin);
                if (f > 0) {
                    double height = Math.max(1, f * full);
                    h.raw("<rect x=\"" + (label + b * cell) + "\" y=\"").num(y + rowH - 3 - height).raw("\" width=\"" + (cell - 1)
                            + "\" height=\"").num(height).raw("\" fill=\"#c0392b\"/>");
                }
            }
            h.raw("<text x=\"" + (label + plot + 6) + "\" y=\"" + (y + 13) + "\">").text("busy " + busy).raw("</text></g>\n");
            y += rowH;
        }
        // the time axis: since the first device work, at the start, at each side of a cut and at the end
        h.raw("<g fill=\"#555\"><text x=\"" + label + "\" y=\"" + (bottom + 13) + "\">0</text>");
        double lastTick = label - 55; // the "0" is short: a cut's far-side time may follow it closely
        double lastCut = Double.NEGATIVE_INFINITY;
        for (DeviceStreams.Cut c : cuts) {
            double x = label + plot * streams.shownAt(c.startNs()) / shown;
            h.raw("<g><title>").text("idle on every stream for " + KeyAveragesTable.time(c.lengthNs() / 1000.0) + ", from "
                    + KeyAveragesTable.time((c.startNs() - lo) / 1000.0) + " to " + KeyAveragesTable.time((c.endNs() - lo) / 1000.0)
                    + ": cut out").raw("</title>");
            h.raw("<line x1=\"").num(x).raw("\" y1=\"15\" x2=\"").num(x).raw("\" y2=\"" + (bottom + 2)
                    + "\" stroke=\"#222\" stroke-width=\"1.5\" stroke-dasharray=\"3,2\"/>");
            if (x - lastCut > 80) { // a cut close to the one before keeps its length in its title only
                h.raw("<text x=\"").num(x).raw("\" y=\"12\" text-anchor=\"middle\">")
                        .text(KeyAveragesTable.time(c.lengthNs() / 1000.0) + " idle").raw("</text>");
                lastCut = x;
            }
            if (x - lastTick > 70) { // the time at the cut's far side, where it has room
                h.raw("<text x=\"").num(x + 3).raw("\" y=\"" + (bottom + 13) + "\">")
                        .text(KeyAveragesTable.time((c.endNs() - lo) / 1000.0)).raw("</text>");
                lastTick = x;
            }
            h.raw("</g>");
        }
        if (label + plot - lastTick > 140) {
            h.raw("<text x=\"" + (label + plot) + "\" y=\"" + (bottom + 13) + "\" text-anchor=\"end\">")
                    .text(KeyAveragesTable.time(span / 1000.0)).raw("</text>");
        }
        h.raw("</g>\n");
        h.raw("</svg>\n");
    }

    /** A strip's label: its device and stream, or for the folded strip how many streams it holds. */
    private static String streamLabel(TraceFile trace, DeviceStreams streams, DeviceStreams.Stream s) {
        boolean folded = streams.folded() > 0 && s == streams.streams().get(streams.streams().size() - 1);
        return folded ? streams.folded() + " more streams" : trace.deviceName(s.pid()) + " stream " + s.tid();
    }

    /** The sentence saying that streams past {@link DeviceStreams#MAX_ROWS} share one strip; empty when none do. */
    private static String foldedNote(DeviceStreams streams) {
        return streams.folded() == 0 ? "" : " The first " + DeviceStreams.MAX_ROWS + " streams have a strip each; the other "
                + streams.folded() + " streams share the last one (their busy time summed).";
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

    /**
     * Per device-work name, the longest total first: calls, total, mean, sample standard deviation,
     * min and max ({@link DeviceWorkStats}; analyze's kernel_stats adds percentiles).
     */
    private static void deviceWorkStats(Html h, List<DeviceWorkStats.Row> rows) {
        int n = Math.min(TOP, rows.size());
        h.raw("<table id=\"device-work-stats\"><tr><th class=\"n\">Name</th><th># of Calls</th><th>Total</th><th>Mean</th>"
                + "<th>Std (sample)</th><th>Min</th><th>Max</th></tr>\n");
        for (DeviceWorkStats.Row r : rows.subList(0, n)) {
            h.raw("<tr><td class=\"n\">").text(r.name()).raw("</td><td>").text(Long.toString(r.calls()))
                    .raw("</td><td>").text(KeyAveragesTable.time(r.totalNs() / 1e3))
                    .raw("</td><td>").text(KeyAveragesTable.time(r.meanNs() / 1e3))
                    .raw("</td><td>").text(KeyAveragesTable.time(r.stdNs() / 1e3))
                    .raw("</td><td>").text(KeyAveragesTable.time(r.minNs() / 1e3))
                    .raw("</td><td>").text(KeyAveragesTable.time(r.maxNs() / 1e3)).raw("</td></tr>\n");
        }
        h.raw("</table>\n<p class=\"muted\">").text((rows.size() > n ? (rows.size() - n) + " more names. " : "")
                + "Std is the sample standard deviation (n - 1), as HTA's kernel breakdown; every process of the trace together;"
                + " ./flagtrace analyze's kernel_stats adds percentiles, per rank.").raw("</p>\n");
    }

    /**
     * Per kind of collective: calls, total time, and where torch recorded the message, bytes and the
     * algorithm bandwidth over the calls that carry one ({@link CollectiveStats}); the calls without say so.
     */
    private static void collectives(Html h, List<CollectiveStats.Row> rows) {
        h.raw("<table id=\"collectives\"><tr><th class=\"n\">Kind</th><th># of Calls</th><th>Total</th><th>Bytes</th>"
                + "<th>Algorithm bandwidth</th></tr>\n");
        long unsized = 0;
        for (CollectiveStats.Row r : rows) {
            unsized += r.calls() - r.sizedCalls();
            h.raw("<tr><td class=\"n\">").text(r.kind()).raw("</td><td>").text(Long.toString(r.calls()))
                    .raw("</td><td>").text(KeyAveragesTable.time(r.totalNs() / 1e3))
                    .raw("</td><td>").text(r.sizedCalls() == 0 ? "not recorded" : bytes(r.bytes()))
                    .raw("</td><td>").text(r.algbwBytesPerS() < 0 ? "-" : KeyAveragesTable.fixed(r.algbwBytesPerS() / 1e9, 2) + " GB/s")
                    .raw("</td></tr>\n");
        }
        h.raw("</table>\n<p class=\"muted\">").text((unsized == 0 ? "" : unsized + " calls carry no message size in the trace's"
                + " args (torch writes In/Out msg nelems and dtype on the NCCL kernel; older traces and flagtrace's own recordings"
                + " do not): their bytes are not counted and the bandwidth is over the calls that carry one. ")
                + "Bytes: the larger of the message in and out; bandwidth: bytes over the time of those calls. Every process of"
                + " the trace together; ./flagtrace analyze's collectives gives each call per rank, with its skew across ranks.")
                .raw("</p>\n");
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
