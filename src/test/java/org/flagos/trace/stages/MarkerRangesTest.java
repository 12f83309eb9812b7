package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.MarkerPhase;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * The walk's annotation ranges on their own: a range's start and end paired by marker id in any
 * closing order, every unpaired point counted, the bound on open ranges, and which open range claims
 * a call made outside every op (innermost on the call's thread, started at or before it, first claim
 * kept for two generations of a horizon of calls).
 */
class MarkerRangesTest {
    private static final long T0 = 1_796_157_628_063_000_000L;

    private static TraceRecord marker(MarkerPhase phase, long id, long thread, long startNs, int nameId, int domainId) {
        TraceRecord r = new TraceRecord();
        r.kind = EventKind.MARKER;
        r.markerPhase = phase;
        r.markerId = id;
        r.threadId = thread;
        r.startNs = startNs;
        r.endNs = startNs;
        r.nameId = nameId;
        r.domainNameId = domainId;
        return r;
    }

    private static TraceRecord start(long id, long thread, long startNs) {
        return marker(MarkerPhase.START, id, thread, startNs, (int) id + 100, (int) id + 200);
    }

    private static TraceRecord end(long id, long thread, long atNs) {
        return marker(MarkerPhase.END, id, thread, atNs, -1, -1);
    }

    private static TraceRecord call(long correlation, long thread, long startNs) {
        TraceRecord r = new TraceRecord();
        r.activity(EventKind.RUNTIME, startNs, startNs + 1_000, correlation);
        r.threadId = thread;
        return r;
    }

    @Test
    void externalIdsLieInTheirOwnSpaceAndStayExactAsDoubles() {
        assertEquals(1L << 52, MarkerRanges.externalId(0));
        assertEquals((1L << 52) + 7, MarkerRanges.externalId(7));
        // only the marker id's low 32 bits count: every range id stays below 2^53
        assertEquals((1L << 52) + 0xFFFF_FFFFL, MarkerRanges.externalId(-1L));
        assertTrue(MarkerRanges.externalId(-1L) < (1L << 53));
        long a = MarkerRanges.externalId(0xFFFF_FFFEL);
        long b = MarkerRanges.externalId(0xFFFF_FFFFL);
        assertNotEquals((double) a, (double) b, "a viewer reading numbers as doubles tells two ranges apart");
        assertTrue(MarkerRanges.externalId(0) > Integer.MAX_VALUE * 4096L, "clear of host ops' ids, numbered from 0");
    }

    @Test
    void endsPairWithTheirStartInAnyOrder() {
        MarkerRanges ranges = new MarkerRanges(16);
        ranges.start(start(1, 10, T0));
        ranges.start(start(2, 11, T0 + 100));
        ranges.start(start(3, 12, T0 + 200));
        ranges.start(start(4, 10, T0 + 300));
        // not last-in first-out: the first range closes first, then one from the middle
        long[] order = {1, 3, 4, 2};
        for (long id : order) {
            assertTrue(ranges.end(end(id, 99, T0 + 1_000)), "range " + id);
            long thread = id == 4 ? 10 : 9 + id;
            assertEquals(T0 + 100 * (id - 1), ranges.closedStartNs, "range " + id);
            assertEquals(thread, ranges.closedThread, "range " + id + ": the start's thread, not the end's");
            assertEquals(100 + id, ranges.closedNameId, "range " + id);
            assertEquals(200 + id, ranges.closedDomainId, "range " + id);
        }
        assertEquals(0, ranges.endsWithoutStart());
        assertEquals(0, ranges.duplicateStarts());
        ranges.finish();
        assertEquals(0, ranges.neverClosed());
    }

    @Test
    void aRangeMovedToFillAGapIsStillFoundAfterItsOldPlaceIsReused() {
        MarkerRanges ranges = new MarkerRanges(16);
        ranges.start(start(1, 10, T0));
        ranges.start(start(2, 10, T0 + 100));
        ranges.start(start(3, 10, T0 + 200));
        assertTrue(ranges.end(end(1, 10, T0 + 300))); // range 3 fills range 1's place
        ranges.start(start(4, 11, T0 + 400)); // and range 4 takes the place range 3 left
        assertTrue(ranges.end(end(3, 10, T0 + 500)));
        assertEquals(T0 + 200, ranges.closedStartNs, "range 3's own start, not range 4's");
        assertEquals(10, ranges.closedThread);
        assertEquals(103, ranges.closedNameId);
        assertTrue(ranges.end(end(4, 11, T0 + 600)));
        assertEquals(T0 + 400, ranges.closedStartNs);
        assertTrue(ranges.end(end(2, 10, T0 + 700)));
        assertEquals(T0 + 100, ranges.closedStartNs);
        ranges.finish();
        assertEquals(0, ranges.neverClosed());
        assertEquals(0, ranges.endsWithoutStart());
    }

    @Test
    void everyUnpairedPointIsCounted() {
        MarkerRanges ranges = new MarkerRanges(16);
        assertFalse(ranges.end(end(5, 10, T0)), "an end whose start lay before the window");
        ranges.start(start(6, 10, T0 + 10));
        ranges.start(start(6, 10, T0 + 20));
        assertEquals(1, ranges.duplicateStarts());
        assertTrue(ranges.end(end(6, 10, T0 + 30)));
        assertEquals(T0 + 10, ranges.closedStartNs, "the first start of an id is kept");
        assertFalse(ranges.end(end(6, 10, T0 + 40)), "its id closed once already");
        assertEquals(2, ranges.endsWithoutStart());
        ranges.start(start(7, 10, T0 + 50));
        ranges.start(start(8, 11, T0 + 60));
        ranges.finish();
        assertEquals(2, ranges.neverClosed());
        assertFalse(ranges.end(end(7, 10, T0 + 70)), "finish forgets what it counted");
        assertEquals(3, ranges.endsWithoutStart());
    }

    @Test
    void openRangesAreBounded() {
        MarkerRanges ranges = new MarkerRanges(16);
        for (int i = 0; i < MarkerRanges.OPEN_CAPACITY; i++) {
            ranges.start(start(i, 10, T0 + i));
        }
        assertEquals(0, ranges.openAtCapacity());
        ranges.start(start(MarkerRanges.OPEN_CAPACITY, 10, T0 + MarkerRanges.OPEN_CAPACITY));
        assertEquals(1, ranges.openAtCapacity());
        assertFalse(ranges.end(end(MarkerRanges.OPEN_CAPACITY, 10, T0 + 10_000)), "the start past the capacity was forgotten");
        assertEquals(1, ranges.endsWithoutStart());
        // once one closes there is room again
        assertTrue(ranges.end(end(0, 10, T0 + 10_000)));
        ranges.start(start(MarkerRanges.OPEN_CAPACITY + 1, 10, T0 + 20_000));
        assertEquals(1, ranges.openAtCapacity());
        ranges.finish();
        assertEquals(MarkerRanges.OPEN_CAPACITY, ranges.neverClosed());
    }

    @Test
    void aCallGoesToTheInnermostRangeOpenOnItsThread() {
        MarkerRanges ranges = new MarkerRanges(16);
        assertEquals(MarkerRanges.UNBOUND, ranges.rangeOf(1));
        ranges.call(call(1, 10, T0)); // no range open
        ranges.start(start(1, 10, T0 + 100));
        ranges.start(start(2, 10, T0 + 200)); // nested in range 1
        ranges.start(start(3, 11, T0 + 300)); // another thread
        ranges.start(start(4, 10, T0 + 900)); // opens after the call below
        ranges.call(call(2, 10, T0 + 400));
        ranges.call(call(3, 11, T0 + 500));
        ranges.call(call(4, 12, T0 + 500)); // a thread with no range
        TraceRecord noCorrelation = call(5, 10, T0 + 600);
        noCorrelation.clearCorrelation();
        ranges.call(noCorrelation);
        assertEquals(MarkerRanges.UNBOUND, ranges.rangeOf(1), "made before any range opened");
        assertEquals(MarkerRanges.externalId(2), ranges.rangeOf(2), "innermost: the latest start at or before the call");
        assertEquals(MarkerRanges.externalId(3), ranges.rangeOf(3));
        assertEquals(MarkerRanges.UNBOUND, ranges.rangeOf(4));
        assertEquals(MarkerRanges.UNBOUND, ranges.rangeOf(5));
        assertEquals(2, ranges.callsAttributed());

        // a call at the very start of a range is inside it; the first claim of a correlation wins
        ranges.call(call(6, 10, T0 + 900));
        assertEquals(MarkerRanges.externalId(4), ranges.rangeOf(6));
        assertTrue(ranges.end(end(4, 10, T0 + 950)));
        assertTrue(ranges.end(end(2, 10, T0 + 960)));
        ranges.call(call(2, 10, T0 + 970)); // the same correlation again, now only range 1 is open
        assertEquals(MarkerRanges.externalId(2), ranges.rangeOf(2));
        assertEquals(3, ranges.callsAttributed());
        ranges.deviceRecordAttributed();
        assertEquals(1, ranges.deviceRecordsAttributed());
    }

    @Test
    void claimsAreRememberedForTwoGenerationsOfTheHorizon() {
        int horizon = 8;
        MarkerRanges ranges = new MarkerRanges(horizon);
        ranges.start(start(1, 10, T0));
        long corr = 1_000;
        for (int i = 0; i < 2 * horizon; i++) {
            ranges.call(call(corr + i, 10, T0 + 10 + i));
        }
        assertEquals(MarkerRanges.externalId(1), ranges.rangeOf(corr), "two generations of " + horizon + " calls");
        ranges.call(call(corr + 2 * horizon, 10, T0 + 100));
        assertEquals(MarkerRanges.UNBOUND, ranges.rangeOf(corr), "a call older than two generations is forgotten");
        assertEquals(MarkerRanges.externalId(1), ranges.rangeOf(corr + horizon), "the younger generation is kept");
    }
}
