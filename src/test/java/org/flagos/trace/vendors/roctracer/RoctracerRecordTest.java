package org.flagos.trace.vendors.roctracer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * {@code activity_record_t} read in place: the fake libroctracer's records (C structs at the offsets
 * its static asserts pin) read back as the script wrote them (a 4096-byte copy, a 512-byte fill, a
 * kernel whose name lies in the buffer's tail); the command decides memcpy or memset and the copy's
 * direction; the skip key; the translators; a record cut short.
 */
class RoctracerRecordTest {
    private static final RecordNaming NAMING = RecordNaming.of(handle -> "k");

    private static ByteBuffer fake() {
        return ByteBuffer.wrap(RoctracerDecoderContractTest.fakeBuffer().clone()).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static RoctracerRecord at(ByteBuffer b, int domain, int op) {
        for (int pos = 0; pos < b.limit(); pos += RoctracerRecord.SIZE) {
            RoctracerRecord r = new RoctracerRecord(NAMING).wrap(b, pos);
            if (r.domain() == domain && r.op() == op) {
                return r;
            }
        }
        throw new AssertionError("no record of domain " + domain + " op " + op);
    }

    @Test
    void theFakesDeviceRecordsReadAsTheScriptWroteThem() {
        ByteBuffer b = fake();
        RoctracerRecord kernel = at(b, RoctracerRecord.DOMAIN_HIP_OPS, RoctracerRecord.OP_DISPATCH);
        assertEquals(EventKind.KERNEL, kernel.eventKind());
        long name = kernel.kernelName();
        assertTrue(name != 0, "a dispatch names its kernel");

        ByteBuffer copies = fake();
        int seen = 0;
        for (int pos = 0; pos < copies.limit(); pos += RoctracerRecord.SIZE) {
            RoctracerRecord r = new RoctracerRecord(NAMING).wrap(copies, pos);
            if (r.domain() == RoctracerRecord.DOMAIN_HIP_OPS && r.op() == RoctracerRecord.OP_COPY) {
                if (r.isFill()) {
                    assertEquals(EventKind.MEMSET, r.eventKind());
                    assertEquals(512, r.bytes(), "fakeHipMemsetAsync(512)");
                } else {
                    assertEquals(EventKind.MEMCPY, r.eventKind());
                    assertEquals(4096, r.bytes(), "fakeHipMemcpyAsync(4096)");
                }
                assertTrue(r.begin() > 0 && r.end() >= r.begin());
                seen++;
            }
        }
        assertEquals(2, seen);
    }

    @Test
    void anApiRecordAndItsBindingShareTheCorrelation() {
        ByteBuffer b = fake();
        for (int pos = 0; pos + 2 * RoctracerRecord.SIZE <= b.limit(); pos += RoctracerRecord.SIZE) {
            RoctracerRecord r = new RoctracerRecord(NAMING).wrap(b, pos);
            if (r.domain() == RoctracerRecord.DOMAIN_EXT_API) {
                RoctracerRecord next = new RoctracerRecord(NAMING).wrap(b, pos + RoctracerRecord.SIZE);
                assertEquals(RoctracerRecord.DOMAIN_HIP_API, next.domain(), "roctracer writes the binding right before its call");
                assertEquals(r.correlationId(), next.correlationId());
                assertEquals(7, r.externalId(), "the id pushed");
                assertEquals(ProcessHandle.current().pid(), next.processId());
            }
        }
    }

    /** A record of HIP_OPS op {@code op} with cl_command_type {@code command}. */
    private static RoctracerRecord ops(int op, int command) {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(RoctracerRecord.DOMAIN, RoctracerRecord.DOMAIN_HIP_OPS).putInt(RoctracerRecord.KIND, command)
                .putInt(RoctracerRecord.OP, op).putLong(RoctracerRecord.CORRELATION_ID, 9).putInt(RoctracerRecord.DEVICE_ID, 3)
                .putLong(RoctracerRecord.QUEUE_ID, 5).putLong(RoctracerRecord.BYTES, 1234);
        return new RoctracerRecord(NAMING).wrap(b, 0);
    }

    @Test
    void theCommandDecidesSetOrCopyAndTheCopysDirection() {
        assertEquals(CopyKind.DTOH, ops(1, RoctracerRecord.CMD_READ_BUFFER).copyKind());
        assertEquals(CopyKind.DTOH, ops(1, RoctracerRecord.CMD_READ_BUFFER_RECT).copyKind());
        assertEquals(CopyKind.HTOD, ops(1, RoctracerRecord.CMD_WRITE_BUFFER).copyKind());
        assertEquals(CopyKind.HTOD, ops(1, RoctracerRecord.CMD_WRITE_BUFFER_RECT).copyKind());
        assertEquals(CopyKind.DTOD, ops(1, RoctracerRecord.CMD_COPY_BUFFER).copyKind());
        assertEquals(CopyKind.DTOD, ops(1, RoctracerRecord.CMD_COPY_BUFFER_RECT).copyKind());
        assertEquals(CopyKind.UNKNOWN, ops(1, 0x1204 /* CL_COMMAND_COPY_IMAGE */).copyKind());
        assertEquals(EventKind.MEMSET, ops(1, RoctracerRecord.CMD_FILL_BUFFER).eventKind());
        assertEquals(EventKind.MEMSET, ops(1, RoctracerRecord.CMD_FILL_IMAGE).eventKind());
        assertEquals(EventKind.MEMCPY, ops(1, RoctracerRecord.CMD_COPY_BUFFER).eventKind());
        assertEquals(EventKind.KERNEL, ops(0, RoctracerRecord.CMD_FILL_BUFFER).eventKind(), "a dispatch is a kernel whatever its command");
    }

    @Test
    void theSkipKeyIsDomainTimesAThousandPlusOp() {
        assertEquals(2002, RoctracerRecord.skipKey(RoctracerRecord.DOMAIN_HIP_OPS, RoctracerRecord.OP_BARRIER));
        assertEquals(5000, RoctracerRecord.skipKey(RoctracerRecord.DOMAIN_EXT_API, 0));
        assertEquals(4234, RoctracerRecord.skipKey(4, 1234), "an op past 999 stays in its domain's thousand");
        assertEquals(999, RoctracerRecord.skipKey(0, -1), "a negative op too");
    }

    @Test
    void theTranslatorsFillTheirKindsFields() {
        RoctracerRecord copy = ops(1, RoctracerRecord.CMD_WRITE_BUFFER);
        copy.startNs = 100;
        copy.endNs = 200;
        TraceRecord slot = new TraceRecord();
        RoctracerRecord.OPS.translateTo(slot, 0, copy);
        assertEquals(EventKind.MEMCPY, slot.kind);
        assertEquals(100, slot.startNs);
        assertEquals(3, slot.device);
        assertEquals(5, slot.stream, "the queue is the trace's stream");
        assertEquals(1234, slot.bytes);
        assertEquals(CopyKind.HTOD, slot.copyKind);
        assertTrue(slot.has(RecordField.BYTES));

        RoctracerRecord fill = ops(1, RoctracerRecord.CMD_FILL_BUFFER);
        TraceRecord set = new TraceRecord();
        RoctracerRecord.OPS.translateTo(set, 0, fill);
        assertEquals(EventKind.MEMSET, set.kind);
        assertEquals(1234, set.bytes);

        RoctracerRecord kernel = ops(0, 0);
        TraceRecord k = new TraceRecord();
        RoctracerRecord.OPS.translateTo(k, 0, kernel);
        assertEquals(1234, k.nameHandle, "the third union is the kernel's name");
        assertSame(NAMING, k.naming);
        assertFalse(k.has(RecordField.BYTES) || k.has(RecordField.GRID) || k.has(RecordField.CONTEXT), "a dispatch has no sizes");

        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(RoctracerRecord.DOMAIN, RoctracerRecord.DOMAIN_HIP_API).putInt(RoctracerRecord.OP, 42)
                .putLong(RoctracerRecord.CORRELATION_ID, 77).putInt(RoctracerRecord.PROCESS_ID, 555)
                .putInt(RoctracerRecord.THREAD_ID, 0xFFFF_FFF0);
        TraceRecord api = new TraceRecord();
        RoctracerRecord.API.translateTo(api, 0, new RoctracerRecord(NAMING).wrap(b, 0));
        assertEquals(EventKind.RUNTIME, api.kind);
        assertEquals(42, api.cbid, "hip_api_id_t is the cbid");
        assertEquals(77, api.correlation());
        assertEquals(555, api.processId);
        assertEquals(4294967280L, api.threadId, "gettid() as unsigned 32 bits");

        b.putInt(RoctracerRecord.DOMAIN, RoctracerRecord.DOMAIN_EXT_API).putLong(RoctracerRecord.EXTERNAL_ID, 1L << 40);
        TraceRecord binding = new TraceRecord();
        RoctracerRecord.EXTERN.translateTo(binding, 0, new RoctracerRecord(NAMING).wrap(b, 0));
        assertEquals(RecordType.CORRELATION_BINDING, binding.type);
        assertEquals(77, binding.correlation());
        assertEquals(1L << 40, binding.externalId());
    }

    @Test
    void aRecordCutShortIsRefused() {
        ByteBuffer b = ByteBuffer.allocate(100).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals("activity_record_t of 64 bytes at offset 40 runs past the buffer's valid size 100",
                assertThrows(IndexOutOfBoundsException.class, () -> new RoctracerRecord(NAMING).wrap(b, 40)).getMessage());
        new RoctracerRecord(NAMING).wrap(b, 36);
    }
}
