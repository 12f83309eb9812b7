package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * An ops file's threads mapped to the rows their API calls were drawn on: the first row learned for a
 * thread holds, a thread without a row draws on its own id (a thread-less op, -1, on row 0), and a row
 * leads back to the first thread learned on it, or to itself.
 */
class TraceRowLayoutTest {
    @Test
    void theFirstRowLearnedHolds() {
        TraceRowLayout layout = new TraceRowLayout();
        assertFalse(layout.knows(7));
        assertEquals(7, layout.hostRow(7), "no row learned: the op's own thread");
        assertEquals(0, layout.hostRow(-1), "an op without a thread: row 0");
        layout.learn(7, 70_001);
        layout.learn(7, 99_999); // a later API call on another row does not move the thread
        assertTrue(layout.knows(7));
        assertEquals(70_001, layout.hostRow(7));
        layout.learn(-1, 55);
        assertTrue(layout.knows(-1), "-1 is a key like any other");
        assertEquals(55, layout.hostRow(-1));
        layout.learn(8, 70_001); // two ops threads on one row: the row leads back to the first
        assertEquals(7, layout.opThreadOf(70_001));
        assertEquals(123, layout.opThreadOf(123), "a row no thread was learned on leads to itself");
        assertEquals(99_999, layout.opThreadOf(99_999), "the ignored second row was not learned");
    }

    @Test
    void manyThreadsGrowTheLayout() {
        TraceRowLayout layout = new TraceRowLayout();
        for (long t = 0; t < 1_000; t++) {
            layout.learn(t, 1_000_000 + 2 * t);
        }
        for (long t = 0; t < 1_000; t++) {
            assertEquals(1_000_000 + 2 * t, layout.hostRow(t));
            assertEquals(t, layout.opThreadOf(1_000_000 + 2 * t));
        }
        assertEquals(1_000_001, layout.opThreadOf(1_000_001));
        assertFalse(layout.knows(1_000));
    }
}
