package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyAveragesTable}'s own rules, beside torch's wide table reproduced byte for byte ({@link TorchKeyAveragesTest}):
 * torch's units and their boundaries, rounding half to even from the exact binary value (as Python's {@code format}),
 * a share of nothing is "NaN", names cut at torch's width, the compact layout exactly {@value KeyAveragesTable#COMPACT_WIDTH}
 * characters a line on torch's own H200 trace, and a limited table's footer and shares over every row.
 */
class KeyAveragesTableTest {
    @Test
    void torchsUnitsAndTheirBoundaries() {
        assertEquals("999.999us", KeyAveragesTable.time(999.999));
        assertEquals("1000.000us", KeyAveragesTable.time(999.9999), "rounded after the unit is chosen, as torch does");
        assertEquals("1.000ms", KeyAveragesTable.time(1000));
        assertEquals("999.999ms", KeyAveragesTable.time(999_999));
        assertEquals("1.000s", KeyAveragesTable.time(1e6));
        assertEquals("3600.000s", KeyAveragesTable.time(3.6e9), "no unit above seconds");
        assertEquals("0.000us", KeyAveragesTable.time(0));
    }

    @Test
    void halfToEvenFromTheExactBinaryValue() {
        assertEquals("0.12", KeyAveragesTable.fixed(0.125, 2), "0.125 is exact in binary: half to even");
        assertEquals("0.38", KeyAveragesTable.fixed(0.375, 2));
        assertEquals("2.67", KeyAveragesTable.fixed(2.675, 2), "2.675 is 2.67499999... in binary, as Python prints it");
        assertEquals("0.001", KeyAveragesTable.fixed(0.0005, 3), "0.0005 is 0.000500000000000000010... in binary");
        assertEquals("33.33%", KeyAveragesTable.share(1, 3));
        assertEquals("NaN", KeyAveragesTable.share(5, 0), "torch divides by a zero total too");
    }

    @Test
    void namesAreCutAtTorchsWidth() {
        String kept = "n".repeat(51);
        String cut = "c".repeat(52);
        String table = KeyAveragesTable.render(List.of(new KeyAveragesRow(kept, false, 1, 1, 1, 0, 0),
                new KeyAveragesRow(cut, false, 1, 1, 1, 0, 0)), false, "CUDA", 2, 0, TableLayout.WIDE);
        assertTrue(table.contains("  " + kept + "  "), table);
        assertTrue(table.contains("c".repeat(52) + "...  "), "52 characters and more are cut to 52 and ...: " + table);
        assertTrue(table.startsWith("-".repeat(55) + "  "), "the name column is at most 55 wide");
        String escaped = KeyAveragesTable.render(List.of(new KeyAveragesRow("evil\u001b[2J", false, 1, 1, 1, 0, 0)), false, "CUDA", 1,
                0, TableLayout.COMPACT);
        assertTrue(escaped.contains("evil\\x1b[2J"), escaped);
    }

    @Test
    void theCompactLayoutIsOneWidthOnTorchsOwnTrace() throws Exception {
        KeyAverages averages = KeyAverages.of(TraceFile.read(TorchKeyAveragesTest.resource("torch_trace.json")));
        String table = KeyAveragesTable.render(averages, SortKey.SELF_DEVICE_TIME_TOTAL, -1, TableLayout.COMPACT);
        List<String> lines = table.lines().toList();
        assertEquals(averages.rows().size() + 4 + 2, lines.size(), "three rules, a header, the rows, two footer lines");
        for (String line : lines.subList(0, lines.size() - 2)) {
            assertEquals(KeyAveragesTable.COMPACT_WIDTH, line.length(), line);
        }
        assertTrue(lines.get(1).endsWith("  Self CPU   CPU total   Self CUDA  CUDA total  # of Calls"), lines.get(1));
    }

    @Test
    void aLimitedTablesFooterAndSharesRunOverEveryRow() throws Exception {
        KeyAverages averages = KeyAverages.of(TraceFile.read(TorchKeyAveragesTest.resource("torch_trace.json")));
        String all = KeyAveragesTable.render(averages, SortKey.SELF_DEVICE_TIME_TOTAL, -1);
        String three = KeyAveragesTable.render(averages, SortKey.SELF_DEVICE_TIME_TOTAL, 3);
        List<String> allLines = all.lines().toList();
        List<String> threeLines = three.lines().toList();
        assertEquals(3 + 4 + 2, threeLines.size());
        for (int i = 3; i < 3 + 3; i++) { // the name column is as wide as the names shown: compare from the name on
            assertEquals(allLines.get(i).strip(), threeLines.get(i).strip(), "the first three rows, shares and all, as in the full table");
        }
        assertEquals(allLines.subList(allLines.size() - 2, allLines.size()), threeLines.subList(threeLines.size() - 2, threeLines.size()),
                "the same totals");
        assertEquals(3, KeyAveragesTable.select(averages, null, 3).size());
        assertEquals(averages.rows().subList(0, 3), KeyAveragesTable.select(averages, null, 3), "no sort: first-appearance order");
        assertEquals(averages.rows(), KeyAveragesTable.select(averages, null, averages.rows().size() + 5));
    }
}
