package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/** The API record's own fields (process 20, thread 24, name 36) and its translator, on the fake MSPTI's calls. */
class MsptiApiRecordTest {
    private static final ByteBuffer BUFFER = FakeMsptiBuffers.scriptedBuffer();

    @Test
    void processAndNamePointersAreTheScripts() {
        MsptiApiRecord api = new MsptiApiRecord();
        Map<Long, Long> aclNameByStep = new HashMap<>();
        Map<Long, Long> runtimeNameByStep = new HashMap<>();
        for (int kind : new int[] {MsptiActivityKind.ACL_API, MsptiActivityKind.RUNTIME_API}) {
            for (int offset : FakeMsptiBuffers.offsets(BUFFER, kind)) {
                api.wrap(BUFFER, offset);
                assertEquals(ProcessHandle.current().pid(), api.processId(), "the fake writes getpid()");
                assertNotEquals(0, api.threadId());
                (kind == MsptiActivityKind.ACL_API ? aclNameByStep : runtimeNameByStep)
                        .put(FakeMsptiBuffers.step(api.correlationId()), api.namePointer());
            }
        }
        // steps 1 and 4 are launches (aclnnFakeMatmul, rtKernelLaunch); 2 a copy, 3 a memset: each its own strings
        assertEquals(aclNameByStep.get(1L), aclNameByStep.get(4L));
        assertEquals(runtimeNameByStep.get(1L), runtimeNameByStep.get(4L));
        assertEquals(3, new java.util.HashSet<>(aclNameByStep.values()).size());
        assertEquals(3, new java.util.HashSet<>(runtimeNameByStep.values()).size());
        assertNotEquals(aclNameByStep.get(1L), runtimeNameByStep.get(1L));
    }

    @Test
    void theTranslatorFillsARuntimeSlotWithAnUnsignedThreadId() {
        List<Integer> at = FakeMsptiBuffers.offsets(BUFFER, MsptiActivityKind.RUNTIME_API);
        ByteBuffer copy = ByteBuffer.allocate(BUFFER.limit()).order(BUFFER.order());
        copy.put(BUFFER.duplicate()).flip();
        copy.putInt(at.get(0) + 24, 0xFFFF_FFFE); // a thread id with its top bit set
        MsptiApiRecord api = new MsptiApiRecord();
        api.wrap(copy, at.get(0));
        api.naming = new MsptiStrings(KernelNames.NONE);
        TraceRecord slot = new TraceRecord();
        MsptiApiRecord.TRANSLATOR.translateTo(slot, 0, api);
        assertEquals(EventKind.RUNTIME, slot.kind);
        assertEquals(api.start(), slot.startNs);
        assertEquals(api.end(), slot.endNs);
        assertEquals(api.correlationId(), slot.correlation());
        assertEquals(ProcessHandle.current().pid(), slot.processId);
        assertEquals(0xFFFF_FFFEL, slot.threadId, "unsigned, not -2");
        assertEquals(api.namePointer(), slot.nameHandle);
        assertSame(api.naming, slot.naming);
        assertFalse(slot.has(RecordField.CBID), "MSPTI's API record has no callback id");
    }
}
