package org.flagos.trace.stages;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Host ops aggregated into {@link OpSummaryRow}s, one per op name ({@link OpSummaryFold} builds them
 * as ops settle). Ops nest per thread: an op's children are the ops of the same thread whose range
 * lies inside its own. Rows are ordered by self device time,
 * then CPU total, descending, the order torch's table is usually sorted in.
 */
public final class OpSummary {
    private final List<OpSummaryRow> rows;
    private final List<OpSummaryRow> calls;
    private final List<OpSummaryRow> device;

    private OpSummary(List<OpSummaryRow> rows, List<OpSummaryRow> calls, List<OpSummaryRow> device) {
        this.rows = rows;
        this.calls = calls;
        this.device = device;
    }

    /** The host ops' rows (ops and annotation ranges). */
    public List<OpSummaryRow> rows() {
        return rows;
    }

    /** The runtime and driver calls' rows: children of their ops ({@link KeyAveragesRule}), rows of their own. */
    public List<OpSummaryRow> calls() {
        return calls;
    }

    /** The device records' rows (kernels, copies, sets): their durations are their self device time. */
    public List<OpSummaryRow> device() {
        return device;
    }

    /** The row for {@code name}, or null. */
    public OpSummaryRow row(String name) {
        for (OpSummaryRow row : rows) {
            if (row.name().equals(name)) {
                return row;
            }
        }
        return null;
    }

    /** Orders the rows as torch's table is usually sorted: self device time, then CPU total, descending. */
    static OpSummary of(List<OpSummaryRow> rows) {
        return of(rows, List.of(), List.of());
    }

    static OpSummary of(List<OpSummaryRow> rows, List<OpSummaryRow> calls, List<OpSummaryRow> device) {
        return new OpSummary(sorted(rows), sorted(calls), sorted(device));
    }

    private static List<OpSummaryRow> sorted(List<OpSummaryRow> rows) {
        List<OpSummaryRow> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingDouble(OpSummaryRow::selfDeviceTimeTotalUs).reversed()
                .thenComparing(Comparator.comparingDouble(OpSummaryRow::cpuTimeTotalUs).reversed())
                .thenComparing(OpSummaryRow::name));
        return List.copyOf(sorted);
    }

    /** The summary as a fixed-width table, like torch's {@code key_averages().table()}. */
    public String table() {
        StringBuilder out = new StringBuilder();
        String format = "%-40s %8s %14s %14s %16s %16s%n";
        out.append(String.format(format, "Name", "# Calls", "CPU total us", "Self CPU us", "Device total us", "Self device us"));
        out.append("-".repeat(113)).append('\n');
        for (OpSummaryRow r : rows) {
            String name = r.name().length() > 40 ? r.name().substring(0, 37) + "..." : r.name();
            out.append(String.format(format, name, r.count(), fmt(r.cpuTimeTotalUs()), fmt(r.selfCpuTimeTotalUs()),
                    fmt(r.deviceTimeTotalUs()), fmt(r.selfDeviceTimeTotalUs())));
        }
        return out.toString();
    }

    private static String fmt(double us) {
        return String.format(Locale.ROOT, "%.3f", us); // a decimal point whatever the default locale
    }
}
