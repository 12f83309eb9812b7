package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ActivityDecoderContract;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.CollectingSink;
import org.junit.jupiter.api.Test;

/** The decoder contract on buffers the fake MSPTI wrote, and every decoded field against the script. */
class MsptiDecoderContractTest extends ActivityDecoderContract {
    private static byte[] buffer;

    @Override
    protected ActivityBufferDecoder decoder() {
        return new MsptiBufferDecoder(KernelNames.NONE, new NameTable());
    }

    @Override
    protected synchronized byte[] realBuffer() {
        if (buffer == null) {
            buffer = FakeMsptiBuffers.scripted();
        }
        return buffer;
    }

    @Override
    protected int unknownKind() {
        return 13; // MSPTI_ACTIVITY_KIND_COUNT
    }

    private List<TraceRecord> decodeAll(NameTable names, KernelNames strings, DecodeStats stats) {
        CollectingSink sink = CollectingSink.named(MsptiApiNames.INSTANCE, names, stats);
        new MsptiBufferDecoder(strings, names, AscendDevices.parse("4,2"))
                .decode(ByteBuffer.wrap(realBuffer()).order(ByteOrder.LITTLE_ENDIAN), sink, stats);
        return sink.records;
    }

    @Test
    void everyFieldIsReadAtTheHeadersOffsets() {
        NameTable names = new NameTable();
        DecodeStats stats = new DecodeStats();
        List<TraceRecord> records = decodeAll(names, KernelNames.NONE, stats);
        // 4 calls: 8 API records, 4 device records; 6 bindings (the API records inside the pushed id)
        assertEquals(18, records.size());
        assertEquals(0, stats.undecodableBytes());
        List<TraceRecord> kernels = new ArrayList<>();
        long base = -1;
        for (TraceRecord r : records) {
            if (r.type == RecordType.ACTIVITY && r.kind == EventKind.KERNEL) {
                kernels.add(r);
            }
        }
        assertEquals(2, kernels.size());
        TraceRecord k1 = kernels.get(0).correlation() == (1L << 32) + 16 + 5 ? kernels.get(0) : kernels.get(1);
        base = k1.startNs - 10_000 - 5_000;
        assertEquals(base + 10_000 + 8_000, k1.endNs);
        assertEquals(1, k1.device, "physical 2 is logical 1 under ASCEND_RT_VISIBLE_DEVICES=4,2");
        assertEquals(0, k1.stream);
        assertEquals((1L << 32) + 16 + 5, k1.correlation(), "64-bit correlation above 2^32, as MSPTI wrote it");
        assertFalse(k1.has(RecordField.GRID) || k1.has(RecordField.BLOCK) || k1.has(RecordField.CONTEXT)
                || k1.has(RecordField.REGISTERS) || k1.has(RecordField.SHARED_MEMORY) || k1.has(RecordField.QUEUED));
        assertTrue(names.name(k1.nameId).startsWith("<unresolved kernel 0x"), "no name table: placeholder");
        for (TraceRecord r : records) {
            if (r.type == RecordType.CORRELATION_BINDING) {
                assertEquals(7, r.externalId());
                assertTrue(r.correlation() == (1L << 32) + 16 + 5 || r.correlation() == (1L << 32) + 32 + 5
                        || r.correlation() == (1L << 32) + 48 + 5, Long.toUnsignedString(r.correlation()));
            } else if (r.kind == EventKind.MEMCPY) {
                assertEquals(base + 20_000 + 5_000, r.startNs);
                assertEquals(base + 20_000 + 6_000, r.endNs);
                assertEquals(4096 + 2, r.bytes);
                assertEquals(CopyKind.HTOD, r.copyKind);
                assertEquals(1, r.device);
                assertTrue(r.has(RecordField.BYTES));
            } else if (r.kind == EventKind.MEMSET) {
                assertEquals(base + 30_000 + 5_000, r.startNs);
                assertEquals(base + 30_000 + 7_000, r.endNs);
                assertEquals(1024, r.bytes);
                assertEquals(3, r.memsetValue);
                assertTrue(r.has(RecordField.MEMSET_VALUE));
            } else if (r.kind == EventKind.RUNTIME) {
                assertFalse(r.has(RecordField.CBID), "MSPTI API records have no callback id");
                assertEquals(ProcessHandle.current().pid(), r.processId);
                assertTrue(r.threadId > 0);
                assertTrue(r.nameHandle != 0, "the name pointer travels to the name stage");
                assertEquals(MsptiApiNames.INSTANCE.genericLabel(EventKind.RUNTIME), names.name(r.nameId),
                        "no name table: the pointer resolves to nothing, the generic label stays");
            }
        }
    }

    @Test
    void namePointersResolveThroughTheStringSource() {
        NameTable names = new NameTable();
        List<Long> looked = new ArrayList<>();
        KernelNames strings = pointer -> {
            looked.add(pointer);
            return "s" + Long.toHexString(pointer);
        };
        List<TraceRecord> records = decodeAll(names, strings, new DecodeStats());
        int apis = 0;
        for (TraceRecord r : records) {
            if (r.type == RecordType.ACTIVITY && r.kind == EventKind.RUNTIME) {
                assertTrue(names.name(r.nameId).startsWith("s"));
                apis++;
            }
        }
        assertEquals(8, apis);
        // distinct pointers read once each: 6 API names, 1 kernel name (steps 1 and 4 launch the same), 1 kernel type
        assertEquals(looked.size(), new java.util.HashSet<>(looked).size(), "each pointer read once");
        assertEquals(8, looked.size(), looked.toString());
    }

    @Test
    void bothTimesZeroIsIncompleteNotInvalid() {
        byte[] one = new byte[48];
        ByteBuffer b = ByteBuffer.wrap(one).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, 12);
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        decoder().decode(b, sink, stats);
        assertEquals(0, sink.records.size());
        assertEquals(1, stats.incompleteRecords());
        assertEquals(0, stats.invalidRecords());
    }
}
