package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * What the copy and set records share, read by the base alone over the real memcpy and memset
 * records of the H200 kinds capture (against CUPTI's own decoding): bytes, times, device, context and
 * stream at the same offsets in both; graph ids published only
 * by a row that has them and only for work launched from a graph; a record cut short refused.
 */
class CuptiTransferRecordTest {
    private static final String KINDS = "h200-kinds/h200-kinds";
    /** A copy's graphNodeId and graphId (CUpti_ActivityMemcpy6). */
    private static final int NODE_AT = 64;
    private static final int GRAPH_AT = 72;

    private static CuptiTransferRecord view(int size, boolean graphIds) {
        return new CuptiTransferRecord(new CuptiRecordTimes(), size, "CUpti_ActivityMemcpy6", graphIds) {
        };
    }

    @Test
    void copiesAndSetsShareTheirFieldsAtTheSameOffsets() {
        List<FixtureRecords.Record> copies = FixtureRecords.of(KINDS, "memcpy", CuptiActivityKind.MEMCPY);
        List<FixtureRecords.Record> sets = FixtureRecords.of(KINDS, "memset", CuptiActivityKind.MEMSET);
        CuptiTransferRecord view = view(88, true);
        for (FixtureRecords.Record r : concat(copies, sets)) {
            JsonNode t = r.truth();
            view.wrap(r.buffer(), r.offset());
            assertEquals(t.get("bytes").asLong(), view.bytes(), t.toString());
            assertEquals(t.get("start").asLong(), view.rawStart(), t.toString());
            assertEquals(t.get("end").asLong(), view.rawEnd(), t.toString());
            assertEquals(t.get("device").asInt(), view.deviceId(), t.toString());
            assertEquals(t.get("context").asInt(), view.contextId(), t.toString());
            assertEquals(t.get("stream").asInt(), view.streamId(), t.toString());
        }
    }

    private static List<FixtureRecords.Record> concat(List<FixtureRecords.Record> a, List<FixtureRecords.Record> b) {
        List<FixtureRecords.Record> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Test
    void aCopysKindsAreItsOwnAndGraphIdsComeOnlyFromARowThatHasThem() {
        List<FixtureRecords.Record> copies = FixtureRecords.of(KINDS, "memcpy", CuptiActivityKind.MEMCPY);
        int inGraphs = 0;
        for (FixtureRecords.Record r : copies) {
            JsonNode t = r.truth();
            for (boolean rowHasGraphIds : new boolean[] {true, false}) {
                CuptiTransferRecord view = view(96, rowHasGraphIds);
                view.wrap(r.buffer(), r.offset());
                TraceRecord slot = new TraceRecord();
                view.fillCopy(slot);
                view.publishGraphIds(slot, NODE_AT, GRAPH_AT);
                assertEquals(t.get("bytes").asLong(), slot.bytes);
                assertEquals(CopyKind.values()[t.get("copyKind").asInt()], slot.copyKind, t.toString());
                assertEquals(MemoryKind.values()[t.get("srcKind").asInt()], slot.srcKind, t.toString());
                assertEquals(MemoryKind.values()[t.get("dstKind").asInt()], slot.dstKind, t.toString());
                long graphId = t.get("graphId").asLong();
                assertEquals(rowHasGraphIds && graphId != 0, slot.has(RecordField.GRAPH), t.toString());
                if (slot.has(RecordField.GRAPH)) {
                    assertEquals(graphId, slot.graphId);
                    assertEquals(t.get("graphNodeId").asLong(), slot.graphNodeId);
                    inGraphs++;
                }
            }
        }
        assertTrue(inGraphs > 0, "the capture copies from a graph");
    }

    @Test
    void aRecordCutShortIsRefusedWithTheRowsRecordName() {
        ByteBuffer b = ByteBuffer.allocate(200).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals("CUpti_ActivityMemcpy6 of 96 bytes at offset 105 runs past the buffer's valid size 200",
                assertThrows(IndexOutOfBoundsException.class, () -> view(96, true).wrap(b, 105)).getMessage());
        view(96, true).wrap(b, 104); // the last offset that holds it
        assertThrows(IndexOutOfBoundsException.class, () -> view(96, true).wrap(b, -1));
    }
}
