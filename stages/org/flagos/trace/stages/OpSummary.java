package org.flagos.trace.stages;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.pipeline.DenseLongTable;
import org.flagos.trace.pipeline.NameTable;

/**
 * Aggregates host ops into {@link OpSummaryRow}s. Ops nest per thread: an op's children are the
 * ops of the same thread whose range lies inside its own. Rows are ordered by self device time,
 * then CPU total, descending, the order torch's table is usually sorted in.
 */
public final class OpSummary {
    private final List<OpSummaryRow> rows;

    private OpSummary(List<OpSummaryRow> rows) {
        this.rows = rows;
    }

    public List<OpSummaryRow> rows() {
        return rows;
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

    static OpSummary of(HostOpColumns ops, NameTable names, DenseLongTable deviceNsByOp) {
        int n = ops.size;
        int[] order = ops.byNesting();
        int[] parent = new int[n];
        int[] stack = new int[n];
        int depth = 0;
        for (int k = 0; k < n; k++) {
            int op = order[k];
            while (depth > 0 && !contains(ops, stack[depth - 1], op)) {
                depth--;
            }
            parent[op] = depth > 0 ? stack[depth - 1] : -1;
            stack[depth++] = op;
        }
        long[] selfDevice = new long[n];
        long[] totalDevice = new long[n];
        long[] childCpu = new long[n];
        for (int i = 0; i < n; i++) {
            long id = ops.externalId[i];
            selfDevice[i] = deviceNsByOp.get(id, 0);
            totalDevice[i] = selfDevice[i];
        }
        for (int k = n - 1; k >= 0; k--) { // children sort after their parents
            int op = order[k];
            int p = parent[op];
            if (p >= 0) {
                totalDevice[p] += totalDevice[op];
                childCpu[p] += ops.end[op] - ops.start[op];
            }
        }
        Map<String, long[]> byName = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            long[] acc = byName.computeIfAbsent(names.name(ops.nameId[i]), k -> new long[5]);
            long cpu = ops.end[i] - ops.start[i];
            acc[0]++;
            acc[1] += cpu;
            acc[2] += cpu - childCpu[i];
            acc[3] += totalDevice[i];
            acc[4] += selfDevice[i];
        }
        List<OpSummaryRow> rows = new ArrayList<>(byName.size());
        byName.forEach((name, a) -> rows.add(new OpSummaryRow(name, a[0], a[1] / 1000.0, a[2] / 1000.0,
                a[3] / 1000.0, a[4] / 1000.0)));
        rows.sort(Comparator.comparingDouble(OpSummaryRow::selfDeviceTimeTotalUs).reversed()
                .thenComparing(Comparator.comparingDouble(OpSummaryRow::cpuTimeTotalUs).reversed())
                .thenComparing(OpSummaryRow::name));
        return new OpSummary(List.copyOf(rows));
    }

    private static boolean contains(HostOpColumns ops, int outer, int inner) {
        // Ops nest only on their own thread: the nesting order walks thread after thread, and an
        // op of the next thread that happens to lie inside the previous thread's last op is not its child.
        return ops.thread[inner] == ops.thread[outer]
                && ops.start[inner] >= ops.start[outer] && ops.end[inner] <= ops.end[outer];
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
        return String.format("%.3f", us);
    }
}
