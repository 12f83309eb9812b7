package org.flagos.trace.report;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.TerminalText;

/**
 * {@link KeyAverages} as text, in one of two layouts ({@link TableLayout}): the compact one every
 * command prints by default, at most {@value #COMPACT_WIDTH} characters a line, and torch's own
 * {@code key_averages().table()} (the same columns, widths, truncation of long names and time
 * units, so the two can be read side by side or diffed). Times use torch's units in both. Numbers
 * are rounded from their exact binary value, half to even, as Python's {@code format} does.
 */
public final class KeyAveragesTable {
    private static final int MAX_NAME_WIDTH = 55;
    private static final int COLUMN_WIDTH = 12;
    private static final String SPACING = "  ";
    /** Every line of the compact layout is this wide: a 100-column terminal shows it without wrapping. */
    public static final int COMPACT_WIDTH = 100;
    private static final int COMPACT_COLUMN_WIDTH = 10;

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

    /** torch's wide layout ({@link TableLayout#WIDE}) of {@code averages}: the table torch prints, byte for byte. */
    public static String render(KeyAverages averages, SortKey sort, int limit) {
        return render(averages, sort, limit, TableLayout.WIDE);
    }

    /**
     * The rows of {@code averages} sorted by {@code sort}, at most {@code limit}, in {@code layout};
     * the footer's totals and the shares run over every row, as torch's do.
     */
    public static String render(KeyAverages averages, SortKey sort, int limit, TableLayout layout) {
        List<KeyAveragesRow> all = select(averages, sort, -1); // torch's totals run over every row, sorted
        return render(select(averages, sort, limit), averages.hasDeviceTime(), averages.deviceLabel(),
                KeyAverages.selfCpuTotalUs(all), KeyAverages.selfDeviceTotalUs(all), layout);
    }

    /**
     * {@code rows} as a table in {@code layout}: device columns only when {@code device}, headed with
     * {@code deviceLabel} ("CUDA"); shares and the footer use the totals given.
     */
    public static String render(List<KeyAveragesRow> rows, boolean device, String deviceLabel, double cpuTotal,
            double deviceTotal, TableLayout layout) {
        rows = terminalSafe(rows);
        if (layout == TableLayout.COMPACT) {
            return compact(rows, device, deviceLabel, cpuTotal, deviceTotal);
        }
        String d = deviceLabel;
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
        footer(out, device, d, cpuTotal, deviceTotal);
        return out.toString();
    }

    /**
     * The compact layout: the name left-aligned in a fixed column (so that every table of one capture
     * lines up the same), then self and total CPU time, self and total device time, and calls.
     */
    private static String compact(List<KeyAveragesRow> rows, boolean device, String d, double cpuTotal, double deviceTotal) {
        List<String> headers = new ArrayList<>(List.of("Self CPU", "CPU total"));
        if (device) {
            headers.addAll(List.of("Self " + d, d + " total"));
        }
        headers.add("# of Calls");
        int[] widths = new int[headers.size()];
        int numbers = 0;
        for (int c = 0; c < widths.length; c++) {
            widths[c] = Math.max(COMPACT_COLUMN_WIDTH, headers.get(c).length());
            numbers += SPACING.length() + widths[c];
        }
        int nameWidth = COMPACT_WIDTH - numbers;
        String sep = "-".repeat(COMPACT_WIDTH) + "\n";
        StringBuilder out = new StringBuilder(sep);
        compactLine(out, "Name", nameWidth, headers, widths);
        out.append(sep);
        List<String> names = new ArrayList<>(rows.size());
        rows.forEach(r -> names.add(r.name()));
        List<String> shown = ShortNames.fitAll(names, nameWidth);
        for (int i = 0; i < rows.size(); i++) {
            KeyAveragesRow r = rows.get(i);
            List<String> cells = new ArrayList<>(List.of(time(r.selfCpuUs()), time(r.cpuTotalUs())));
            if (device) {
                cells.add(time(r.selfDeviceUs()));
                cells.add(time(r.deviceTotalUs()));
            }
            cells.add(Long.toString(r.count()));
            compactLine(out, shown.get(i), nameWidth, cells, widths);
        }
        out.append(sep);
        footer(out, device, d, cpuTotal, deviceTotal);
        return out.toString();
    }

    private static void compactLine(StringBuilder out, String name, int nameWidth, List<String> cells, int[] widths) {
        out.append(name).append(" ".repeat(Math.max(0, nameWidth - name.length())));
        for (int c = 0; c < cells.size(); c++) {
            String cell = cells.get(c);
            out.append(SPACING).append(" ".repeat(Math.max(0, widths[c] - cell.length()))).append(cell);
        }
        out.append('\n');
    }

    private static void footer(StringBuilder out, boolean device, String d, double cpuTotal, double deviceTotal) {
        out.append("Self CPU time total: ").append(time(cpuTotal)).append('\n');
        if (device) {
            out.append("Self ").append(d).append(" time total: ").append(time(deviceTotal)).append('\n');
        }
    }

    private static void line(StringBuilder out, int nameWidth, List<String> cells) {
        for (int c = 0; c < cells.size(); c++) {
            int width = c == 0 ? nameWidth : COLUMN_WIDTH;
            String cell = cells.get(c);
            out.append(" ".repeat(Math.max(0, width - cell.length()))).append(cell).append(SPACING);
        }
        out.append('\n');
    }

    /** The rows with their names safe for a terminal ({@link TerminalText}); the files keep them whole. */
    private static List<KeyAveragesRow> terminalSafe(List<KeyAveragesRow> rows) {
        List<KeyAveragesRow> out = new ArrayList<>(rows.size());
        for (KeyAveragesRow r : rows) {
            String safe = TerminalText.safe(r.name());
            out.add(safe == r.name() ? r : new KeyAveragesRow(safe, r.device(), r.count(), r.selfCpuUs(), r.cpuTotalUs(),
                    r.selfDeviceUs(), r.deviceTotalUs()));
        }
        return out;
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
