package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

class ExternalCorrelationJoinTest {
    private final ExternalCorrelationJoin join = new ExternalCorrelationJoin();

    private static TraceRecord binding(long correlation, long external) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.CORRELATION_BINDING;
        r.correlation(correlation);
        r.externalId(external);
        return r;
    }

    private static TraceRecord activity(EventKind kind, long correlation) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.ACTIVITY;
        r.kind = kind;
        r.correlation(correlation);
        r.startNs = 10;
        r.endNs = 20;
        return r;
    }

    private static TraceRecord end() {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.END_OF_CAPTURE;
        return r;
    }

    @Test
    void aRecordAfterItsBindingGetsTheExternalIdZeroIncluded() {
        join.onEvent(binding(80, 0), 0, true);
        TraceRecord kernel = activity(EventKind.KERNEL, 80);
        join.onEvent(kernel, 1, true);
        assertTrue(kernel.hasExternalId());
        assertEquals(0, kernel.externalId(), "0 is a valid External id");
        assertFalse(kernel.parked);
    }

    @Test
    void aKernelBeforeItsBindingIsParkedThenReleasedOnTheBindingsSlot() {
        TraceRecord kernel = activity(EventKind.KERNEL, 80);
        join.onEvent(kernel, 0, true);
        assertTrue(kernel.parked, "slot skipped downstream");
        assertEquals(1, join.parkedNow());
        TraceRecord bind = binding(80, 3);
        join.onEvent(bind, 1, true);
        assertEquals(1, bind.releasedCount());
        TraceRecord released = bind.released(0);
        assertEquals(3, released.externalId());
        assertEquals(80, released.correlation());
        assertEquals(EventKind.KERNEL, released.kind);
        assertEquals(1, join.lateJoined());
        assertEquals(0, join.parkedNow());
    }

    @Test
    void aRecordThatNeverGetsABindingIsReleasedAtTheEndWithoutOneAndCounted() {
        TraceRecord runtime = activity(EventKind.RUNTIME, 5);
        join.onEvent(runtime, 0, true);
        TraceRecord end = end();
        join.onEvent(end, 1, true);
        assertEquals(1, end.releasedCount());
        assertFalse(end.released(0).hasExternalId());
        assertEquals(1, join.unjoined(EventKind.RUNTIME));
    }

    @Test
    void duplicateAndConflictingBindingsKeepTheFirstAndAreCounted() {
        join.onEvent(binding(7, 1), 0, true);
        join.onEvent(binding(7, 1), 1, true);
        join.onEvent(binding(7, 2), 2, true);
        TraceRecord kernel = activity(EventKind.KERNEL, 7);
        join.onEvent(kernel, 3, true);
        assertEquals(1, kernel.externalId());
        assertEquals(1, join.duplicateBindings());
        assertEquals(1, join.conflictingBindings());
    }

    @Test
    void severalParkedRecordsOfOneCorrelationAreAllReleased() {
        TraceRecord memcpy = activity(EventKind.MEMCPY, 9);
        TraceRecord api = activity(EventKind.RUNTIME, 9);
        join.onEvent(memcpy, 0, true);
        join.onEvent(api, 1, true);
        TraceRecord bind = binding(9, 4);
        join.onEvent(bind, 2, true);
        assertEquals(2, bind.releasedCount());
        assertEquals(4, bind.released(0).externalId());
        assertEquals(4, bind.released(1).externalId());
        TraceRecord end = end();
        join.onEvent(end, 3, true);
        assertEquals(0, end.releasedCount(), "nothing left parked");
    }

    @Test
    void releasedRecordsAreCopiesNotTheReusedSlot() {
        TraceRecord slot = activity(EventKind.KERNEL, 11);
        join.onEvent(slot, 0, true);
        TraceRecord bind = binding(11, 1);
        join.onEvent(bind, 1, true);
        assertFalse(bind.released(0) == slot);
        slot.clear();
        assertEquals(11, bind.released(0).correlation());
        assertSame(EventKind.KERNEL, bind.released(0).kind);
    }

    @Test
    void aRecordWaitingPastTheHorizonIsReleasedWithoutAnIdAndCounted() {
        ExternalCorrelationJoin small = new ExternalCorrelationJoin(4);
        TraceRecord orphan = activity(EventKind.RUNTIME, 1);
        small.onEvent(orphan, 0, true);
        for (int i = 0; i < 4; i++) {
            TraceRecord other = binding(100 + i, i);
            small.onEvent(other, 1 + i, true);
            assertEquals(0, other.releasedCount(), "still inside the horizon after " + (i + 1) + " records");
        }
        TraceRecord fifth = binding(200, 9);
        small.onEvent(fifth, 5, true);
        assertEquals(1, fifth.releasedCount(), "released on the first slot past the horizon");
        assertFalse(fifth.released(0).hasExternalId());
        assertEquals(1, small.releasedAtHorizon());
        assertEquals(1, small.unjoined(EventKind.RUNTIME));
        assertEquals(0, small.parkedNow());
        TraceRecord late = binding(1, 5);
        small.onEvent(late, 6, true);
        assertEquals(0, late.releasedCount(), "a binding after the horizon finds nothing held");
    }

    @Test
    void whatIsHeldIsBoundedByTheHorizonNotByTheCaptureLength() {
        int horizon = 1_000;
        ExternalCorrelationJoin small = new ExternalCorrelationJoin(horizon);
        long released = 0;
        int maxParked = 0;
        int maxBindings = 0;
        for (int i = 0; i < 200_000; i++) {
            // every third record never gets a binding; the rest arrive before theirs, 10 records late
            TraceRecord kernel = activity(EventKind.KERNEL, i);
            small.onEvent(kernel, i, true);
            int bound = i - 10;
            if (bound >= 0 && bound % 3 != 0) {
                TraceRecord bind = binding(bound, bound);
                small.onEvent(bind, i, true);
                for (int k = 0; k < bind.releasedCount(); k++) {
                    released += bind.released(k).hasExternalId() ? 1 : 0;
                }
            }
            maxParked = Math.max(maxParked, small.parkedNow());
            maxBindings = Math.max(maxBindings, small.bindingsHeld());
        }
        assertTrue(maxParked <= horizon, "parked " + maxParked);
        assertTrue(maxBindings <= 2 * horizon, "bindings " + maxBindings);
        assertTrue(small.releasedAtHorizon() > 60_000, "orphans released at the horizon: " + small.releasedAtHorizon());
        assertTrue(small.lateJoined() > 100_000, "late records still joined: " + small.lateJoined());
        assertEquals(small.lateJoined(), released);
        assertTrue(small.longestWait() <= 20, "joined within " + small.longestWait() + " records");
        assertTrue(small.bindingsForgotten() > 0);
    }

    @Test
    void aRecordAfterItsBindingWasForgottenIsCountedNotLostSilently() {
        ExternalCorrelationJoin small = new ExternalCorrelationJoin(2);
        small.onEvent(binding(1, 10), 0, true);
        small.onEvent(binding(2, 20), 1, true);
        small.onEvent(binding(3, 30), 2, true);
        small.onEvent(binding(4, 40), 3, true);
        small.onEvent(binding(5, 50), 4, true); // the generation holding 1 and 2 is dropped
        TraceRecord kernel = activity(EventKind.KERNEL, 1);
        small.onEvent(kernel, 5, true);
        assertTrue(kernel.parked);
        TraceRecord end = end();
        small.onEvent(end, 6, true);
        assertEquals(1, end.releasedCount());
        assertEquals(1, small.unjoined(EventKind.KERNEL));
        assertEquals(2, small.bindingsForgotten());
    }
}
