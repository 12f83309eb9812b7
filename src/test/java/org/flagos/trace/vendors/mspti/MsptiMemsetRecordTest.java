package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/** The memset record's value (offset 4) and its translator, on the fake MSPTI's one memset. */
class MsptiMemsetRecordTest {
    @Test
    void theScriptsMemsetThroughTheTranslator() {
        ByteBuffer buffer = FakeMsptiBuffers.scriptedBuffer();
        List<Integer> at = FakeMsptiBuffers.offsets(buffer, MsptiActivityKind.MEMSET);
        assertEquals(1, at.size());
        MsptiMemsetRecord m = new MsptiMemsetRecord();
        m.wrap(buffer, at.get(0));
        assertEquals(3, FakeMsptiBuffers.step(m.correlationId()));
        assertEquals(3, m.value(), "the fake sets step & 0xff");
        m.logicalDevice = 1;
        TraceRecord slot = new TraceRecord();
        MsptiMemsetRecord.TRANSLATOR.translateTo(slot, 0, m);
        assertEquals(EventKind.MEMSET, slot.kind);
        assertEquals(3, slot.memsetValue);
        assertEquals(1024, slot.bytes);
        assertEquals(2000, slot.endNs - slot.startNs);
        assertTrue(slot.has(RecordField.BYTES));
        assertTrue(slot.has(RecordField.MEMSET_VALUE));
        assertFalse(slot.has(RecordField.CONTEXT), "MSPTI's memset has no context");
        assertEquals(null, slot.copyKind);
    }
}
