package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.flagos.trace.session.StepSchedule;
import org.junit.jupiter.api.Test;

/**
 * {@link ScheduleSpec}: {@code --schedule}'s text in torch.profiler.schedule's words becomes the builder's schedule,
 * field for field, whatever the order and spacing; each malformed spec is refused with one usage line that names the
 * key and the value.
 */
class ScheduleSpecTest {
    @Test
    void everyKeyReachesItsParameter() {
        assertEquals("StepSchedule[skipFirst=5, waitSteps=1, warmup=2, active=3, repeat=4, skipFirstWait]",
                ScheduleSpec.parse("wait=1,warmup=2,active=3,repeat=4,skip_first=5,skip_first_wait=1").toString());
        assertEquals("StepSchedule[skipFirst=0, waitSteps=0, warmup=0, active=1, repeat=0]", ScheduleSpec.parse("active=1").toString(),
                "the rest defaults to 0, as torch's");
        assertEquals("StepSchedule[skipFirst=7, waitSteps=0, warmup=0, active=2, repeat=0]",
                ScheduleSpec.parse(" skip_first = 7 , active=2,skip_first_wait=0").toString(), "any order, spaces stripped");
    }

    @Test
    void theParsedScheduleActsAsTorchsDocumentedExample() {
        // torch's docstring: wait=1, warmup=1, active=2, repeat=1: none, warmup, record, record and save, then nothing
        StepSchedule s = ScheduleSpec.parse("wait=1,warmup=1,active=2,repeat=1");
        StringBuilder letters = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            letters.append(switch (s.action(i)) {
                case NONE -> 'N';
                case WARMUP -> 'W';
                case RECORD -> 'R';
                case RECORD_AND_SAVE -> 'S';
            });
        }
        assertEquals("NWRSNNNN", letters.toString());
        assertEquals(ScheduleSpec.KEYS, java.util.List.of("wait", "warmup", "active", "repeat", "skip_first", "skip_first_wait"),
                "torch.profiler.schedule's parameter names");
    }

    @Test
    void malformedSpecsAreRefusedNamingWhatIsWrong() {
        refused("--schedule: 'active' is not KEY=N", "active");
        refused("--schedule: '' is not KEY=N", "active=1,");
        refused("--schedule: unknown key 'cycles'; torch's keys: wait, warmup, active, repeat, skip_first, skip_first_wait",
                "active=1,cycles=2");
        refused("--schedule: unknown key 'Active'; torch's keys: wait, warmup, active, repeat, skip_first, skip_first_wait", "Active=1");
        refused("--schedule: wait given twice", "wait=1,wait=1,active=1");
        refused("--schedule: warmup must be a whole number, was 'x'", "warmup=x,active=1");
        refused("--schedule: repeat must be a whole number, was '1.5'", "active=1,repeat=1.5");
        refused("--schedule: active must be a whole number, was '99999999999999999999'", "active=99999999999999999999");
        refused("--schedule: wait must be 0 or more, was -1", "wait=-1,active=1");
        refused("--schedule: skip_first must be 0 or more, was -3", "skip_first=-3,active=1");
        refused("--schedule: skip_first_wait must be 0 or 1, was 2", "active=1,skip_first_wait=2");
        refused("--schedule: active must be at least 1 (the recorded steps of a cycle)", "active=0");
        refused("--schedule: active must be at least 1 (the recorded steps of a cycle)", "wait=1");
        refused("--schedule: step schedule: waitSteps + warmup + active overflows a long (9223372036854775807 + 0 + 1)",
                "wait=9223372036854775807,active=1");
    }

    private static void refused(String message, String spec) {
        UsageException e = assertThrows(UsageException.class, () -> ScheduleSpec.parse(spec), spec);
        assertEquals(message, e.getMessage(), spec);
    }
}
