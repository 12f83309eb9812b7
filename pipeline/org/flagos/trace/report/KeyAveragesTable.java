package org.flagos.trace.report;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link KeyAverages} as text laid out like torch's {@code key_averages().table()}: the same
 * columns, widths, truncation of long names and time units, so the two can be read side by side
 * (or diffed). Numbers are rounded from their exact binary value, half to even, as Python's
 * {@code format} does.
 */
public final class KeyAveragesTable {
    private static final int MAX_NAME_WIDTH = 55;
    private static final int COLUMN_WIDTH = 12;
    private static final String SPACING = "  ";

    private KeyAveragesTable() {
    }

    /** The rows of {@code averages} sorted by {@code sort} (null: first-appearance order), at most {@code limit}. */
    public static List<KeyAveragesRow> select(KeyAverages averages, SortKey sort, int limit) {
        List<KeyAveragesRow> rows = new ArrayList<>(averages.rows());
        if (sort != null) {
            rows.sort(sort.descending());
        }
        return limit >= 0 && limit < rows.size() ? rows.subList(0, limit) : rows;
    }

    public static String render(KeyAverages averages, SortKey sort, int limit) {
        List<KeyAveragesRow> rows = select(averages, sort, limit);
        boolean device = averages.hasDeviceTime();
        String d = averages.deviceLabel();
        List<String> headers = new ArrayList<>(List.of("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"));
        if (device) {
            headers.addAll(List.of("Self " + d, "Self " + d + " %", d + " total", d + " time avg"));
        }
        headers.add("# of Calls");
        int nameWidth = 0;
        for (KeyAveragesRow r : rows) {
            nameWidth = Math.max(nameWidth, r.name().length() + 4);
        }
        nameWidth = Math.min(Math.max(nameWidth, "Name".length()), MAX_NAME_WIDTH);
        StringBuilder sep = new StringBuilder("-".repeat(nameWidth)).append(SPACING);
        for (int c = 1; c < headers.size(); c++) {
            sep.append("-".repeat(COLUMN_WIDTH)).append(SPACING);
        }
        StringBuilder out = new StringBuilder();
        out.append(sep).append('\n');
        line(out, nameWidth, headers);
        out.append(sep).append('\n');
        List<KeyAveragesRow> all = select(averages, sort, -1); // torch's totals run over every row, sorted
        double cpuTotal = KeyAverages.selfCpuTotalUs(all);
        double deviceTotal = KeyAverages.selfDeviceTotalUs(all);
        for (KeyAveragesRow r : rows) {
            List<String> cells = new ArrayList<>(headers.size());
            String name = r.name();
            if (name.length() >= MAX_NAME_WIDTH - 3) {
                name = name.substring(0, MAX_NAME_WIDTH - 3) + "...";
            }
            cells.add(name);
            cells.add(share(r.selfCpuUs(), cpuTotal));
            cells.add(time(r.selfCpuUs()));
            cells.add(share(r.cpuTotalUs(), cpuTotal));
            cells.add(time(r.cpuTotalUs()));
            cells.add(time(r.cpuAvgUs()));
            if (device) {
                cells.add(time(r.selfDeviceUs()));
                cells.add(share(r.selfDeviceUs(), deviceTotal));
                cells.add(time(r.deviceTotalUs()));
                cells.add(time(r.deviceAvgUs()));
            }
            cells.add(Long.toString(r.count()));
            line(out, nameWidth, cells);
        }
        out.append(sep).append('\n');
        out.append("Self CPU time total: ").append(time(cpuTotal)).append('\n');
        if (device) {
            out.append("Self ").append(d).append(" time total: ").append(time(deviceTotal)).append('\n');
        }
        return out.toString();
    }

    private static void line(StringBuilder out, int nameWidth, List<String> cells) {
        for (int c = 0; c < cells.size(); c++) {
            int width = c == 0 ? nameWidth : COLUMN_WIDTH;
            String cell = cells.get(c);
            out.append(" ".repeat(Math.max(0, width - cell.length()))).append(cell).append(SPACING);
        }
        out.append('\n');
    }

    /** A time in microseconds with torch's unit choice: s, ms or us, three decimals. */
    public static String time(double us) {
        if (us >= 1e6) {
            return fixed(us / 1e6, 3) + "s";
        }
        if (us >= 1e3) {
            return fixed(us / 1e3, 3) + "ms";
        }
        return fixed(us, 3) + "us";
    }

    /** {@code part} as a percentage of {@code total}, two decimals; "NaN" when the total is zero. */
    public static String share(double part, double total) {
        return total == 0 ? "NaN" : fixed(part * 100.0 / total, 2) + "%";
    }

    static String fixed(double value, int decimals) {
        return new BigDecimal(value).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
    }
}
