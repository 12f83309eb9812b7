package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The record itself, built directly: torch.profiler.schedule's function on parameter sets the builder's
 * test leaves out (no warmup, a single cycle after skip_first_wait, repeat counting whole cycles). The
 * strings are worked out by hand from torch's definition (N none, W warmup, R record, S record and save).
 */
class CyclicScheduleTest {
    private static String actions(CyclicSchedule schedule, int steps) {
        return StepScheduleTest.actions(schedule, steps);
    }

    @Test
    void noWarmupGoesFromWaitingStraightToRecording() {
        assertEquals("NNS".repeat(4), actions(new CyclicSchedule(0, 2, 0, 1, 0, false), 12));
        assertEquals("NRRS".repeat(2) + "NNNN", actions(new CyclicSchedule(0, 1, 0, 3, 2, false), 12));
    }

    @Test
    void repeatCountsWholeCycles() {
        assertEquals("SSS" + "NNNNN", actions(new CyclicSchedule(0, 0, 0, 1, 3, false), 8));
        assertEquals("WRS" + "NNNNN", actions(new CyclicSchedule(0, 0, 1, 2, 1, false), 8));
    }

    @Test
    void skipFirstWaitWithOneCycleRecordsOnceRightAfterTheSkippedSteps() {
        // skip_first=1, wait=2, warmup=1, active=2, repeat=1: step 1 enters the cycle at its warmup
        assertEquals("N" + "WRS" + "NNNN", actions(new CyclicSchedule(1, 2, 1, 2, 1, true), 8));
        // without skip_first_wait the same cycle waits its two steps first
        assertEquals("N" + "NNWRS" + "NN", actions(new CyclicSchedule(1, 2, 1, 2, 1, false), 8));
    }

    @Test
    void farStepsKeepCycling() {
        CyclicSchedule s = new CyclicSchedule(3, 1, 1, 1, 0, false);
        // step 3 + 3k is a wait, 4 + 3k a warmup, 5 + 3k a save
        assertEquals(StepAction.NONE, s.action(3_000_000_003L));
        assertEquals(StepAction.WARMUP, s.action(3_000_000_004L));
        assertEquals(StepAction.RECORD_AND_SAVE, s.action(3_000_000_005L));
    }

    @Test
    void aNegativeStepIsRefused() {
        assertEquals("step schedule: steps count from 0, asked for -3",
                assertThrows(IllegalArgumentException.class, () -> new CyclicSchedule(0, 0, 0, 1, 0, false).action(-3)).getMessage());
    }

    @Test
    void describesItselfWithSkipFirstWaitOnlyWhenSet() {
        assertEquals("StepSchedule[skipFirst=0, waitSteps=2, warmup=0, active=1, repeat=0]",
                new CyclicSchedule(0, 2, 0, 1, 0, false).toString());
        assertEquals("StepSchedule[skipFirst=1, waitSteps=2, warmup=1, active=2, repeat=1, skipFirstWait]",
                new CyclicSchedule(1, 2, 1, 2, 1, true).toString());
    }
}
