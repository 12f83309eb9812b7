package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The builder's schedule is torch.profiler.schedule's function. The expected strings are worked out
 * by hand from torch's definition (one letter a step: N none, W warmup, R record, S record and save).
 */
class StepScheduleTest {
    /** One letter a step of {@code schedule}'s first {@code steps} (N none, W warmup, R record, S record and save). */
    static String actions(StepSchedule schedule, int steps) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < steps; i++) {
            out.append(switch (schedule.action(i)) {
                case NONE -> 'N';
                case WARMUP -> 'W';
                case RECORD -> 'R';
                case RECORD_AND_SAVE -> 'S';
            });
        }
        return out.toString();
    }

    @Test
    void torchsDocumentedExample() {
        // torch's docstring: wait=1, warmup=1, active=2, repeat=1 skips the first step, warms up on the
        // second, records the third and fourth, then nothing.
        StepSchedule s = StepSchedule.builder().waitSteps(1).warmup(1).active(2).repeat(1).build();
        assertEquals("NWRSNNNN", actions(s, 8));
    }

    @Test
    void skipFirstThenRepeatedCycles() {
        StepSchedule s = StepSchedule.builder().skipFirst(2).waitSteps(1).warmup(1).active(2).repeat(2).build();
        assertEquals("NN" + "NWRS" + "NWRS" + "NNNN", actions(s, 14));
    }

    @Test
    void repeatZeroCyclesForever() {
        StepSchedule s = StepSchedule.builder().warmup(1).active(1).build();
        assertEquals("WS".repeat(50), actions(s, 100));
        assertEquals(StepAction.RECORD_AND_SAVE, s.action(1_000_000_001L));
    }

    @Test
    void activeOnlyMakesEveryStepACycle() {
        assertEquals("SSSS", actions(StepSchedule.builder().active(1).build(), 4));
        assertEquals("RRRS" + "RRRS", actions(StepSchedule.builder().active(4).build(), 8));
    }

    @Test
    void skipFirstWaitEntersTheFirstCycleAtItsWarmup() {
        StepSchedule s = StepSchedule.builder().skipFirst(1).waitSteps(3).warmup(1).active(1).repeat(2).skipFirstWait(true)
                .build();
        // step 1 is the first cycle's warmup; the second cycle waits its three steps; then nothing
        assertEquals("N" + "WS" + "NNNWS" + "NNN", actions(s, 11));
        StepSchedule plain = StepSchedule.builder().skipFirst(1).waitSteps(3).warmup(1).active(1).repeat(2).build();
        assertEquals("N" + "NNNWS" + "NNNWS" + "NN", actions(plain, 13));
    }

    @Test
    void badParametersAreRefusedNamingTheParameter() {
        assertMessage("skipFirst must be 0 or more, was -1", () -> StepSchedule.builder().skipFirst(-1).active(1).build());
        assertMessage("waitSteps must be 0 or more, was -2", () -> StepSchedule.builder().waitSteps(-2).active(1).build());
        assertMessage("warmup must be 0 or more, was -3", () -> StepSchedule.builder().warmup(-3).active(1).build());
        assertMessage("repeat must be 0 or more, was -4", () -> StepSchedule.builder().repeat(-4).active(1).build());
        assertMessage("active must be at least 1", () -> StepSchedule.builder().build());
        assertMessage("active must be at least 1 (the recorded steps of a cycle), was -5",
                () -> StepSchedule.builder().active(-5).build());
        assertMessage("overflows", () -> StepSchedule.builder().waitSteps(Long.MAX_VALUE).active(1).build());
        StepSchedule s = StepSchedule.builder().active(1).build();
        assertMessage("steps count from 0, asked for -1", () -> s.action(-1));
    }

    @Test
    void describesItself() {
        assertEquals("StepSchedule[skipFirst=1, waitSteps=2, warmup=3, active=4, repeat=5, skipFirstWait]",
                StepSchedule.builder().skipFirst(1).waitSteps(2).warmup(3).active(4).repeat(5).skipFirstWait(true).build()
                        .toString());
    }

    private static void assertMessage(String part, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(part), e.getMessage());
        assertTrue(e.getMessage().startsWith("step schedule: "), e.getMessage());
    }
}
