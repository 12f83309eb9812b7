package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.MarkerPhase;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * The stage that joins records to annotation ranges: what it writes into the records the walk then
 * only reads (a paired end made the whole range, a range's id on the calls and device work inside it),
 * and what it counts.
 */
class AnnotationRangeJoinTest {
    private static final long THREAD = 7;
    private final AnnotationRangeJoin stage = new AnnotationRangeJoin(ExternalCorrelationJoin.DEFAULT_HORIZON);
    private long sequence;

    private void arrive(TraceRecord slot) {
        stage.onEvent(slot, sequence++, true);
    }

    private static TraceRecord marker(MarkerPhase phase, long id, long atNs, long thread) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.ACTIVITY;
        r.kind = EventKind.MARKER;
        r.markerPhase = phase;
        r.markerId = id;
        r.startNs = r.endNs = atNs;
        r.threadId = thread;
        if (phase == MarkerPhase.START) {
            r.nameId = 3;
            r.domainNameId = 4;
        }
        return r;
    }

    private static TraceRecord activity(EventKind kind, long correlation, long startNs) {
        TraceRecord r = new TraceRecord();
        r.activity(kind, startNs, startNs + 10, correlation);
        r.threadId = THREAD;
        return r;
    }

    private static TraceRecord end() {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.END_OF_CAPTURE;
        return r;
    }

    @Test
    void aCallOutsideEveryOpAndItsDeviceWorkTakeTheRangesIdAndThePairedEndCarriesTheRange() {
        arrive(marker(MarkerPhase.START, 5, 100, THREAD));
        TraceRecord call = activity(EventKind.RUNTIME, 11, 200);
        arrive(call);
        TraceRecord end = marker(MarkerPhase.END, 5, 400, THREAD + 1); // ended on another thread: the start's is kept
        arrive(end);
        TraceRecord kernel = activity(EventKind.KERNEL, 11, 500); // device work arrives after the range closed
        arrive(kernel);
        arrive(end());

        long range = MarkerRanges.externalId(5);
        assertTrue(call.externalIdOfRange());
        assertEquals(range, call.externalId());
        assertTrue(kernel.externalIdOfRange());
        assertEquals(range, kernel.externalId());
        assertTrue(end.externalIdOfRange());
        assertEquals(range, end.externalId());
        assertEquals(100, end.startNs);
        assertEquals(400, end.endNs);
        assertEquals(THREAD, end.threadId);
        assertEquals(3, end.nameId);
        assertEquals(4, end.domainNameId);
        assertEquals(1, stage.callsAttributed());
        assertEquals(1, stage.deviceRecordsAttributed());
        assertEquals(0, stage.neverClosed());
    }

    @Test
    void aParkedCallIsClaimedWhenItsSlotArrivesAndJoinedWhenItIsReleasedAfterTheRangeClosed() {
        arrive(marker(MarkerPhase.START, 9, 100, THREAD));
        TraceRecord slot = activity(EventKind.RUNTIME, 21, 200);
        TraceRecord copy = new TraceRecord();
        copy.copyFrom(slot);
        slot.parked = true; // the join holds it: no binding ever comes for a call outside every op
        arrive(slot);
        arrive(marker(MarkerPhase.END, 9, 300, THREAD));
        TraceRecord releasing = end();
        releasing.release(copy); // released at the end, long after its range closed
        arrive(releasing);

        assertFalse(slot.hasExternalId(), "the parked slot itself is skipped downstream");
        assertTrue(copy.externalIdOfRange());
        assertEquals(MarkerRanges.externalId(9), copy.externalId());
        assertEquals(1, stage.callsAttributed());
    }

    @Test
    void recordsOfAnOpOtherThreadsAndTheWindowsDropsAreLeftAloneAndASyncIsNotCountedAsDeviceTime() {
        arrive(marker(MarkerPhase.START, 1, 100, THREAD));
        TraceRecord ofOp = activity(EventKind.RUNTIME, 31, 200);
        ofOp.externalId(42);
        arrive(ofOp);
        TraceRecord otherThread = activity(EventKind.RUNTIME, 32, 200);
        otherThread.threadId = THREAD + 1;
        arrive(otherThread);
        TraceRecord dropped = activity(EventKind.RUNTIME, 33, 200);
        dropped.outsideWindow = true;
        arrive(dropped);
        TraceRecord before = activity(EventKind.RUNTIME, 34, 50); // called before the range opened
        arrive(before);
        TraceRecord syncCall = activity(EventKind.RUNTIME, 35, 250);
        arrive(syncCall);
        TraceRecord sync = activity(EventKind.SYNC, 35, 260);
        arrive(sync);

        assertEquals(42, ofOp.externalId());
        assertFalse(ofOp.externalIdOfRange());
        assertFalse(otherThread.hasExternalId());
        assertFalse(dropped.hasExternalId());
        assertFalse(before.hasExternalId());
        assertTrue(sync.externalIdOfRange(), "a synchronization keeps the range's id");
        assertEquals(1, stage.callsAttributed());
        assertEquals(0, stage.deviceRecordsAttributed(), "a synchronization adds no device time to the range");
    }

    @Test
    void whatCannotBePairedIsLeftAsItCameAndCounted() {
        TraceRecord droppedStart = marker(MarkerPhase.START, 2, 100, THREAD);
        droppedStart.outsideWindow = true;
        arrive(droppedStart);
        TraceRecord orphanEnd = marker(MarkerPhase.END, 2, 200, THREAD);
        arrive(orphanEnd);
        arrive(marker(MarkerPhase.START, 3, 300, THREAD));
        arrive(marker(MarkerPhase.START, 3, 310, THREAD));
        arrive(end());

        assertFalse(orphanEnd.hasExternalId());
        assertEquals(200, orphanEnd.startNs);
        assertEquals(1, stage.endsWithoutStart());
        assertEquals(1, stage.duplicateStarts());
        assertEquals(1, stage.neverClosed());
        assertEquals(0, stage.openAtCapacity());
    }
}
