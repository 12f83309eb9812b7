package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A clock anchor: one realtime reading bracketed by monotonic ones, and the trace time of the bracket's middle. */
class ClockAnchorTest {
    @Test
    void takesTheTightestBracketAndItsTraceTime() {
        // monotonic readings 100, 110 | 200, 204 | 300, 307 ...: the second bracket (gap 4) is the tightest
        long[] monotonic = {100, 110, 200, 204, 300, 307};
        AtomicLong m = new AtomicLong();
        AtomicLong r = new AtomicLong();
        ClockAnchor a = ClockAnchor.take("start", () -> {
            int i = (int) m.getAndIncrement();
            return i < monotonic.length ? monotonic[i] : 1000 + 100 * i; // later brackets have gaps of 100
        }, () -> 5_000 + r.getAndIncrement(), mono -> mono + 1_000_000);
        assertEquals(ClockAnchor.TRIES * 2, m.get(), "every try read twice");
        assertEquals(ClockAnchor.TRIES, r.get());
        assertEquals("start", a.at());
        assertEquals(202, a.monotonicNs(), "the middle of 200 .. 204");
        assertEquals(5_001, a.realtimeNs(), "the realtime read inside that bracket");
        assertEquals(1_000_202, a.traceNs());
        assertEquals(2, a.boundNs());
        assertEquals(1_000_202 - 5_001, a.realtimeOffsetNs());
        assertEquals(1_000_000, a.monotonicOffsetNs());
    }

    @Test
    void theStartAnchorIsTheOneTakenAtStartElseTheFirst() {
        ClockAnchor later = new ClockAnchor("stop", 1, 2, 3, 0);
        ClockAnchor start = new ClockAnchor("start", 4, 5, 6, 0);
        assertSame(start, ClockAnchor.start(List.of(later, start)));
        assertSame(later, ClockAnchor.start(List.of(later, new ClockAnchor("flush", 7, 8, 9, 0))));
        assertNull(ClockAnchor.start(List.of()));
    }

    @Test
    void anAnchorSaysWhenAndHowTightly() {
        assertEquals("a clock anchor says when it was taken",
                assertThrows(IllegalArgumentException.class, () -> new ClockAnchor("", 1, 2, 3, 0)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ClockAnchor(null, 1, 2, 3, 0));
        assertEquals("a clock anchor's bound is 0 or more, not -1",
                assertThrows(IllegalArgumentException.class, () -> new ClockAnchor("start", 1, 2, 3, -1)).getMessage());
    }
}
