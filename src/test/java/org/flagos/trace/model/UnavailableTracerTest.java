package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link UnavailableTracer}: not available, its reason as given, no devices, no API names (a call is
 * labelled "driver" or "runtime" by its kind), no correlation taken, no mid-session flush (so a session
 * gets no flush barriers), and the wall clock in epoch ns for host times.
 */
class UnavailableTracerTest {
    private final UnavailableTracer tracer = new UnavailableTracer("libcupti.so.12 not found");

    @Test
    void itIsNotAvailableAndSaysWhyAsGiven() {
        assertFalse(tracer.available());
        assertEquals("libcupti.so.12 not found", tracer.unavailableReason());
        assertEquals("unavailable", tracer.name());
        assertEquals(0, tracer.deviceCount());
        assertEquals(List.of(), tracer.deviceProperties());
        assertEquals(0, tracer.droppedByVendor());
    }

    @Test
    void itTakesNoCorrelationAndCannotFlushMidSession() {
        assertFalse(tracer.pushCorrelation(new ExternalId(7)));
        tracer.popCorrelation();
        assertFalse(tracer.flush());
        assertEquals(-1, tracer.buffersDelivered(), "does not count buffers: no flush barriers");
        assertEquals(0, tracer.opSettleRecords());
    }

    @Test
    void callsAreLabelledDriverOrRuntimeByKindAndNeverNamed() {
        ApiNames names = tracer.apiNames();
        for (EventKind kind : EventKind.values()) {
            assertNull(names.name(kind, 13), kind.name());
            assertEquals(kind == EventKind.DRIVER ? "driver" : "runtime", names.genericLabel(kind), kind.name());
        }
        assertEquals("runtime", names.genericLabel(EventKind.RUNTIME));
    }

    @Test
    void itsClockIsTheWallClockInEpochNanoseconds() {
        long before = System.currentTimeMillis() * 1_000_000L;
        long ns = tracer.timestampNs();
        long after = (System.currentTimeMillis() + 1) * 1_000_000L;
        assertTrue(before <= ns && ns <= after, before + " <= " + ns + " <= " + after);
    }
}
