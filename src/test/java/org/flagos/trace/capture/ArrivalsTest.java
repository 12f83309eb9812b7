package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.KernelNames;
import org.junit.jupiter.api.Test;

/**
 * What an arriving replay's queues share: the bound on what waits (past it, it gives up and empties every queue), the
 * close (nothing added after it), the tick (only ever later), and the one wait: it answers at once when nothing is to
 * be waited for, and a replay given up, before or while waiting, or interrupted, stops with the reason.
 */
class ArrivalsTest {
    /** A close, for the tests of an arriving replay's parts: what it tells is not theirs to read. */
    static final ArrivingReplay.Closing CLOSING = new ArrivingReplay.Closing(0, List.of(), Map.of(), KernelNames.NONE, () -> false);

    @Test
    void pastItsBoundItGivesUpSayingHowFarBehindAndEmptiesEveryQueue() {
        Arrivals arrivals = new Arrivals(3L << 20);
        ArrayDeque<String> a = arrivals.queue(new ArrayDeque<>());
        ArrayDeque<String> b = arrivals.queue(new ArrayDeque<>());
        arrivals.add(2L << 20, () -> a.add("first"));
        arrivals.add(1L << 20, () -> b.add("second"));
        assertEquals(List.of("first"), List.copyOf(a));
        assertEquals(3L << 20, (long) arrivals.locked(arrivals::queuedBytes), "at the bound, not past it");
        arrivals.add(1, () -> a.add("third"));
        assertTrue(a.isEmpty() && b.isEmpty());
        assertEquals(0, (long) arrivals.locked(arrivals::queuedBytes));
        Arrivals.GivenUp e = assertThrows(Arrivals.GivenUp.class, () -> arrivals.awaitWhile(() -> false, () -> "answered"));
        assertEquals("the replay fell 3 MB behind the stream", e.getMessage());
        arrivals.add(1, () -> a.add("after"));
        assertTrue(a.isEmpty(), "nothing is held once given up");
    }

    @Test
    void theFirstReasonToGiveUpStands() {
        Arrivals arrivals = new Arrivals(100);
        arrivals.giveUp("the capture could not be written");
        arrivals.giveUp("interrupted");
        arrivals.add(1_000, () -> { });
        assertEquals("the capture could not be written",
                assertThrows(Arrivals.GivenUp.class, () -> arrivals.awaitWhile(() -> true, () -> 0)).getMessage());
    }

    @Test
    void closedNothingMoreIsAddedAndTheClosingIsKept() {
        Arrivals arrivals = new Arrivals(100);
        ArrayDeque<String> q = arrivals.queue(new ArrayDeque<>());
        assertEquals(null, arrivals.closing());
        arrivals.close(CLOSING);
        arrivals.add(1, () -> q.add("late"));
        assertTrue(q.isEmpty());
        assertEquals(0, (long) arrivals.locked(arrivals::queuedBytes));
        assertTrue(arrivals.awaitWhile(() -> !arrivals.closed(), arrivals::closed));
        assertEquals(CLOSING, arrivals.closing());
    }

    @Test
    void theTickOnlyMovesLaterAndWhatIsTakenIsNoLongerCounted() {
        Arrivals arrivals = new Arrivals(100);
        assertEquals(Long.MIN_VALUE, (long) arrivals.locked(arrivals::tick));
        arrivals.tick(20);
        arrivals.tick(10);
        assertEquals(20, (long) arrivals.locked(arrivals::tick));
        arrivals.add(60, () -> { });
        arrivals.locked(() -> {
            arrivals.taken(40);
            return null;
        });
        assertEquals(20, (long) arrivals.locked(arrivals::queuedBytes));
        arrivals.add(80, () -> { }); // 100: at the bound, still held
        assertEquals(100, (long) arrivals.awaitWhile(() -> false, arrivals::queuedBytes));
    }

    @Test
    void anInterruptedWaitStopsTheReplayAsRunClosing() {
        Arrivals arrivals = new Arrivals(100);
        Thread.currentThread().interrupt();
        try {
            Arrivals.GivenUp e = assertThrows(Arrivals.GivenUp.class, () -> arrivals.awaitWhile(() -> true, () -> 0));
            assertEquals("interrupted: flagtrace run is closing", e.getMessage());
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
        assertFalse(Thread.currentThread().isInterrupted());
    }
}
