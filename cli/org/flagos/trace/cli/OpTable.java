package org.flagos.trace.cli;

import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.report.KeyAveragesRow;
import org.flagos.trace.report.KeyAveragesTable;
import org.flagos.trace.report.TableLayout;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.OpSummaryRow;

/**
 * The op summary a replay or a live session prints, in the same layout as {@code summary} prints a
 * trace ({@link KeyAveragesTable}). Its rows are the host ops only, by the same rule and with the
 * same numbers as {@code summary}'s rows of them ({@code KeyAveragesRule}); the runtime calls' and
 * device work's rows are in the summary file and in {@code summary}'s table, and {@link #NOTE} says
 * so under the table. Device columns are headed "CUDA" as the trace's {@code cuda_*} categories
 * make {@code summary} head them; the self CPU total (and the shares of it) is every host row's,
 * runtime calls included, as {@code summary}'s is.
 */
final class OpTable {
    private OpTable() {
    }

    /** The one line under the table that says what it leaves out. */
    static final String NOTE = "Ops only; runtime calls and device work have their rows in --summary's file and `summary`.";

    static String render(OpSummary summary, TableLayout layout) {
        List<KeyAveragesRow> rows = new ArrayList<>(summary.rows().size());
        double cpuTotal = 0;
        double deviceTotal = 0;
        boolean device = false;
        for (OpSummaryRow r : summary.rows()) {
            rows.add(new KeyAveragesRow(r.name(), false, r.count(), r.selfCpuTimeTotalUs(), r.cpuTimeTotalUs(),
                    r.selfDeviceTimeTotalUs(), r.deviceTimeTotalUs()));
            cpuTotal += r.selfCpuTimeTotalUs();
            deviceTotal += r.selfDeviceTimeTotalUs();
            device |= r.deviceTimeTotalUs() > 0;
        }
        for (OpSummaryRow r : summary.calls()) { // the shares and the footer are of every host row's self CPU, as summary's
            cpuTotal += r.selfCpuTimeTotalUs();
        }
        return KeyAveragesTable.render(rows, device, "CUDA", cpuTotal, deviceTotal, layout) + NOTE + System.lineSeparator();
    }
}
