package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What run lost, in its last line and its exit code: never 0 over a lost capture, the program's failure first. */
class CaptureLossesTest {
    @Test
    void nothingLostLeavesTheProgramsCodeAndNoLine() {
        assertFalse(CaptureLosses.NONE.any());
        assertNull(CaptureLosses.NONE.line(0));
        assertEquals(0, CaptureLosses.NONE.exitCode(0));
        assertEquals(7, CaptureLosses.NONE.exitCode(7));
    }

    @Test
    void aLostCaptureTurnsTheProgramsZeroIntoThreeAndLeavesItsOtherCodes() {
        CaptureLosses one = new CaptureLosses(0, 0, 1);
        assertTrue(one.any());
        assertEquals(ExitCodes.TRUNCATED, one.exitCode(0));
        assertEquals(7, one.exitCode(7));
        assertEquals("flagtrace run: 1 window's capture did not become a trace; exit 3 (the program exited 0)", one.line(0));
        assertEquals("flagtrace run: 1 window's capture did not become a trace; exit 7 (the program's own)", one.line(7));
    }

    @Test
    void theLineCountsEachKindInWordsThatAgreeWithTheCount() {
        assertEquals("flagtrace run: 2 processes reached run but left no capture, 1 stream was cut short or damaged (its trace"
                + " holds what came before), 3 windows' captures did not become traces; exit 3 (the program exited 0)", new CaptureLosses(2, 1, 3).line(0));
        assertEquals("flagtrace run: 1 process reached run but left no capture, 2 streams were cut short or damaged (their"
                + " traces hold what came before); exit 1 (the program's own)", new CaptureLosses(1, 2, 0).line(1));
        assertEquals(new CaptureLosses(3, 1, 2), new CaptureLosses(2, 0, 2).plus(new CaptureLosses(1, 1, 0)));
    }
}
