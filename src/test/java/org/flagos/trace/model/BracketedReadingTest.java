package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.PrimitiveIterator;
import java.util.function.LongSupplier;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * {@link BracketedReading}: of scripted readings, the inner one between the two closest outer readings is kept with
 * their midpoint, the first on a tie; an outer clock seen going back is never a bracket; the bound is half the gap
 * rounded up, and stays non-negative when no try bracketed anything; with the system's clocks the anchor's real time
 * is within its bound of the real-time clock read around it.
 */
class BracketedReadingTest {
    private static LongSupplier script(long... values) {
        PrimitiveIterator.OfLong it = LongStream.of(values).iterator();
        return it::nextLong;
    }

    @Test
    void theTightestBracketIsKept() {
        // tries: outer 100..110 (gap 10), 200..203 (3), 300..299 (back: no bracket), 400..403 (3, a tie: the first kept)
        BracketedReading r = BracketedReading.tightest(script(100, 110, 200, 203, 300, 299, 400, 403), script(7, 8, 9, 10), 4);
        assertEquals(new BracketedReading(201, 8, 3), r);
        assertEquals(2, r.boundNs(), "half of 3, rounded up");
        assertEquals(0, BracketedReading.tightest(script(5, 5), script(42), 1).boundNs(), "no gap, no bound");
        assertEquals(new BracketedReading(5, 42, 0), BracketedReading.tightest(script(5, 5), script(42), 1));
        assertEquals(1, new BracketedReading(0, 0, 1).boundNs());
        assertEquals(2, new BracketedReading(0, 0, 4).boundNs());
        assertEquals(new BracketedReading(Long.MAX_VALUE - 5, 1, 10),
                BracketedReading.tightest(script(Long.MAX_VALUE - 10, Long.MAX_VALUE), script(1), 1), "no overflow in the midpoint");
    }

    @Test
    void noBracketMeansNoReadingAndAnUnboundedNotNegativeBound() {
        BracketedReading none = BracketedReading.tightest(script(10, 9, 20, 19), script(1, 2), 2);
        assertEquals(Long.MAX_VALUE, none.gapNs());
        assertEquals(Long.MAX_VALUE / 2 + 1, none.boundNs(), "half of 2^63 - 1 rounded up, not a negative number");
        assertEquals(Long.MAX_VALUE, BracketedReading.tightest(script(), script(), 0).gapNs(), "no try");
    }

    @Test
    void theSystemsClocks() {
        long before = System.currentTimeMillis() * 1_000_000L;
        ClockAnchor a = ClockAnchor.take("start", System::nanoTime, () -> System.currentTimeMillis() * 1_000_000L, t -> t);
        long after = System.currentTimeMillis() * 1_000_000L;
        assertTrue(a.boundNs() >= 0 && a.boundNs() < 1_000_000_000L, "" + a);
        assertTrue(a.realtimeNs() >= before && a.realtimeNs() <= after, a.toString());
        assertEquals(a.monotonicNs(), a.traceNs());
    }
}
