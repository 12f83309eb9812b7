package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * The memset flyweight ({@code CUpti_ActivityMemset4}) against CUPTI's own decoding of the 5 memset
 * records of each H200 kinds capture: times, bytes, value, memory kind, context, stream, correlation,
 * and the graph ids of the 3 sets launched from a graph.
 */
class CuptiMemsetDecoderTest {
    @Test
    void everyMemsetReadsAsCuptiDecodedIt() {
        Map<String, Integer> sets = new TreeMap<>();
        int fromGraphs = 0;
        for (String capture : FixtureRecords.KINDS) {
            CuptiRecordTimes times = new CuptiRecordTimes();
            CuptiMemsetDecoder s = new CuptiMemsetDecoder(CuptiRecordLayout.CUPTI_13_0, times);
            List<FixtureRecords.Record> records = FixtureRecords.of(capture, "memset", CuptiActivityKind.MEMSET);
            for (FixtureRecords.Record r : records) {
                JsonNode t = r.truth();
                String where = capture + " memset correlation " + t.get("correlation");
                s.wrap(r.buffer(), r.offset());
                TraceRecord slot = TransferTruth.check(where, r, s, s.correlationId(), times, EventKind.MEMSET,
                        CuptiMemsetDecoder.TRANSLATOR);
                assertEquals(t.get("value").asInt(), s.value(), where);
                assertEquals(t.get("memoryKind").asInt(), s.memoryKind(), where);
                assertEquals(t.get("value").asInt(), slot.memsetValue, where);
                assertTrue(slot.has(RecordField.MEMSET_VALUE), where);
                if (slot.has(RecordField.GRAPH)) {
                    fromGraphs++;
                }
                sets.merge(slot.memoryKind.label() + " value " + slot.memsetValue, 1, Integer::sum);
            }
        }
        // the truth files: in each capture 4 sets of device memory to 0 and 1 to 1
        assertEquals(Map.of("Device value 0", 8, "Device value 1", 2), sets);
        assertEquals(6, fromGraphs, "3 graph-launched sets in each capture");
    }

    @Test
    void anUnknownMemoryKindReadsAsUnknownAndTheRecordMustFitItsBuffer() {
        ByteBuffer b = ByteBuffer.allocate(88).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(4, -2).putLong(8, 256).putShort(50, (short) 0xfffe).putInt(44, 0x8000_0000);
        CuptiMemsetDecoder s = new CuptiMemsetDecoder(CuptiRecordLayout.CUPTI_13_0, new CuptiRecordTimes());
        s.wrap(b, 0);
        assertEquals(-2, s.value(), "the value is CUPTI's int as written");
        assertEquals(0xfffe, s.memoryKind(), "unsigned 16 bits");
        assertEquals(0x8000_0000L, s.correlationId(), "unsigned 32 bits");
        TraceRecord slot = new TraceRecord();
        CuptiMemsetDecoder.TRANSLATOR.translateTo(slot, 0, s);
        assertEquals(MemoryKind.UNKNOWN, slot.memoryKind);
        assertEquals(-2, slot.memsetValue);
        assertFalse(slot.has(RecordField.GRAPH));
        b.putShort(50, (short) 5);
        CuptiMemsetDecoder.TRANSLATOR.translateTo(slot, 0, s);
        assertEquals(MemoryKind.MANAGED, slot.memoryKind);

        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                () -> s.wrap(b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(87), 0));
        assertEquals("CUpti_ActivityMemset4 of 88 bytes at offset 0 runs past the buffer's valid size 87", e.getMessage());
        CuptiMemsetDecoder v11 = new CuptiMemsetDecoder(CuptiRecordLayout.CUPTI_11_1, new CuptiRecordTimes());
        e = assertThrows(IndexOutOfBoundsException.class, () -> v11.wrap(b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(79), 0));
        assertEquals("Memset3 record of 80 bytes at offset 0 runs past the buffer's valid size 79", e.getMessage());
    }
}
