package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * Graph ids read in place: a graph id of 0 (work launched outside a graph) gives no graph fields, any
 * other gives the 32-bit graph id unsigned and the 64-bit node id as written, from the offsets given.
 */
class CuptiGraphIdsTest {
    @Test
    void graphIdZeroIsNoGraphAndTheIdsReadAsWritten() {
        ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        TraceRecord slot = new TraceRecord();
        b.putLong(8, 8589934594L).putInt(16, 0);
        CuptiGraphIds.publish(slot, b, 8, 16);
        assertFalse(slot.has(RecordField.GRAPH), "graph id 0: outside a graph, whatever the node id");
        assertEquals(0, slot.graphId);
        assertEquals(0, slot.graphNodeId);

        b.putInt(16, 2);
        CuptiGraphIds.publish(slot, b, 8, 16);
        assertTrue(slot.has(RecordField.GRAPH));
        assertEquals(2, slot.graphId);
        assertEquals(8589934594L, slot.graphNodeId, "the H200 kinds capture's first graph node id");

        TraceRecord high = new TraceRecord();
        b.putInt(20, -1).putLong(24, -2);
        CuptiGraphIds.publish(high, b, 24, 20);
        assertEquals(0xFFFF_FFFFL, high.graphId, "unsigned 32 bits");
        assertEquals(-2L, high.graphNodeId, "64 bits as written");
    }
}
