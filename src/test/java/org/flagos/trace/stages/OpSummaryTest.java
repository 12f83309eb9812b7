package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The summary's order (self device time, then CPU time, both falling, then name), lookup by name, and its fixed-width table. */
class OpSummaryTest {
    private static OpSummaryRow row(String name, long count, double cpu, double selfCpu, double device, double selfDevice) {
        return new OpSummaryRow(name, count, cpu, selfCpu, device, selfDevice, 0, 0);
    }

    private static final OpSummaryRow MM = row("aten::mm", 4, 120.5, 80.25, 300, 300);
    private static final OpSummaryRow LINEAR = row("aten::linear", 2, 200, 10, 300, 0);
    private static final OpSummaryRow ADD_B = row("aten::add", 1, 5, 5, 1.5, 1.5);
    private static final OpSummaryRow ADD_A = row("aten::add_", 1, 5, 5, 1.5, 1.5);
    private static final OpSummaryRow COPY = row("aten::copy_", 3, 50, 50, 0, 0);

    @Test
    void rowsAreOrderedBySelfDeviceTimeThenCpuTimeThenName() {
        OpSummary s = OpSummary.of(List.of(ADD_A, COPY, LINEAR, MM, ADD_B), List.of(COPY, MM), List.of());
        assertEquals(List.of(MM, ADD_B, ADD_A, LINEAR, COPY), s.rows());
        assertEquals(List.of(MM, COPY), s.calls());
        assertEquals(List.of(), s.device());
        assertEquals(List.of(MM, ADD_B, ADD_A, LINEAR, COPY), OpSummary.of(new ArrayList<>(List.of(COPY, ADD_B, LINEAR, ADD_A, MM))).rows());
    }

    @Test
    void theListsAreCopiesThatCannotChange() {
        List<OpSummaryRow> given = new ArrayList<>(List.of(MM));
        OpSummary s = OpSummary.of(given);
        given.add(COPY);
        assertEquals(List.of(MM), s.rows());
        assertThrows(UnsupportedOperationException.class, () -> s.rows().add(COPY));
    }

    @Test
    void aRowByItsName() {
        OpSummary s = OpSummary.of(List.of(MM, COPY));
        assertEquals(COPY, s.row("aten::copy_"));
        assertNull(s.row("aten::copy"));
    }

    @Test
    void theTableHasFixedColumnsAndCutsLongNames() {
        String longName = "aten::_scaled_dot_product_flash_attention_for_cpu";
        OpSummary s = OpSummary.of(List.of(MM, row(longName, 12, 1234.5678, 0.0004, 0, 0)));
        String[] lines = s.table().split("\n");
        assertEquals(4, lines.length);
        assertEquals(String.format("%-40s %8s %14s %14s %16s %16s", "Name", "# Calls", "CPU total us", "Self CPU us", "Device total us",
                "Self device us"), lines[0]);
        assertEquals("-".repeat(113), lines[1]);
        assertEquals(String.format("%-40s %8s %14s %14s %16s %16s", "aten::mm", "4", "120.500", "80.250", "300.000", "300.000"), lines[2]);
        assertEquals(String.format("%-40s %8s %14s %14s %16s %16s", "aten::_scaled_dot_product_flash_atten...", "12", "1234.568",
                "0.000", "0.000", "0.000"), lines[3]);
        assertEquals(113, lines[2].length());
    }

    @Test
    void theTablesNumbersDoNotDependOnTheDefaultLocale() {
        Locale before = Locale.getDefault();
        try {
            Locale.setDefault(Locale.GERMANY); // a decimal comma
            String table = OpSummary.of(List.of(MM)).table();
            assertEquals(String.format(Locale.ROOT, "%-40s %8s %14s %14s %16s %16s", "aten::mm", "4", "120.500", "80.250", "300.000",
                    "300.000"), table.split("\n")[2]);
        } finally {
            Locale.setDefault(before);
        }
    }
}
