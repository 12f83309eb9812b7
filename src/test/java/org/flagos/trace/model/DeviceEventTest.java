package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link DeviceEvent#of}: what it takes from a record, and its refusal of a record that is no activity. */
class DeviceEventTest {
    @Test
    void aKernelRecordBecomesAnEventWithItsIdsAndName() {
        NameTable names = new NameTable();
        names.intern("other");
        TraceRecord r = new TraceRecord();
        r.activity(EventKind.KERNEL, 1_000, 4_500, -1L);
        r.externalId(0);
        r.device = 3;
        r.stream = 7;
        r.threadId = 99; // a device record has no host thread
        r.nameId = names.intern("void k<float>(int)");
        DeviceEvent e = DeviceEvent.of(r, names);
        assertEquals(EventKind.KERNEL, e.kind());
        assertEquals(3_500, e.durationNs());
        assertEquals(Optional.of(new CorrelationId(-1L)), e.correlation());
        assertEquals(Optional.of(new ExternalId(0)), e.externalId());
        assertEquals(3, e.device());
        assertEquals(7, e.stream());
        assertEquals(0, e.thread());
        assertEquals("void k<float>(int)", e.name());
    }

    @Test
    void aHostRecordKeepsItsThreadAndAbsentIdsAreEmpty() {
        TraceRecord r = new TraceRecord();
        r.activity(EventKind.RUNTIME, 10, 20, 5);
        r.clearCorrelation();
        r.threadId = 4242;
        DeviceEvent e = DeviceEvent.of(r, new NameTable());
        assertEquals(4242, e.thread());
        assertTrue(e.correlation().isEmpty());
        assertTrue(e.externalId().isEmpty());
        assertNull(e.name(), "no name id");
    }

    @Test
    void aBindingIsRefused() {
        TraceRecord r = new TraceRecord();
        r.binding(1, 2);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> DeviceEvent.of(r, new NameTable()));
        assertEquals("not an activity record: CORRELATION_BINDING", x.getMessage());
    }
}
