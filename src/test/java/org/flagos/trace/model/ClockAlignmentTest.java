package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link ClockAlignment}: drift counts only past what the two bounds explain; the error bound follows. */
class ClockAlignmentTest {
    private static ClockAlignment of(long startBound, long endBound, long drift) {
        return new ClockAlignment(16, startBound, endBound, drift, 1_000_000_000L);
    }

    @Test
    void driftWithinTheBoundsIsNoise() {
        ClockAlignment a = of(300, 200, 500); // exactly what the bounds explain
        assertFalse(a.drifted());
        assertEquals(300, a.errorBoundNs(), "the larger bound");
        assertFalse(of(300, 200, -500).drifted());
        assertEquals(400, of(300, 400, 0).errorBoundNs());
    }

    @Test
    void driftPastTheBoundsAddsToTheStartBoundEitherSign() {
        ClockAlignment a = of(300, 200, 501);
        assertTrue(a.drifted());
        assertEquals(801, a.errorBoundNs());
        ClockAlignment b = of(300, 200, -5_000);
        assertTrue(b.drifted());
        assertEquals(5_300, b.errorBoundNs());
    }
}
