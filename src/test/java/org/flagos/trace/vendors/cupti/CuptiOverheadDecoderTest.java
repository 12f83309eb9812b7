package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * The overhead flyweight ({@code CUpti_ActivityOverhead3}) against CUPTI's own decoding of the H200
 * kinds and managed captures, and its names for {@code CUpti_ActivityOverheadKind}: the one torch's
 * trace of the kinds workload holds ("Activity Buffer Request", kind 7 << 16) and kineto's others.
 */
class CuptiOverheadDecoderTest {

    @Test
    void everyOverheadRecordReadsAsCuptiDecodedIt() {
        CuptiRecordTimes times = new CuptiRecordTimes();
        CuptiOverheadDecoder o = new CuptiOverheadDecoder(CuptiRecordLayout.CUPTI_13_0, times);
        TraceRecord slot = new TraceRecord();
        Map<String, Integer> names = new TreeMap<>();
        for (String capture : FixtureRecords.KINDS) {
            for (FixtureRecords.Record r : FixtureRecords.of(capture, "overhead", CuptiActivityKind.OVERHEAD)) {
                JsonNode t = r.truth();
                o.wrap(r.buffer(), r.offset());
                assertEquals(t.get("overheadKind").asInt(), o.overheadKind(), capture);
                assertEquals(t.get("start").asLong(), o.rawStart(), capture);
                assertEquals(t.get("end").asLong(), o.rawEnd(), capture);
                times.accept(o.rawStart(), o.rawEnd(), 0, "overhead", new DecodeStats());
                CuptiOverheadDecoder.TRANSLATOR.translateTo(slot, 0, o);
                assertEquals(EventKind.OVERHEAD, slot.kind);
                assertEquals(t.get("start").asLong(), slot.startNs);
                assertEquals(t.get("end").asLong(), slot.endNs);
                assertEquals(CuptiOverheadDecoder.name(t.get("overheadKind").asInt()), slot.label);
                names.merge(slot.label, 1, Integer::sum);
            }
        }
        // the truths: h200-kinds 2 buffer flush (1 << 16), 2 instrumentation, 4 resource, 4 lazy function
        // loading, 2 activity buffer request; h200-managed 2, 4, 9, 4, 3 of those and one 8 << 16, CUDA 13.0's
        // UVM_ACTIVITY_INIT (h200-managed.enums.json), which kineto's strings do not name either
        assertEquals(Map.of("Activity Buffer Request", 5, "Buffer Flush", 4, "Instrumentation", 6,
                "Lazy Function Loading", 8, "Resource", 13, "Unrecognized", 1), names);
    }

    @Test
    void namesFollowKinetosStrings() {
        assertEquals("Unknown", CuptiOverheadDecoder.name(0));
        assertEquals("Driver Compiler", CuptiOverheadDecoder.name(1));
        assertEquals("Buffer Flush", CuptiOverheadDecoder.name(1 << 16));
        assertEquals("Instrumentation", CuptiOverheadDecoder.name(2 << 16));
        assertEquals("Resource", CuptiOverheadDecoder.name(3 << 16));
        assertEquals("Runtime Triggered Module Loading", CuptiOverheadDecoder.name(4 << 16));
        assertEquals("Lazy Function Loading", CuptiOverheadDecoder.name(5 << 16));
        assertEquals("Command Buffer Full", CuptiOverheadDecoder.name(6 << 16));
        assertEquals("Activity Buffer Request", CuptiOverheadDecoder.name(7 << 16));
        assertEquals("Unrecognized", CuptiOverheadDecoder.name(2));
        assertEquals("Unrecognized", CuptiOverheadDecoder.name(8 << 16));
        assertEquals("Unrecognized", CuptiOverheadDecoder.name(-1));
    }

    @Test
    void aRecordMustHoldTheFieldsItReads() {
        ByteBuffer b = ByteBuffer.allocate(56).order(ByteOrder.LITTLE_ENDIAN);
        assertThrows(IndexOutOfBoundsException.class, () -> new CuptiOverheadDecoder(CuptiRecordLayout.CUPTI_13_0,
                new CuptiRecordTimes()).wrap(b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(55), 0));
        // CUPTI 12.1 does not know the record's size: the fields read (40 bytes) must still be there
        CuptiOverheadDecoder v12 = new CuptiOverheadDecoder(CuptiRecordLayout.CUPTI_12_1, new CuptiRecordTimes());
        b.putInt(4, 7 << 16);
        assertEquals(7 << 16, v12.wrap(b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(40), 0).overheadKind());
        assertThrows(IndexOutOfBoundsException.class, () -> v12.wrap(b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(39), 0));
    }
}
