package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.flagos.trace.pipeline.EventKind;
import org.flagos.trace.pipeline.RecordType;
import org.flagos.trace.pipeline.TraceRecord;
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
}
