package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * The fields a memcpy and a memset share (bytes 8, start 16, end 24, device 32, stream 36, the 64-bit
 * correlation 40) read the same through either view, and {@code fill} puts them in a slot.
 */
class MsptiTransferRecordTest {
    private static final ByteBuffer BUFFER = FakeMsptiBuffers.scriptedBuffer();

    @Test
    void sharedFieldsAreTheScripts() {
        MsptiMemcpyRecord copy = new MsptiMemcpyRecord();
        copy.wrap(BUFFER, FakeMsptiBuffers.offsets(BUFFER, MsptiActivityKind.MEMCPY).get(0));
        MsptiMemsetRecord set = new MsptiMemsetRecord();
        set.wrap(BUFFER, FakeMsptiBuffers.offsets(BUFFER, MsptiActivityKind.MEMSET).get(0));
        assertEquals(4098, copy.bytes());
        assertEquals(1024, set.bytes());
        assertEquals(2, copy.deviceId());
        assertEquals(2, set.deviceId());
        assertEquals(0, copy.streamId());
        assertEquals((1L << 32) + 2 * 16 + 5, copy.correlationId());
        assertEquals((1L << 32) + 3 * 16 + 5, set.correlationId());
        // both start 5 us into their step, one step (10 us) apart
        assertEquals(10_000, set.start() - copy.start());
        assertEquals(1000, copy.end() - copy.start());
        assertEquals(2000, set.end() - set.start());
    }

    @Test
    void fillPutsTheSharedFieldsInTheSlot() {
        MsptiMemsetRecord set = new MsptiMemsetRecord();
        set.wrap(BUFFER, FakeMsptiBuffers.offsets(BUFFER, MsptiActivityKind.MEMSET).get(0));
        set.logicalDevice = 5;
        TraceRecord slot = new TraceRecord();
        set.fill(slot, EventKind.MEMSET);
        assertEquals(EventKind.MEMSET, slot.kind);
        assertEquals(set.start(), slot.startNs);
        assertEquals(set.end(), slot.endNs);
        assertEquals(set.correlationId(), slot.correlation());
        assertEquals(5, slot.device, "the logical device the decoder set");
        assertEquals(0, slot.stream);
        assertEquals(1024, slot.bytes);
    }

    @Test
    void aRecordPastTheValidBytesIsRefused() {
        MsptiMemcpyRecord copy = new MsptiMemcpyRecord();
        ByteBuffer short55 = ByteBuffer.allocate(MsptiTransferRecord.SIZE - 1);
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> copy.wrap(short55, 0));
        assertEquals("msptiActivityMemcpy of 56 bytes at offset 0 runs past the buffer's valid size 55", e.getMessage());
        copy.wrap(ByteBuffer.allocate(MsptiTransferRecord.SIZE), 0);
    }
}
