package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

class CaptureWindowFilterTest {
    private final CaptureWindowFilter filter = new CaptureWindowFilter(1_000, 2_000);

    private static TraceRecord record(RecordType type, EventKind kind, long start, long end) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = type;
        r.kind = kind;
        r.startNs = start;
        r.endNs = end;
        return r;
    }

    @Test
    void containmentIsInclusiveAtBothEdges() {
        TraceRecord exact = record(RecordType.ACTIVITY, EventKind.KERNEL, 1_000, 2_000);
        filter.onEvent(exact, 0, true);
        assertFalse(exact.outsideWindow);
    }

    @Test
    void overlapIsNotEnough() {
        TraceRecord leading = record(RecordType.ACTIVITY, EventKind.RUNTIME, 999, 1_500);
        TraceRecord trailing = record(RecordType.ACTIVITY, EventKind.KERNEL, 1_500, 2_001);
        TraceRecord op = record(RecordType.HOST_OP, null, 500, 1_200);
        filter.onEvent(leading, 0, true);
        filter.onEvent(trailing, 1, true);
        filter.onEvent(op, 2, true);
        assertTrue(leading.outsideWindow);
        assertTrue(trailing.outsideWindow);
        assertTrue(op.outsideWindow, "host ops are filtered too");
        assertEquals(1, filter.dropped(EventKind.RUNTIME));
        assertEquals(1, filter.dropped(EventKind.KERNEL));
        assertEquals(1, filter.droppedHostOps());
    }

    @Test
    void releasedRecordsAreFilteredButAParkedSlotIsNot() {
        TraceRecord carrier = record(RecordType.CORRELATION_BINDING, null, 0, 0);
        TraceRecord released = record(RecordType.ACTIVITY, EventKind.KERNEL, 10, 20);
        carrier.release(released);
        filter.onEvent(carrier, 0, true);
        assertTrue(released.outsideWindow);
        TraceRecord parked = record(RecordType.ACTIVITY, EventKind.KERNEL, 10, 20);
        parked.parked = true;
        filter.onEvent(parked, 1, true);
        assertFalse(parked.outsideWindow, "a parked slot is counted when its copy is released, not twice");
        assertEquals(1, filter.dropped(EventKind.KERNEL));
    }
}
