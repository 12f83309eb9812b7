package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.flagos.trace.journal.JournalOptions;
import org.junit.jupiter.api.Test;

/**
 * {@link ScheduleOptions}: the session template names no trace, dump or journal (each cycle has its own), refused in
 * words however it is given; a cycle's options are the template with that cycle's trace and dump; torch's suffixes
 * with and without gzip; each wither keeps the rest.
 */
class ScheduleOptionsTest {
    private static final Path DIR = Path.of("target", "schedule-options");
    private static final StepSchedule SCHEDULE = StepSchedule.builder().waitSteps(1).warmup(1).active(2).build();
    private static final String REFUSAL = "the session template of a schedule names no trace, dump or journal: each cycle has its own";

    @Test
    void theTemplateNamesNoTraceDumpOrJournal() {
        ScheduleOptions o = ScheduleOptions.in(DIR, SCHEDULE);
        assertEquals(REFUSAL, assertThrows(IllegalArgumentException.class,
                () -> o.withSession(s -> s.toBuilder().trace(DIR.resolve("t.json")).build())).getMessage());
        assertEquals(REFUSAL, assertThrows(IllegalArgumentException.class,
                () -> o.withSession(s -> s.toBuilder().dumpBuffers(DIR.resolve("d.fltrbuf")).build())).getMessage());
        assertEquals(REFUSAL, assertThrows(IllegalArgumentException.class,
                () -> o.withSession(s -> s.toBuilder().journal(JournalOptions.to(DIR.resolve("j"))).build())).getMessage());
        assertEquals(REFUSAL, assertThrows(IllegalArgumentException.class, () -> new ScheduleOptions(DIR, SCHEDULE,
                TraceReadyHandler.tensorboard(DIR), false, false, SessionOptions.to(DIR.resolve("t.json")))).getMessage());
        assertEquals("directory", assertThrows(NullPointerException.class, () -> ScheduleOptions.in(null, SCHEDULE)).getMessage());
        assertEquals("schedule", assertThrows(NullPointerException.class, () -> ScheduleOptions.in(DIR, null)).getMessage());
    }

    @Test
    void aCycleIsTheTemplateWithItsOwnTraceAndDump() {
        ScheduleOptions o = ScheduleOptions.in(DIR, SCHEDULE).withStack(5).withMetadata(Map.of("job", "j1")).withoutGpuAnnotations()
                .withRank(1, 4);
        SessionOptions cycle = o.cycle(DIR.resolve(".c1.pt.trace.json"), DIR.resolve(".c1.fltrbuf"));
        assertEquals(DIR.resolve(".c1.pt.trace.json"), cycle.trace());
        assertEquals(DIR.resolve(".c1.fltrbuf"), cycle.dumpBuffers());
        assertEquals(5, cycle.stackDepth());
        assertEquals(Map.of("job", "j1"), cycle.metadata());
        assertFalse(cycle.gpuAnnotations());
        assertEquals(1, cycle.identity().rank());
        assertEquals(4, cycle.identity().worldSize());
        assertNull(o.cycle(DIR.resolve(".c2.pt.trace.json"), null).dumpBuffers(), "no dump asked: none");
        assertNull(o.session().trace(), "the template stays without a trace");
    }

    @Test
    void torchsSuffixesAndWithersThatKeepTheRest() {
        ScheduleOptions plain = ScheduleOptions.in(DIR, SCHEDULE);
        assertEquals(".pt.trace.json", plain.suffix());
        assertFalse(plain.gzip());
        assertFalse(plain.bufferDumps());
        ScheduleOptions gz = plain.gzipped();
        assertEquals(".pt.trace.json.gz", gz.suffix());
        TraceReadyHandler mine = trace -> { };
        ScheduleOptions all = gz.withBufferDumps().onTraceReady(mine);
        assertTrue(all.gzip());
        assertTrue(all.bufferDumps());
        assertSame(mine, all.onTraceReady());
        assertSame(SCHEDULE, all.schedule());
        assertEquals(DIR, all.directory());
        assertTrue(all.withStack(3).gzip(), "a session wither keeps the schedule's own fields");
    }
}
