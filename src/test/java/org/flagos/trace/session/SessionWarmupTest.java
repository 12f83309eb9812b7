package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.stream.Collectors;
import org.flagos.trace.model.UnavailableTracer;
import org.junit.jupiter.api.Test;

/** The warm-up {@link Profiler#init()} starts: it walks its synthetic capture as a session's and leaves no thread behind. */
class SessionWarmupTest {
    @Test
    void aWarmUpEndsWithEveryThreadItStarted() throws Exception {
        Set<Thread> before = liveThreads();
        long events = SessionWarmup.run(3_000, new UnavailableTracer("test").apiNames());
        assertEquals(6 * 3_000, events, "each op walked as a live one is: cpu_op, runtime, memset, a flow's two halves and the op's GPU span");
        assertEquals(6 * 3_000, SessionWarmup.run(3_000, new UnavailableTracer("test").apiNames(), 512),
                "the same walked with a live bound, ops settling as the records come");
        long deadline = System.nanoTime() + 10_000_000_000L;
        Set<Thread> after = liveThreads();
        while (!before.containsAll(after) && System.nanoTime() < deadline) {
            Thread.sleep(20); // the stage threads are ending after the shutdown
            after = liveThreads();
        }
        after.removeAll(before);
        assertEquals(Set.of(), after, "threads left by the warm-up");
    }

    @Test
    void withoutADeviceTracerOrWhenTurnedOffNoWarmUpStarts() {
        String saved = System.getProperty(SessionWarmup.PROPERTY);
        try {
            System.clearProperty(SessionWarmup.PROPERTY);
            SessionWarmup.startIfWanted(false, new UnavailableTracer("test").apiNames());
            System.setProperty(SessionWarmup.PROPERTY, "false");
            SessionWarmup.startIfWanted(true, new UnavailableTracer("test").apiNames());
            assertTrue(liveThreads().stream().noneMatch(t -> t.getName().equals("flagtrace-warmup")));
        } finally {
            if (saved == null) {
                System.clearProperty(SessionWarmup.PROPERTY);
            } else {
                System.setProperty(SessionWarmup.PROPERTY, saved);
            }
        }
    }

    private static Set<Thread> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).collect(Collectors.toSet());
    }
}
