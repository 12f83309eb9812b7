package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.flagos.trace.model.UnavailableTracer;
import org.junit.jupiter.api.Test;

/** The warm-up {@link Profiler#init()} starts: it walks its synthetic capture as a session's and leaves no thread behind. */
class SessionWarmupTest {
    @Test
    void aWarmUpEndsWithEveryThreadItStarted() throws Exception {
        Set<Thread> before = liveThreads();
        // Each op as a live one is walked: cpu_op, runtime, memset, a flow's two halves and the op's GPU
        // span; every 64th op is followed by a synchronization outside every op (its runtime call, its
        // cuda_sync and their flow's two halves) and an overhead record: 46 of them in 3,000 ops.
        long expected = 6 * 3_000 + 5 * (3_000 / 64);
        long events = SessionWarmup.run(3_000, new UnavailableTracer("test").apiNames());
        assertEquals(expected, events);
        SessionWarmup.Walked live = SessionWarmup.walk(3_000, new UnavailableTracer("test").apiNames(), 512);
        assertEquals(expected, live.events(), "the same walked with a live bound, ops settling as the records come");
        // The ops come before their records, as in a session, yet within the bound: none settles early.
        assertEquals(0, live.accounting().recordsAfterOpSettled());
        assertEquals(0, live.accounting().deviceRecordsWithoutOp());
        assertEquals(0, live.accounting().opsSettledAtCapacity());
        assertEquals(512, live.accounting().opSettleRecords(), "no record came late enough to grow the bound");
        assertEquals(3_000, live.accounting().gpuAnnotations());
        assertEquals(1, live.accounting().droppedOutsideWindow(org.flagos.trace.model.EventKind.OVERHEAD),
                "the overhead record after the window's end, as a session's flush at stop holds one");
        assertTrue(live.accounting().hostClock() != null, "the close's clock re-check is walked into the footer too");
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
    void theCapturesAreTheShortOneTheMainOneThenShortOnesForTheTailsTimeAndAFailureEndsThem() {
        List<Integer> walked = new ArrayList<>();
        SessionWarmup.walkCaptures(0, () -> false, ops -> walked.add(ops));
        assertEquals(List.of(SessionWarmup.FIRST_OPS, SessionWarmup.OPS), walked, "no tail time: no tail");
        walked.clear();
        SessionWarmup.walkCaptures(3_600_000, () -> false, ops -> walked.add(ops));
        List<Integer> all = new ArrayList<>(List.of(SessionWarmup.FIRST_OPS, SessionWarmup.OPS));
        all.addAll(Collections.nCopies(SessionWarmup.TAIL_CAPTURES, SessionWarmup.TAIL_OPS));
        assertEquals(all, walked, "an hour of tail: every tail capture, no more");
        for (int failing = 1; failing <= 3; failing++) {
            walked.clear();
            int last = failing;
            SessionWarmup.walkCaptures(3_600_000, () -> false, ops -> walked.add(ops) && walked.size() < last);
            assertEquals(all.subList(0, failing), walked, "capture " + failing + " failed");
        }
        for (int started = 0; started <= 3; started++) {
            walked.clear();
            int atCapture = started;
            SessionWarmup.walkCaptures(3_600_000, () -> walked.size() >= atCapture, ops -> walked.add(ops));
            assertEquals(all.subList(0, Math.max(2, started)), walked,
                    "a session started after capture " + started + ": the first two are walked, no tail capture after it");
        }
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
