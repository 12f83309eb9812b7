package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** A reused flow arrow: {@code set} fills every end of it, each into its own field, and returns the same arrow. */
class FlowArrowTest {
    @Test
    void setFillsEachFieldAndReturnsTheArrow() {
        FlowArrow arrow = new FlowArrow();
        assertSame(arrow, arrow.set(1, 2, 3, 4, 5, 6, 7, 8));
        assertEquals(1, arrow.id());
        assertEquals(2, arrow.correlation());
        assertEquals(3, arrow.hostTs());
        assertEquals(4, arrow.hostPid());
        assertEquals(5, arrow.hostTid());
        assertEquals(6, arrow.deviceTs());
        assertEquals(7, arrow.devicePid());
        assertEquals(8, arrow.deviceTid());
        arrow.set(Long.MAX_VALUE, 1L << 40, -1, 1L << 33, 0xFFFF_FFFFL, 9, 0, -1);
        assertEquals(Long.MAX_VALUE, arrow.id());
        assertEquals(1L << 40, arrow.correlation(), "64-bit correlations kept");
        assertEquals(1L << 33, arrow.hostPid());
        assertEquals(0xFFFF_FFFFL, arrow.hostTid(), "unsigned thread ids kept");
        assertEquals(-1, arrow.deviceTid());
    }
}
