package org.flagos.trace.report;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The report's section on a merged trace's ranks: a heat map of step time (steps across, ranks
 * down, each step's slowest rank outlined), a stacked bar per rank of its device span (compute,
 * communication, memory, idle, with communication's overlap with computation), the step table and
 * the ranks' op tables side by side. Sized for many ranks and steps: rows and columns shrink to a
 * floor, steps past {@link #MAX_STEP_COLUMNS} share columns, tables are cut and say so.
 */
final class RanksHtml {
    /** Step columns of the heat map at most; more steps are grouped, consecutive ones per column. */
    static final int MAX_STEP_COLUMNS = 200;
    /** Rows of the step table. */
    static final int STEP_ROWS = 60;
    /** Names in the op table. */
    static final int OP_ROWS = 15;
    /** Rank columns in the op table (with more ranks: those that differ most). */
    static final int OP_RANKS = 8;

    static final String COMPUTE = "#3b73b9";
    static final String COMM = "#e67e22";
    static final String MEMORY = "#27ae60";
    static final String IDLE = "#d9d9d9";
    static final String OVERLAP = "#6c3483";
    static final String STEP = "#c0392b";

    private static final int LABEL = 130;
    private static final int PLOT = 800;

    private RanksHtml() {
    }

    /** Writes the section. */
    static void write(Html h, RankTimes times, RankOps ops) {
        List<RankTimes.Rank> ranks = times.ranks();
        h.raw("<h2 id=\"ranks\">Across ranks</h2>\n<p>").text(ranks.size() + " ranks in this merged trace. Communication is a kernel"
                + " of a collective library: its name starts with nccl, rccl, hccl, mccl or eccl (any case);"
                + " a step is a ProfilerStep#N op.").raw("</p>\n");
        if (ranks.isEmpty()) {
            h.raw("<p class=\"muted\">No rank of the merge holds a complete event.</p>\n");
            return;
        }
        h.raw("<h3>Step time per rank</h3>\n");
        heatMap(h, times);
        h.raw("<h3>Device time per rank</h3>\n");
        split(h, ranks);
        h.raw("<h3>Steps: median and slowest rank</h3>\n");
        stepTable(h, times);
        h.raw("<h3>Top names per rank (self device time and calls)</h3>\n");
        opTable(h, ops);
    }

    /** Row height for {@code n} rows in about 480 px, between 3 and 18. */
    static int rowHeight(int n) {
        return Math.max(3, Math.min(18, 480 / Math.max(1, n)));
    }

    /** Every how many rows a label fits (rows at least 10 px apart). */
    private static int labelEvery(int rowH) {
        return (10 + rowH - 1) / rowH;
    }

    private static void rankLabel(Html h, int i, String label, int y, int rowH) {
        if (i % labelEvery(rowH) == 0) {
            h.raw("<text x=\"" + (LABEL - 6) + "\" y=\"" + (y + Math.min(rowH, 13) - 1) + "\" text-anchor=\"end\">").text(label).raw("</text>");
        }
    }

    /** Steps across, ranks down; a cell's shade runs from the step's fastest rank (light) to its slowest (dark, outlined). */
    private static void heatMap(Html h, RankTimes times) {
        List<RankTimes.Rank> ranks = times.ranks();
        List<String> names = new ArrayList<>();
        List<long[]> groups = new ArrayList<>(); // step numbers of each column: {first, last}
        long[][] cell; // [rank][column] ns, -1 where the rank has none of the column's steps
        if (!times.hasSteps()) {
            names.add(RankTimesTable.WHOLE_TRACE);
            cell = new long[ranks.size()][1];
            for (int r = 0; r < ranks.size(); r++) {
                cell[r][0] = ranks.get(r).wholeNs();
            }
        } else {
            TreeSet<Long> numbers = new TreeSet<>();
            ranks.forEach(r -> numbers.addAll(r.steps.keySet()));
            List<Long> all = new ArrayList<>(numbers);
            int per = (all.size() + MAX_STEP_COLUMNS - 1) / MAX_STEP_COLUMNS;
            for (int i = 0; i < all.size(); i += per) {
                long first = all.get(i);
                long last = all.get(Math.min(all.size(), i + per) - 1);
                groups.add(new long[] {i, Math.min(all.size(), i + per)});
                names.add(first == last ? RankTimes.STEP_PREFIX + first : RankTimes.STEP_PREFIX + first + "-" + last);
            }
            cell = new long[ranks.size()][groups.size()];
            for (int r = 0; r < ranks.size(); r++) {
                for (int c = 0; c < groups.size(); c++) {
                    long sum = 0;
                    int count = 0;
                    for (int i = (int) groups.get(c)[0]; i < groups.get(c)[1]; i++) {
                        long[] se = ranks.get(r).steps.get(all.get(i));
                        if (se != null) {
                            sum += se[1] - se[0];
                            count++;
                        }
                    }
                    cell[r][c] = count == 0 ? -1 : sum / count;
                }
            }
            if (per > 1) {
                h.raw("<p class=\"muted\">").text(all.size() + " steps, " + per + " consecutive steps a column: a cell is the rank's"
                        + " mean over them.").raw("</p>\n");
            }
        }
        int cols = names.size();
        int cw = Math.max(3, Math.min(48, PLOT / cols));
        int rowH = rowHeight(ranks.size());
        int top = 18;
        h.raw("<p class=\"muted\">").text("Each cell is one rank's time in one step, shaded from the step's fastest rank (light) to its"
                + " slowest (dark red, outlined in black); hover for the time.").raw("</p>\n");
        h.raw("<svg id=\"rank-steps-map\" width=\"" + (LABEL + cols * cw + 20) + "\" height=\"" + (top + ranks.size() * rowH + 4) + "\">\n");
        int every = Math.max(1, (40 + cw - 1) / cw);
        for (int c = 0; c < cols; c += every) {
            h.raw("<text x=\"" + (LABEL + c * cw) + "\" y=\"12\">").text(names.get(c).substring(names.get(c).startsWith(RankTimes.STEP_PREFIX)
                    ? RankTimes.STEP_PREFIX.length() - 1 : 0)).raw("</text>");
        }
        h.raw("\n");
        int[] slowest = new int[cols];
        long[] lo = new long[cols];
        long[] med = new long[cols];
        for (int c = 0; c < cols; c++) {
            slowest[c] = -1;
            lo[c] = Long.MAX_VALUE;
            List<Long> present = new ArrayList<>();
            for (int r = 0; r < ranks.size(); r++) {
                long t = cell[r][c];
                if (t < 0) {
                    continue;
                }
                present.add(t);
                lo[c] = Math.min(lo[c], t);
                if (slowest[c] < 0 || t > cell[slowest[c]][c]) { // ties: the lowest rank, as the step table
                    slowest[c] = r;
                }
            }
            med[c] = present.isEmpty() ? 0 : RankTimesTable.median(present.stream().mapToLong(Long::longValue).toArray());
        }
        for (int r = 0; r < ranks.size(); r++) {
            int y = top + r * rowH;
            h.raw("<g>");
            rankLabel(h, r, ranks.get(r).label(), y, rowH);
            for (int c = 0; c < cols; c++) {
                long t = cell[r][c];
                if (t < 0) {
                    continue;
                }
                long hi = cell[slowest[c]][c];
                double f = hi > lo[c] ? (double) (t - lo[c]) / (hi - lo[c]) : 0;
                h.raw("<rect class=\"cell\" x=\"" + (LABEL + c * cw) + "\" y=\"" + y + "\" width=\"" + Math.max(1, cw - 1) + "\" height=\""
                        + Math.max(1, rowH - 1) + "\" fill=\"" + STEP + "\" fill-opacity=\"").raw(KeyAveragesTable.fixed(0.08 + 0.92 * f, 2))
                        .raw("\"><title>").text(ranks.get(r).label() + ", " + names.get(c) + ": " + ms(t) + " (median " + ms(med[c])
                                + ", " + over(t, med[c]) + ")").raw("</title></rect>");
            }
            h.raw("</g>\n");
        }
        for (int c = 0; c < cols; c++) {
            int r = slowest[c];
            h.raw("<rect class=\"slowest\" x=\"" + (LABEL + c * cw) + "\" y=\"" + (top + r * rowH) + "\" width=\"" + Math.max(1, cw - 1)
                    + "\" height=\"" + Math.max(1, rowH - 1) + "\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"><title>")
                    .text("slowest in " + names.get(c) + ": " + ranks.get(r).label() + ", " + ms(cell[r][c]) + " (" + over(cell[r][c], med[c])
                            + " over the median)").raw("</title></rect>\n");
        }
        h.raw("</svg>\n");
    }

    /** One bar per rank, its device span to scale: compute, comm, memory, idle; overlap as a stripe across the comm part. */
    private static void split(Html h, List<RankTimes.Rank> ranks) {
        long max = 0;
        for (RankTimes.Rank r : ranks) {
            max = Math.max(max, r.deviceSpanNs());
        }
        if (max == 0) {
            h.raw("<p id=\"rank-split\" class=\"muted\">No device work in any rank.</p>\n");
            return;
        }
        int rowH = rowHeight(ranks.size());
        int top = 22;
        h.raw("<p class=\"muted\">").text("Each bar is one rank's device span (first to last device work, to one scale): Compute (not"
                + " overlapped by communication), Comm, Memory (copies and sets overlapped by no kernel) and Idle sum to it; the purple"
                + " stripe is the time communication overlapped computation.").raw("</p>\n");
        h.raw("<svg id=\"rank-split\" width=\"" + (LABEL + PLOT + 300) + "\" height=\"" + (top + ranks.size() * rowH + 4) + "\">\n<g>");
        String[][] legend = {{"Compute", COMPUTE}, {"Comm", COMM}, {"Memory", MEMORY}, {"Idle", IDLE}, {"Overlap (Comm with Compute)", OVERLAP}};
        int x = LABEL;
        for (String[] l : legend) {
            h.raw("<rect x=\"" + x + "\" y=\"3\" width=\"10\" height=\"10\" fill=\"" + l[1] + "\"/><text x=\"" + (x + 14) + "\" y=\"12\">")
                    .text(l[0]).raw("</text>");
            x += 28 + 7 * l[0].length();
        }
        h.raw("</g>\n");
        double scale = (double) PLOT / max;
        for (int i = 0; i < ranks.size(); i++) {
            RankTimes.Rank r = ranks.get(i);
            int y = top + i * rowH;
            h.raw("<g>");
            rankLabel(h, i, r.label(), y, rowH);
            long[] parts = {r.computationNs(), r.communicationNs(), r.memoryNs(), r.idleNs()};
            String[] kinds = {"compute", "comm", "memory", "idle"};
            String[] colours = {COMPUTE, COMM, MEMORY, IDLE};
            double at = LABEL;
            double commAt = LABEL;
            for (int k = 0; k < parts.length; k++) {
                double w = parts[k] * scale;
                if (k == 1) {
                    commAt = at;
                }
                h.raw("<rect class=\"" + kinds[k] + "\" x=\"").num(at).raw("\" y=\"" + y + "\" width=\"").num(w).raw("\" height=\""
                        + Math.max(1, rowH - 1) + "\" fill=\"" + colours[k] + "\"><title>").text(r.label() + " " + legend[k][0] + ": "
                        + ms(parts[k]) + " (" + pct(parts[k], r.deviceSpanNs()) + " of the span)").raw("</title></rect>");
                at += w;
            }
            int stripe = Math.max(1, rowH / 3);
            h.raw("<rect class=\"overlap\" x=\"").num(commAt).raw("\" y=\"" + (y + Math.max(0, rowH - 1 - stripe)) + "\" width=\"")
                    .num(r.overlapNs() * scale).raw("\" height=\"" + stripe + "\" fill=\"" + OVERLAP + "\"><title>")
                    .text(r.label() + " Overlap: " + ms(r.overlapNs()) + " of " + ms(r.communicationNs()) + " communication ran during computation")
                    .raw("</title></rect>");
            if (rowH >= 10) {
                h.raw("<text x=\"").num(at + 6).raw("\" y=\"" + (y + Math.min(rowH, 13) - 1) + "\">").text("span " + ms(r.deviceSpanNs())
                        + ", comm " + pct(r.communicationNs(), r.deviceSpanNs()) + ", overlap " + ms(r.overlapNs())).raw("</text>");
            }
            h.raw("</g>\n");
        }
        h.raw("</svg>\n");
    }

    private static void stepTable(Html h, RankTimes times) {
        List<RankTimesTable.StepRow> rows = RankTimesTable.steps(times);
        h.raw("<table id=\"rank-steps\"><tr><th class=\"n\">Step</th><th>Ranks</th><th>Median</th><th>Fastest</th><th>Slowest</th>"
                + "<th class=\"n\">Slowest rank</th><th>Over median</th><th>Over %</th></tr>\n");
        for (RankTimesTable.StepRow s : rows.subList(0, Math.min(STEP_ROWS, rows.size()))) {
            h.raw("<tr><td class=\"n\">").text(s.step()).raw("</td><td>").text(Integer.toString(s.ranks()))
                    .raw("</td><td>").text(ms(s.medianNs())).raw("</td><td>").text(ms(s.fastestNs()))
                    .raw("</td><td>").text(ms(s.slowestNs())).raw("</td><td class=\"n\">").text(s.slowest())
                    .raw("</td><td>").text(ms(s.overMedianNs())).raw("</td><td>").text(pct(s.overMedianNs(), s.medianNs()))
                    .raw("</td></tr>\n");
        }
        h.raw("</table>\n");
        if (rows.size() > STEP_ROWS) {
            h.raw("<p class=\"muted\">").text((rows.size() - STEP_ROWS) + " more steps: ./flagtrace summary --ranks prints them all.")
                    .raw("</p>\n");
        }
    }

    private static void opTable(Html h, RankOps ops) {
        int rows = Math.min(OP_ROWS, ops.ops().size());
        int n = ops.labels().size();
        int[] shown = ops.shownRanks(rows, OP_RANKS);
        h.raw("<p class=\"muted\">").text("The first " + rows + " of " + ops.ops().size() + " names (ops, and kernels, copies and sets"
                + " as key_averages lists them) by self device time summed over the ranks; a cell is the rank's self device time and"
                + " (calls). " + (shown.length == n ? "All " + n + " ranks are shown."
                : shown.length + " of " + n + " ranks are shown: those whose times in these rows are farthest from the median rank's"
                        + " (sum of absolute differences); the median column is over all " + n + " ranks.")).raw("</p>\n");
        h.raw("<table id=\"rank-ops\"><tr><th class=\"n\">Name</th><th>Median</th>");
        for (int i : shown) {
            h.raw("<th>").text(ops.labels().get(i)).raw("</th>");
        }
        h.raw("</tr>\n");
        for (RankOps.Op op : ops.ops().subList(0, rows)) {
            h.raw("<tr><td class=\"n\">").text(op.name()).raw("</td><td>").text(KeyAveragesTable.time(op.medianDeviceUs()) + " ("
                    + op.medianCalls() + ")").raw("</td>");
            for (int i : shown) {
                h.raw("<td>").text(KeyAveragesTable.time(op.selfDeviceUs()[i]) + " (" + op.calls()[i] + ")").raw("</td>");
            }
            h.raw("</tr>\n");
        }
        h.raw("</table>\n");
    }

    private static String ms(long ns) {
        return KeyAveragesTable.fixed(ns / 1e6, 3) + "ms";
    }

    private static String pct(long part, long whole) {
        return whole <= 0 ? "-" : KeyAveragesTable.fixed(100.0 * part / whole, 1) + "%";
    }

    private static String over(long t, long median) {
        return median <= 0 ? "-" : (t >= median ? "+" : "") + KeyAveragesTable.fixed(100.0 * (t - median) / median, 1) + "%";
    }
}
