package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.report.KeyAveragesTable;
import org.flagos.trace.report.TableLayout;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.OpSummaryRow;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link OpTable}, the op table replay and record print: a row per op and none per runtime call, the
 * shares and the footer's self CPU total of every host row (ops and calls, as {@code summary} counts),
 * the device total of the ops, and the note that says where the calls' rows are. On the replay of the
 * bundled h200-app-tiny2k capture with its host ops and kernel names.
 */
class OpTableTest {
    private static OpSummary summary;

    @BeforeAll
    static void replay() throws Exception {
        String name = "h200-app-tiny2k";
        CaptureReplay.Request request = CaptureReplay.request(Captures.capture(name), Captures.ops(name), Captures.names(name),
                TestDevices.h200(), Map.of());
        summary = CaptureReplay.run(request, OutputStream.nullOutputStream()).summary();
    }

    private static String footerLine(String table, String prefix) {
        return table.lines().filter(l -> l.startsWith(prefix)).findFirst().orElse("");
    }

    @Test
    void theCapturesOpsAndCallsAreThere() {
        assertFalse(summary.rows().isEmpty());
        assertFalse(summary.calls().isEmpty(), "the capture has runtime calls, so the footer's rule matters");
        assertTrue(summary.calls().stream().mapToDouble(OpSummaryRow::selfCpuTimeTotalUs).sum() > 0);
    }

    @Test
    void theFooterCountsEveryHostRowsSelfCpuAndTheOpsDeviceTime() {
        String table = OpTable.render(summary, TableLayout.COMPACT);
        double cpu = 0;
        double device = 0;
        for (OpSummaryRow r : summary.rows()) {
            cpu += r.selfCpuTimeTotalUs();
            device += r.selfDeviceTimeTotalUs();
        }
        for (OpSummaryRow r : summary.calls()) {
            cpu += r.selfCpuTimeTotalUs();
        }
        assertEquals("Self CPU time total: " + KeyAveragesTable.time(cpu), footerLine(table, "Self CPU time total: "));
        assertEquals("Self CUDA time total: " + KeyAveragesTable.time(device), footerLine(table, "Self CUDA time total: "));
        assertEquals("Self CPU time total: 338.799ms", footerLine(table, "Self CPU time total: "), "the capture's fixed value");
        assertEquals("Self CUDA time total: 2.045ms", footerLine(table, "Self CUDA time total: "));
    }

    @Test
    void opsHaveRowsCallsDoNotAndTheNoteSaysWhere() {
        String table = OpTable.render(summary, TableLayout.WIDE);
        assertTrue(table.endsWith(OpTable.NOTE + System.lineSeparator()), table);
        List<String> lines = table.lines().toList();
        List<Integer> rules = new java.util.ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("---")) {
                rules.add(i);
            }
        }
        List<String> rowNames = lines.subList(rules.get(1) + 1, rules.get(2)).stream().map(l -> l.strip().split(" +")[0]).sorted().toList();
        assertEquals(summary.rows().stream().map(OpSummaryRow::name).sorted().toList(), rowNames, "a row per op, none per call:\n" + table);
        assertTrue(summary.calls().stream().noneMatch(c -> rowNames.contains(c.name())), table);
    }
}
