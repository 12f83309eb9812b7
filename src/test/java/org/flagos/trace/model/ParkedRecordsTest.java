package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The parking ring the join and MSPTI's remap share: copies grouped by key, newest first; the oldest
 * still parked found past a horizon; releasing hands the copy to a carrier and frees its place; the
 * ring grows with chains and arrival counts intact, across its wrap.
 */
class ParkedRecordsTest {

    private static TraceRecord record(long correlation, long startNs) {
        TraceRecord r = new TraceRecord();
        r.activity(EventKind.KERNEL, startNs, startNs + 10, correlation);
        return r;
    }

    /** The start times of {@code key}'s chain, newest first. */
    private static List<Long> chain(ParkedRecords p, long key) {
        List<Long> out = new ArrayList<>();
        for (long n = p.newest(key); n != ParkedRecords.NONE; n = p.older(n)) {
            out.add(p.record(n).startNs);
        }
        return out;
    }

    @Test
    void recordsOfAKeyChainNewestFirstAndAreCopies() {
        ParkedRecords p = new ParkedRecords();
        TraceRecord slot = record(7, 100);
        p.park(slot, 7, 1, 1);
        slot.startNs = 999; // the ring slot is overwritten by the next record
        p.park(record(8, 200), 8, 2, 2);
        p.park(record(7, 300), 7, 3, 3);
        assertEquals(List.of(300L, 100L), chain(p, 7));
        assertEquals(List.of(200L), chain(p, 8));
        assertEquals(ParkedRecords.NONE, p.newest(9));
        assertFalse(p.hasChain(9));
        assertNotSame(slot, p.record(0));
        assertEquals(1, p.parkedAt(0));
        assertEquals(3, p.parkedAt(2));
        assertEquals(3, p.size());
        assertEquals(0, p.oldest());
        assertEquals(3, p.end());
    }

    @Test
    void releasingHandsTheCopyToTheCarrierAndFreesItsPlace() {
        ParkedRecords p = new ParkedRecords();
        p.park(record(7, 100), 7, 1, 1);
        p.park(record(7, 300), 7, 2, 2);
        long newest = p.takeChain(7);
        assertFalse(p.hasChain(7), "the chain was taken");
        assertEquals(ParkedRecords.NONE, p.takeChain(7));
        TraceRecord carrier = record(99, 5_000);
        TraceRecord copy = p.record(newest);
        long older = p.older(newest);
        p.release(newest, carrier, 10);
        p.release(older, carrier, 10);
        assertEquals(2, carrier.releasedCount());
        assertSame(copy, carrier.released(0));
        assertEquals(300, carrier.released(0).startNs);
        assertEquals(100, carrier.released(1).startNs);
        assertNull(p.record(newest));
        assertEquals(0, p.size());
        assertEquals(2, p.most());
    }

    @Test
    void theOldestStillParkedIsOverdueOnlyPastTheHorizon() {
        ParkedRecords p = new ParkedRecords();
        assertNull(p.overdue(1_000, 10));
        p.park(record(1, 100), 1, 5, 5);
        p.park(record(2, 200), 2, 8, 8);
        assertNull(p.overdue(15, 10), "parked 10 arrivals ago: not past a horizon of 10");
        assertEquals(100, p.overdue(16, 10).startNs);
        p.release(p.takeChain(1), record(0, 0), 16);
        assertNull(p.overdue(16, 10), "the next oldest was parked 8 arrivals ago");
        assertEquals(1, p.oldest(), "released places are stepped over");
        assertEquals(200, p.overdue(19, 10).startNs);
    }

    @Test
    void theRingGrowsAcrossItsWrapWithChainsIntact() {
        ParkedRecords p = new ParkedRecords();
        // advance the ring's start so that its live records wrap around the end of the array
        for (int i = 0; i < 200; i++) {
            p.park(record(i, i), 1_000_000 + i, i, i);
        }
        for (int i = 0; i < 200; i++) {
            p.release(p.takeChain(1_000_000 + i), record(0, 0), 200);
        }
        assertNull(p.overdue(Long.MAX_VALUE, 0));
        assertEquals(200, p.oldest());
        // 1,000 records under 10 keys: the ring of 256 grows twice while the live ones wrap
        for (int i = 0; i < 1_000; i++) {
            p.park(record(i % 10, 10_000 + i), i % 10, 300 + i, 300 + i);
        }
        assertEquals(1_000, p.size());
        for (long key = 0; key < 10; key++) {
            List<Long> starts = chain(p, key);
            assertEquals(100, starts.size(), "key " + key);
            for (int j = 0; j < 100; j++) {
                assertEquals(10_000 + key + 10L * (99 - j), starts.get(j), "key " + key + " newest first");
            }
        }
        assertEquals(10_000, p.overdue(2_000, 100).startNs, "the oldest keeps its arrival count: 300");
        assertEquals(300, p.parkedAt(p.oldest()));
        p.clear();
        assertFalse(p.hasChain(3));
        assertEquals(p.end(), p.oldest());
        assertTrue(p.most() >= 1_000);
    }
}
