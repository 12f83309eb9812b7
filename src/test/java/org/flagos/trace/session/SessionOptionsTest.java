package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.model.OpStack;
import org.flagos.trace.model.ProcessIdentity;
import org.junit.jupiter.api.Test;

/**
 * Session options and the schedule's template of them: one default and one check per option,
 * whichever way the options are made (builder, wither, schedule), and a wither changes its option only.
 */
class SessionOptionsTest {
    private static final Path TRACE = Path.of("target", "options-test", "t.json");

    @Test
    void toGivesEveryDefault() {
        SessionOptions o = SessionOptions.to(TRACE);
        assertEquals(TRACE, o.trace());
        assertNull(o.dumpBuffers());
        assertEquals(List.of(), o.devices());
        assertEquals(Map.of(), o.metadata());
        assertNull(o.journal());
        assertEquals(0, o.stackDepth());
        assertTrue(o.gpuAnnotations());
        assertNull(o.identity());
        assertEquals(o, SessionOptions.builder().trace(TRACE).build());
        assertEquals(o, o.toBuilder().build(), "toBuilder keeps every option");
    }

    @Test
    void eachWitherChangesItsOptionOnly() {
        SessionOptions base = SessionOptions.to(TRACE).withStack(3);
        Path dir = Path.of("target", "options-test", "j");
        assertEquals(base.toBuilder().journal(JournalOptions.to(dir)).build(), base.withJournal(dir));
        assertEquals(base.toBuilder().stackDepth(7).build(), base.withStack(7));
        assertEquals(base.toBuilder().gpuAnnotations(false).build(), base.withoutGpuAnnotations());
        ProcessIdentity who = ProcessIdentity.ofThisProcess(Map.of()).withRank(2, 4);
        assertEquals(base.toBuilder().identity(who).build(), base.withIdentity(who));
        assertEquals(base.toBuilder().dumpBuffers(dir).build(), base.withDumpBuffers(dir));
        assertEquals(base.toBuilder().metadata(Map.of("k", "v")).build(), base.withMetadata(Map.of("k", "v")));
        assertEquals(3, base.withoutGpuAnnotations().withJournal(dir).stackDepth(), "the stack depth stays");
    }

    /** The stack depth is checked in one place: a builder, a wither and a schedule's template all meet it. */
    @Test
    void theStackDepthIsCheckedWhereverItIsSet() {
        for (int depth : new int[] {-1, OpStack.MAX_FRAMES + 1}) {
            String expected = "stackDepth must be 0 (no stacks) to " + OpStack.MAX_FRAMES + ", not " + depth;
            assertEquals(expected, assertThrows(IllegalArgumentException.class,
                    () -> SessionOptions.builder().stackDepth(depth).build()).getMessage());
            assertEquals(expected, assertThrows(IllegalArgumentException.class,
                    () -> SessionOptions.to(TRACE).withStack(depth)).getMessage());
            assertEquals(expected, assertThrows(IllegalArgumentException.class,
                    () -> ScheduleOptions.in(TRACE.getParent(), StepSchedule.builder().active(1).build()).withStack(depth)).getMessage());
        }
        assertEquals(OpStack.MAX_FRAMES, SessionOptions.to(TRACE).withStack(OpStack.MAX_FRAMES).stackDepth());
    }

    @Test
    void metadataKeepsTheOrderGivenAndCannotBeChangedAfterwards() {
        Map<String, String> given = new LinkedHashMap<>();
        for (String k : List.of("zeta", "alpha", "mid", "beta")) {
            given.put(k, k.toUpperCase());
        }
        SessionOptions o = SessionOptions.to(TRACE).withMetadata(given);
        given.put("late", "x");
        assertEquals(List.of("zeta", "alpha", "mid", "beta"), List.copyOf(o.metadata().keySet()));
        assertThrows(UnsupportedOperationException.class, () -> o.metadata().put("k", "v"));
    }

    /** A schedule's cycles are its template with their own trace and dump; the template names neither. */
    @Test
    void aScheduleCycleIsItsTemplateWithItsOwnTraceAndDump() {
        Path dir = TRACE.getParent();
        ProcessIdentity who = ProcessIdentity.ofThisProcess(Map.of()).withRank(1, 2);
        ScheduleOptions schedule = ScheduleOptions.in(dir, StepSchedule.builder().active(1).build())
                .withStack(5).withoutGpuAnnotations().withIdentity(who).withMetadata(Map.of("run", "7")).gzipped();
        Path trace = dir.resolve("c.json.gz");
        Path dump = dir.resolve("c.fltrbuf");
        SessionOptions cycle = schedule.cycle(trace, dump);
        assertEquals(schedule.session().toBuilder().trace(trace).dumpBuffers(dump).build(), cycle);
        assertEquals(5, cycle.stackDepth());
        assertFalse(cycle.gpuAnnotations());
        assertEquals(who, cycle.identity());
        assertEquals(Map.of("run", "7"), cycle.metadata());
        assertTrue(schedule.gzip());
        assertEquals(".pt.trace.json.gz", schedule.suffix());
        assertNull(schedule.session().trace(), "the template has no trace of its own");
        for (java.util.function.UnaryOperator<SessionOptions> own : List.<java.util.function.UnaryOperator<SessionOptions>>of(
                s -> s.withTrace(trace), s -> s.withDumpBuffers(dump), s -> s.withJournal(dir.resolve("j")))) {
            assertThrows(IllegalArgumentException.class, () -> schedule.withSession(own));
        }
    }
}
