package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/** {@code msptiActivityMemcpyKind} by its numbers, and the fake MSPTI's one copy through the translator. */
class MsptiMemcpyRecordTest {
    @Test
    void copyKindsByTheHeadersNumbers() {
        assertEquals(CopyKind.UNKNOWN, MsptiMemcpyRecord.copyKind(0));
        assertEquals(CopyKind.HTOH, MsptiMemcpyRecord.copyKind(1));
        assertEquals(CopyKind.HTOD, MsptiMemcpyRecord.copyKind(2));
        assertEquals(CopyKind.DTOH, MsptiMemcpyRecord.copyKind(3));
        assertEquals(CopyKind.DTOD, MsptiMemcpyRecord.copyKind(4));
        assertEquals(CopyKind.UNKNOWN, MsptiMemcpyRecord.copyKind(5), "DEFAULT: the direction is not known");
        assertEquals(CopyKind.UNKNOWN, MsptiMemcpyRecord.copyKind(6));
        assertEquals(CopyKind.UNKNOWN, MsptiMemcpyRecord.copyKind(-1));
    }

    @Test
    void theScriptsCopyThroughTheTranslator() {
        ByteBuffer buffer = FakeMsptiBuffers.scriptedBuffer();
        List<Integer> at = FakeMsptiBuffers.offsets(buffer, MsptiActivityKind.MEMCPY);
        assertEquals(1, at.size());
        MsptiMemcpyRecord m = new MsptiMemcpyRecord();
        m.wrap(buffer, at.get(0));
        assertEquals(2, m.copyKind(), "HTOD as the fake writes it");
        assertEquals(2, FakeMsptiBuffers.step(m.correlationId()));
        m.logicalDevice = 1;
        TraceRecord slot = new TraceRecord();
        MsptiMemcpyRecord.TRANSLATOR.translateTo(slot, 0, m);
        assertEquals(EventKind.MEMCPY, slot.kind);
        assertEquals(CopyKind.HTOD, slot.copyKind);
        assertEquals(4096 + 2, slot.bytes, "4096 + step bytes");
        assertTrue(slot.has(RecordField.BYTES));
        assertEquals(1000, slot.endNs - slot.startNs);
        assertEquals(1, slot.device);
    }
}
