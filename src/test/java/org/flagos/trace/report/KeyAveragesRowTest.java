package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * {@link KeyAveragesRow}: the averages are the totals over the count, as torch's {@code FunctionEventAvg} divides them
 * (doubles, no rounding), and a row of no calls averages 0 rather than NaN or infinity.
 */
class KeyAveragesRowTest {
    @Test
    void averagesAreTotalsOverTheCount() {
        KeyAveragesRow row = new KeyAveragesRow("aten::mm", false, 3, 10.0, 20.0, 4.0, 7.0);
        assertEquals(20.0 / 3, row.cpuAvgUs(), 0.0);
        assertEquals(7.0 / 3, row.deviceAvgUs(), 0.0);
        assertEquals(6.667, Math.round(row.cpuAvgUs() * 1000) / 1000.0, 0.0, "as torch prints 6.667us");
    }

    @Test
    void aRowOfNoCallsAveragesZero() {
        KeyAveragesRow empty = new KeyAveragesRow("aten::empty", false, 0, 0.0, 5.0, 0.0, 3.0);
        assertEquals(0.0, empty.cpuAvgUs(), 0.0);
        assertEquals(0.0, empty.deviceAvgUs(), 0.0);
    }
}
