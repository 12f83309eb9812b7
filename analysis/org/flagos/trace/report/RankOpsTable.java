package org.flagos.trace.report;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.Locale;
import org.flagos.trace.model.TerminalText;

/**
 * {@link RankOps} as a text table at most 100 characters wide (the first {@link #TEXT_ROWS} names,
 * at most {@link #TEXT_RANKS} rank columns, cut as {@link RankOps#shownRanks} says) and as JSON
 * (every name, every rank).
 */
public final class RankOpsTable {
    /** Names in the text table. */
    public static final int TEXT_ROWS = 20;
    /** Rank columns in the text table (with more ranks, the median column and the ranks that differ most). */
    public static final int TEXT_RANKS = 4;

    private RankOpsTable() {
    }

    /** The text table. */
    public static String render(RankOps ops) {
        StringBuilder out = new StringBuilder();
        int n = ops.labels().size();
        int rows = Math.min(TEXT_ROWS, ops.ops().size());
        boolean all = n <= TEXT_RANKS;
        int[] shown = ops.shownRanks(rows, all ? TEXT_RANKS : TEXT_RANKS - 1);
        out.append(String.format(Locale.ROOT, "Top %d of %d names by self device time over all ranks: each rank's self device ms"
                + " and calls%n", rows, ops.ops().size()));
        out.append(all ? "(all " + n + " ranks)\n" : "(median of all " + n + " ranks, then the " + shown.length
                + " ranks farthest from the median over these rows)\n");
        String cell = " %9s %6s";
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-30s", "Name"));
        if (!all) {
            head.append(String.format(Locale.ROOT, cell, "median", "calls"));
        }
        for (int i : shown) {
            head.append(String.format(Locale.ROOT, cell, cut(ops.labels().get(i), 9), "calls"));
        }
        out.append(head).append('\n');
        for (RankOps.Op op : ops.ops().subList(0, rows)) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-30s", cut(TerminalText.safe(op.name()), 30)));
            if (!all) {
                line.append(String.format(Locale.ROOT, cell, ms(op.medianDeviceUs()), op.medianCalls()));
            }
            for (int i : shown) {
                line.append(String.format(Locale.ROOT, cell, ms(op.selfDeviceUs()[i]), op.calls()[i]));
            }
            out.append(line).append('\n');
        }
        if (ops.ops().size() > rows) {
            out.append(ops.ops().size() - rows).append(" more names: --json writes every name for every rank\n");
        }
        return out.toString();
    }

    /** Writes {@code op_ranks} (the labels) and {@code ops} (every name: calls and self device µs, one per rank in that order). */
    static void write(RankOps ops, JsonGenerator g) throws IOException {
        g.writeArrayFieldStart("op_ranks");
        for (String label : ops.labels()) {
            g.writeString(label);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("ops");
        for (RankOps.Op op : ops.ops()) {
            g.writeStartObject();
            g.writeStringField("name", op.name());
            g.writeBooleanField("device", op.device());
            g.writeArrayFieldStart("calls");
            for (long c : op.calls()) {
                g.writeNumber(c);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("self_device_us");
            for (double v : op.selfDeviceUs()) {
                g.writeNumber(v);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static String ms(double us) {
        return String.format(Locale.ROOT, "%.3f", us / 1e3);
    }

    private static String cut(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 3) + "...";
    }
}
