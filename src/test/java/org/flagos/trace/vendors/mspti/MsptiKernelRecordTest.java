package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.util.List;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/** The kernel record's own fields (device 20, stream 24, type 36, name 44) and its translator, on the fake MSPTI's kernels. */
class MsptiKernelRecordTest {
    private static final ByteBuffer BUFFER = FakeMsptiBuffers.scriptedBuffer();

    @Test
    void fieldsAreTheScripts() {
        List<Integer> at = FakeMsptiBuffers.offsets(BUFFER, MsptiActivityKind.KERNEL);
        assertEquals(2, at.size());
        MsptiKernelRecord k = new MsptiKernelRecord();
        long[] names = new long[2];
        long[] types = new long[2];
        for (int i = 0; i < 2; i++) {
            k.wrap(BUFFER, at.get(i));
            assertEquals(2, k.deviceId(), "the fake's physical device");
            assertEquals(0, k.streamId(), "step / 100");
            names[i] = k.namePointer();
            types[i] = k.typePointer();
            assertNotEquals(0, names[i]);
            assertNotEquals(0, types[i]);
            assertNotEquals(names[i], types[i], "type (36) and name (44) are two strings");
        }
        // steps 1 and 4 both launch KERNEL_NAMES[1] of type "AI_CORE": the same two C strings
        assertEquals(names[0], names[1]);
        assertEquals(types[0], types[1]);
    }

    @Test
    void theTranslatorFillsAKernelSlot() {
        MsptiKernelRecord k = new MsptiKernelRecord();
        k.wrap(BUFFER, FakeMsptiBuffers.offsets(BUFFER, MsptiActivityKind.KERNEL).get(0));
        k.logicalDevice = 1;
        k.naming = new MsptiStrings(KernelNames.NONE);
        TraceRecord slot = new TraceRecord();
        MsptiKernelRecord.TRANSLATOR.translateTo(slot, 0, k);
        assertEquals(RecordType.ACTIVITY, slot.type);
        assertEquals(EventKind.KERNEL, slot.kind);
        assertEquals(k.start(), slot.startNs);
        assertEquals(k.end(), slot.endNs);
        assertEquals(k.correlationId(), slot.correlation());
        assertEquals(1, slot.device, "the logical device, not the physical one");
        assertEquals(0, slot.stream);
        assertEquals(k.namePointer(), slot.nameHandle);
        assertSame(k.naming, slot.naming);
        assertFalse(slot.has(RecordField.GRID) || slot.has(RecordField.CONTEXT) || slot.has(RecordField.QUEUED));
    }
}
