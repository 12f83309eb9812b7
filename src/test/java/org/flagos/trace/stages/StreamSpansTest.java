package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link StreamSpans}: stream keys round-trip, spans widen, a holder keeps at most PER_HOLDER streams. */
class StreamSpansTest {
    @Test
    void streamKeyRoundTripsDeviceAndStreamIncludingNegativesAndTheFullRange() {
        int[] values = {0, 1, 7, 65_535, Integer.MAX_VALUE, -1, Integer.MIN_VALUE};
        for (int d : values) {
            for (int s : values) {
                long k = StreamSpans.streamKey(d, s);
                assertEquals(d, StreamSpans.device(k), "device of " + d + "/" + s);
                assertEquals(s, StreamSpans.stream(k), "stream of " + d + "/" + s);
            }
        }
        assertNotEquals(StreamSpans.streamKey(0, 1), StreamSpans.streamKey(1, 0));
        assertEquals(0x0000_0002_FFFF_FFFFL, StreamSpans.streamKey(2, -1));
    }

    @Test
    void addWidensTheSpanOfAStreamItHolds() {
        StreamSpans spans = new StreamSpans(2);
        long k = StreamSpans.streamKey(0, 7);
        assertTrue(spans.add(1, k, 100, 200));
        assertTrue(spans.add(1, k, 150, 180)); // inside: no change
        assertEquals(1, spans.count(1));
        assertEquals(100, spans.start(1, 0));
        assertEquals(200, spans.end(1, 0));
        assertTrue(spans.add(1, k, 50, 120)); // earlier start
        assertTrue(spans.add(1, k, 190, 260)); // later end
        assertEquals(1, spans.count(1));
        assertEquals(k, spans.key(1, 0));
        assertEquals(50, spans.start(1, 0));
        assertEquals(260, spans.end(1, 0));
        assertEquals(0, spans.count(0), "another holder is untouched");
    }

    @Test
    void aHolderKeepsAtMostPerHolderStreamsAndWidensThemWhenFull() {
        StreamSpans spans = new StreamSpans(1);
        for (int s = 0; s < StreamSpans.PER_HOLDER; s++) {
            assertTrue(spans.add(0, StreamSpans.streamKey(0, s), 10 * s, 10 * s + 5));
        }
        assertFalse(spans.add(0, StreamSpans.streamKey(0, 99), 0, 1));
        assertFalse(spans.add(0, StreamSpans.streamKey(1, 0), 0, 1), "another device's stream 0 is another stream");
        assertEquals(StreamSpans.PER_HOLDER, spans.count(0));
        assertTrue(spans.add(0, StreamSpans.streamKey(0, 3), 0, 100));
        assertEquals(0, spans.start(0, 3));
        assertEquals(100, spans.end(0, 3));
        spans.clear(0);
        assertEquals(0, spans.count(0));
        assertTrue(spans.add(0, StreamSpans.streamKey(0, 99), 0, 1));
        assertEquals(StreamSpans.streamKey(0, 99), spans.key(0, 0));
    }

    @Test
    void addAllMergesAndCountsWhatFindsNoRoom() {
        StreamSpans from = new StreamSpans(1);
        for (int s = 0; s < StreamSpans.PER_HOLDER; s++) {
            from.add(0, StreamSpans.streamKey(0, s), 100 + s, 200 + s);
        }
        StreamSpans to = new StreamSpans(1);
        to.add(0, StreamSpans.streamKey(0, 0), 50, 150); // shares stream 0
        to.add(0, StreamSpans.streamKey(0, 10), 0, 1);
        to.add(0, StreamSpans.streamKey(0, 11), 0, 1);
        // room for one of from's three new streams (1, 2, 3): two are lost
        assertEquals(2, to.addAll(0, from, 0));
        assertEquals(StreamSpans.PER_HOLDER, to.count(0));
        assertEquals(50, to.start(0, 0));
        assertEquals(200, to.end(0, 0));
        assertEquals(StreamSpans.streamKey(0, 1), to.key(0, 3));
        assertEquals(101, to.start(0, 3));
        assertEquals(201, to.end(0, 3));
    }

    @Test
    void copyReplacesAndEnsureKeepsWhatIsHeld() {
        StreamSpans a = new StreamSpans(1);
        a.add(0, StreamSpans.streamKey(3, 4), 5, 6);
        StreamSpans b = new StreamSpans(1);
        b.add(0, StreamSpans.streamKey(0, 0), 1, 2);
        b.add(0, StreamSpans.streamKey(0, 1), 1, 2);
        b.ensure(9);
        b.copy(8, a, 0);
        assertEquals(1, b.count(8));
        assertEquals(StreamSpans.streamKey(3, 4), b.key(8, 0));
        assertEquals(5, b.start(8, 0));
        assertEquals(6, b.end(8, 0));
        assertEquals(2, b.count(0), "ensure kept holder 0's spans");
        assertEquals(StreamSpans.streamKey(0, 1), b.key(0, 1));
        b.copy(0, a, 0);
        assertEquals(1, b.count(0));
    }
}
