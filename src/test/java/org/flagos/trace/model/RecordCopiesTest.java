package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class RecordCopiesTest {
    private static TraceRecord record(long correlation) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.ACTIVITY;
        r.kind = EventKind.RUNTIME;
        r.correlation(correlation);
        r.parked = true;
        return r;
    }

    @Test
    void aReleasedCopyIsReusedOnlyOnceNoStageCanStillReadIt() {
        RecordCopies copies = new RecordCopies();
        TraceRecord first = copies.copyOf(record(1), 0);
        copies.released(first, 10);
        TraceRecord tooSoon = copies.copyOf(record(2), 10 + RecordCopies.REUSE_DISTANCE - 1);
        assertNotSame(first, tooSoon, "the last stage may still be reading the slot it was released on");
        TraceRecord reused = copies.copyOf(record(3), 10 + RecordCopies.REUSE_DISTANCE);
        assertSame(first, reused);
        assertEquals(3, reused.correlation(), "overwritten with the new record");
        assertEquals(false, reused.parked, "a copy is never parked itself");
        assertEquals(2, copies.allocated());
    }

    @Test
    void steadyStateAllocatesNothing() {
        RecordCopies copies = new RecordCopies();
        TraceRecord[] held = new TraceRecord[100];
        long sequence = 0;
        for (int round = 0; round < 50; round++) {
            for (int i = 0; i < held.length; i++) {
                held[i] = copies.copyOf(record(i), sequence++);
            }
            for (TraceRecord copy : held) {
                copies.released(copy, sequence);
            }
            sequence += RecordCopies.REUSE_DISTANCE;
        }
        assertEquals(100, copies.allocated(), "the most held at once, then reused");
    }
}
