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
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.family.CuptiShapedEnums;
import org.junit.jupiter.api.Test;

/**
 * The memcpy flyweight ({@code CUpti_ActivityMemcpy6}) against CUPTI's own decoding of every memcpy
 * record of the two H200 kinds captures (8 and 12): times, bytes, the copy and memory kinds, context,
 * stream, correlation, and the graph ids of the 3 copies each launched from a graph (none for the others).
 */
class CuptiMemcpyDecoderTest {
    @Test
    void everyMemcpyReadsAsCuptiDecodedIt() {
        Map<String, Integer> copies = new TreeMap<>();
        int fromGraphs = 0;
        for (String capture : FixtureRecords.KINDS) {
            CuptiRecordTimes times = new CuptiRecordTimes();
            CuptiMemcpyDecoder c = new CuptiMemcpyDecoder(CuptiRecordLayout.CUPTI_13_0, times);
            List<FixtureRecords.Record> records = FixtureRecords.of(capture, "memcpy", CuptiActivityKind.MEMCPY);
            for (FixtureRecords.Record r : records) {
                JsonNode t = r.truth();
                String where = capture + " memcpy correlation " + t.get("correlation");
                c.wrap(r.buffer(), r.offset());
                TraceRecord slot = TransferTruth.check(where, r, c, c.correlationId(), times, EventKind.MEMCPY,
                        CuptiMemcpyDecoder.TRANSLATOR);
                assertEquals(CuptiShapedEnums.copyKind(t.get("copyKind").asInt()), slot.copyKind, where);
                assertEquals(CuptiShapedEnums.memoryKind(t.get("srcKind").asInt()), slot.srcKind, where);
                assertEquals(CuptiShapedEnums.memoryKind(t.get("dstKind").asInt()), slot.dstKind, where);
                if (slot.has(RecordField.GRAPH)) {
                    fromGraphs++;
                }
                copies.merge(slot.copyKind.label() + " " + slot.srcKind.label() + ">" + slot.dstKind.label(), 1, Integer::sum);
            }
        }
        // what the two captures hold (their truth files): the workload's copies each way, and the
        // managed capture's device <-> managed copies
        assertEquals(Map.of("HtoD Pageable>Device", 2, "HtoD Pinned>Device", 2, "DtoH Device>Pageable", 2,
                "DtoH Device>Pinned", 2, "DtoD Device>Device", 10, "DtoD Device>Managed", 1, "DtoD Managed>Device", 1), copies);
        assertEquals(6, fromGraphs, "3 graph-launched copies in each capture");
    }

    @Test
    void kindNumbersPastCuptisReadAsUnknownAndTheRecordMustFitItsBuffer() {
        ByteBuffer b = ByteBuffer.allocate(96).order(ByteOrder.LITTLE_ENDIAN);
        b.put(4, (byte) 200).put(5, (byte) 0xff).put(6, (byte) 7); // past the tables; 0xff is 255, not -1
        b.putLong(8, 1L << 40).putLong(16, 1_000).putLong(24, 3_000).putInt(32, 2).putInt(36, 5).putInt(40, 9);
        b.putInt(44, -1); // correlation ids are unsigned 32 bits
        CuptiRecordTimes times = new CuptiRecordTimes();
        CuptiMemcpyDecoder c = new CuptiMemcpyDecoder(CuptiRecordLayout.CUPTI_13_0, times);
        c.wrap(b, 0);
        assertEquals(0xffff_ffffL, c.correlationId());
        times.startNs = 1_000;
        times.endNs = 3_000;
        TraceRecord slot = new TraceRecord();
        CuptiMemcpyDecoder.TRANSLATOR.translateTo(slot, 0, c);
        assertEquals(CopyKind.UNKNOWN, slot.copyKind);
        assertEquals(MemoryKind.UNKNOWN, slot.srcKind);
        assertEquals(MemoryKind.MANAGED_STATIC, slot.dstKind);
        assertEquals(1L << 40, slot.bytes);
        assertEquals(2, slot.device);
        assertEquals(5, slot.context);
        assertEquals(9, slot.stream);
        assertFalse(slot.has(RecordField.GRAPH), "graph id 0: launched outside a graph");

        ByteBuffer short95 = b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(95);
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> c.wrap(short95, 0));
        assertEquals("CUpti_ActivityMemcpy6 of 96 bytes at offset 0 runs past the buffer's valid size 95", e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> c.wrap(b, -8));
        assertThrows(IndexOutOfBoundsException.class, () -> c.wrap(b, 8));
        // CUPTI 11.1's Memcpy4 is 80 bytes and has no graph ids where 12-13 put them
        CuptiMemcpyDecoder v11 = new CuptiMemcpyDecoder(CuptiRecordLayout.CUPTI_11_1, times);
        b.putInt(72, 4).putLong(64, 77);
        v11.wrap(b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(80), 0);
        TraceRecord old = new TraceRecord();
        CuptiMemcpyDecoder.TRANSLATOR.translateTo(old, 0, v11);
        assertFalse(old.has(RecordField.GRAPH), "Memcpy4 carries no graph ids");
        c.wrap(b, 0);
        TraceRecord v13 = new TraceRecord();
        CuptiMemcpyDecoder.TRANSLATOR.translateTo(v13, 0, c);
        assertTrue(v13.has(RecordField.GRAPH));
        assertEquals(4, v13.graphId);
        assertEquals(77, v13.graphNodeId);
    }
}
