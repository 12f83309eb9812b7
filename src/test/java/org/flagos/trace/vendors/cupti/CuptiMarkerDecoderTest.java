package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.MarkerPhase;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.api.Test;

/**
 * The NVTX marker flyweight ({@code CUpti_ActivityMarker2}) against CUPTI's own decoding of the 15
 * markers of each H200 kinds capture: push/pop and start/end ranges, a mark, a domain's ranges; the
 * name and domain pointers resolve through the capture's name table to CUPTI's strings.
 */
class CuptiMarkerDecoderTest {
    static final List<String> CAPTURES = FixtureRecords.KINDS;

    @ParameterizedTest
    @FieldSource("CAPTURES")
    void everyMarkerReadsAsCuptiDecodedIt(String capture) {
        CuptiRecordTimes times = new CuptiRecordTimes();
        KernelNameFile names = KernelNameFile.read(Captures.names(capture));
        CuptiRecordNaming naming = new CuptiRecordNaming(names, new CuptiKernelMetrics(List.of()));
        CuptiMarkerDecoder m = new CuptiMarkerDecoder(CuptiRecordLayout.CUPTI_13_0, times, naming);
        TraceRecord slot = new TraceRecord();
        int[] phases = new int[3];
        for (FixtureRecords.Record r : FixtureRecords.of(capture, "marker", CuptiActivityKind.MARKER)) {
            JsonNode t = r.truth();
            String where = capture + " marker " + t.get("id") + " flags " + t.get("flags");
            m.wrap(r.buffer(), r.offset());
            assertEquals(t.get("flags").asInt(), m.flags(), where);
            assertEquals(t.get("timestamp").asLong(), m.rawTimestamp(), where);
            assertEquals(t.get("id").asInt(), m.id(), where);
            assertEquals(t.get("objectKind").asInt(), m.objectKind(), where);
            assertEquals(t.get("objectId").get("processId").asInt(), m.processId(), where);
            assertEquals(t.get("objectId").get("threadId").asLong(), m.threadId(), where);
            assertEquals(t.get("namePtr").asLong(), m.namePointer(), where);
            assertEquals(t.get("domainPtr").asLong(), m.domainPointer(), where);
            if (!t.get("name").isNull()) {
                assertEquals(t.get("name").asText(), names.lookup(m.namePointer()), where);
            }
            if (!t.get("domain").isNull() && m.domainPointer() != 0) {
                assertEquals(t.get("domain").asText(), names.lookup(m.domainPointer()), where);
            }
            MarkerPhase phase = switch (t.get("flags").asInt()) {
                case 1 -> MarkerPhase.INSTANT;
                case 2 -> MarkerPhase.START;
                case 4 -> MarkerPhase.END;
                default -> throw new AssertionError(where);
            };
            assertEquals(phase, m.phase(), where);
            assertNull(m.invalid(), where);
            phases[phase.ordinal()]++;

            times.accept(m.rawTimestamp(), m.rawTimestamp(), 0, "marker", new DecodeStats());
            CuptiMarkerDecoder.TRANSLATOR.translateTo(slot, 0, m);
            assertEquals(EventKind.MARKER, slot.kind, where);
            assertEquals(t.get("timestamp").asLong(), slot.startNs, where);
            assertEquals(slot.startNs, slot.endNs, where + ": a point");
            assertEquals(phase, slot.markerPhase, where);
            assertEquals(t.get("id").asLong(), slot.markerId, where);
            assertEquals(t.get("objectId").get("threadId").asLong(), slot.threadId, where + ": a thread's marker");
            assertEquals(t.get("objectId").get("processId").asInt(), slot.processId, where);
            assertEquals(m.namePointer(), slot.nameHandle, where);
            assertEquals(m.domainPointer(), slot.domainHandle, where);
            assertSame(naming, slot.naming, where);
        }
        // 7 starts, 7 ends, 1 mark
        assertEquals(1, phases[MarkerPhase.INSTANT.ordinal()], capture);
        assertEquals(7, phases[MarkerPhase.START.ordinal()], capture);
        assertEquals(7, phases[MarkerPhase.END.ordinal()], capture);
    }

    @Test
    void flagsNamingNoneOrSeveralPhasesAreInvalidAndAProcessMarkerHasNoThread() {
        ByteBuffer b = ByteBuffer.allocate(56).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(16, 0xFFFF_FFFE).putInt(20, CuptiMarkerDecoder.OBJECT_PROCESS).putInt(24, 77).putInt(28, 99);
        CuptiMarkerDecoder m = new CuptiMarkerDecoder(CuptiRecordLayout.CUPTI_13_0, new CuptiRecordTimes(), null);
        for (int flags : new int[] {0, 3, 6, 7, 8}) {
            b.putInt(4, flags);
            assertNull(m.wrap(b, 0).phase(), "flags " + flags);
            assertEquals("marker record 4294967294 with flags 0x" + Integer.toHexString(flags)
                    + " (not exactly one of start, end, instantaneous)", m.invalid());
        }
        b.putInt(4, 2 | 8); // START with a bit CUPTI 13.0 does not define here
        assertEquals(MarkerPhase.START, m.wrap(b, 0).phase());
        TraceRecord slot = new TraceRecord();
        CuptiMarkerDecoder.TRANSLATOR.translateTo(slot, 0, m);
        assertEquals(77, slot.processId);
        assertEquals(0, slot.threadId, "a process's marker names no thread");
        b.putInt(20, 3); // a device's marker: neither process nor thread
        slot.clear();
        CuptiMarkerDecoder.TRANSLATOR.translateTo(slot, 0, m.wrap(b, 0));
        assertEquals(0, slot.processId);
        assertEquals(0, slot.threadId);
    }
}
