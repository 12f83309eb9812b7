package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** First appearance: the earlier first start, and at the same start the longer op first (the enclosing one, as torch lists it). */
class OpSummaryRowTest {
    private static OpSummaryRow row(String name, long firstStart, long firstLength) {
        return new OpSummaryRow(name, 1, 0, 0, 0, 0, firstStart, firstLength);
    }

    @Test
    void earlierFirstThenLongerFirst() {
        OpSummaryRow linear = row("aten::linear", 100, 50);
        OpSummaryRow addmm = row("aten::addmm", 100, 40);
        OpSummaryRow relu = row("aten::relu", 200, 10);
        OpSummaryRow early = row("aten::empty", 99, 1);
        assertTrue(linear.compareFirstAppearance(addmm) < 0);
        assertTrue(addmm.compareFirstAppearance(linear) > 0);
        assertEquals(0, linear.compareFirstAppearance(row("other", 100, 50)));
        List<OpSummaryRow> rows = new ArrayList<>(List.of(relu, addmm, linear, early));
        rows.sort(OpSummaryRow::compareFirstAppearance);
        assertEquals(List.of(early, linear, addmm, relu), rows);
    }

    @Test
    void farApartTimesCompareWithoutOverflow() {
        assertTrue(row("a", Long.MIN_VALUE, 0).compareFirstAppearance(row("b", Long.MAX_VALUE, 0)) < 0);
        assertTrue(row("a", 5, Long.MAX_VALUE).compareFirstAppearance(row("b", 5, Long.MIN_VALUE)) < 0);
    }
}
