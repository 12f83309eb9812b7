package org.flagos.trace.vendors.mupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ActivityDecoderContract;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.CollectingSink;
import org.flagos.trace.testing.FakeSampleBuffer;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;
import org.junit.jupiter.api.Test;

/**
 * MUPTI's decoder against a buffer the fake MUPTI's record writers produced (Kernel6, Memcpy4,
 * Memset3, API, ExternalCorrelation at CUPTI's offsets), field by field, and the contract.
 */
class MuptiDecoderContractTest extends ActivityDecoderContract {
    private static final byte[] SAMPLE = FakeSampleBuffer.of("fake_mupti", "mupti", "fakeMuptiSampleBuffer");

    @Override
    protected ActivityBufferDecoder decoder() {
        return MuptiDecoder.replay(KernelNames.NONE, new NameTable(), DeviceClockMapping.IDENTITY);
    }

    @Override
    protected byte[] realBuffer() {
        return SAMPLE;
    }

    @Override
    protected int unknownKind() {
        return 1000;
    }

    private static ByteBuffer sample() {
        return ByteBuffer.wrap(SAMPLE).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void everyFieldIsReadAtItsCuptiOffset() {
        NameTable names = new NameTable();
        KernelNames kernels = handle -> "_Z4reluPfi";
        CuptiBufferDecoder decoder = MuptiDecoder.replay(kernels, names, DeviceClockMapping.IDENTITY);
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = CollectingSink.named(decoder.apiNames(), names, stats);
        decoder.decode(sample(), sink, stats);
        List<TraceRecord> r = sink.records;
        assertEquals(12, r.size()); // 3 x (external, API, kernel) + driver API + memcpy + memset
        assertEquals(3, stats.bindings());
        assertEquals(3, stats.published(EventKind.KERNEL));
        assertEquals(3, stats.published(EventKind.RUNTIME));
        assertEquals(1, stats.published(EventKind.DRIVER));
        assertEquals(0, stats.invalidRecords());

        TraceRecord binding = r.get(0);
        assertEquals(RecordType.CORRELATION_BINDING, binding.type);
        assertEquals(100, binding.correlation());
        assertEquals(40, binding.externalId());

        TraceRecord api = r.get(1);
        assertEquals(EventKind.RUNTIME, api.kind);
        assertEquals(211, api.cbid);
        assertTrue(api.has(RecordField.CBID));
        assertEquals(2000, api.endNs - api.startNs);
        assertEquals(77, api.threadId);
        assertEquals(100, api.correlation());

        TraceRecord kernel = r.get(2);
        assertEquals(EventKind.KERNEL, kernel.kind);
        assertEquals(api.startNs + 3000, kernel.startNs);
        assertEquals(3000, kernel.durationNs());
        assertEquals(List.of(8, 16, 5, 128, 1, 1), List.of(kernel.gridX, kernel.gridY, kernel.gridZ, kernel.blockX,
                kernel.blockY, kernel.blockZ));
        assertEquals(32, kernel.registersPerThread);
        assertEquals(0, kernel.staticSharedMemory);
        assertEquals(256, kernel.dynamicSharedMemory);
        assertEquals(1, kernel.context);
        assertEquals(7, kernel.stream);
        assertEquals(0, kernel.queued);
        assertEquals("relu(float*, int)", names.name(kernel.nameId));
        assertEquals(2048, r.get(8).staticSharedMemory, "third kernel's static shared memory");

        TraceRecord driver = r.get(9);
        assertEquals(EventKind.DRIVER, driver.kind);
        assertEquals(7, driver.cbid);
        TraceRecord copy = r.get(10);
        assertEquals(EventKind.MEMCPY, copy.kind);
        assertEquals(4096, copy.bytes);
        assertEquals(201, copy.correlation());
        assertEquals("HTOD", copy.copyKind.name());
        assertEquals("PAGEABLE", copy.srcKind.name());
        assertEquals("DEVICE", copy.dstKind.name());
        TraceRecord set = r.get(11);
        assertEquals(EventKind.MEMSET, set.kind);
        assertEquals(1024, set.bytes);
        assertEquals(0x2a, set.memsetValue);
        assertEquals("DEVICE", set.memoryKind.name());
        assertEquals(202, set.correlation());
    }

    @Test
    void timesGoThroughTheClockMappingAndImplausibleOnesAreCounted() {
        ByteBuffer b = sample();
        long vendorStart = b.getLong(24 + 8); // the first API record's start
        DeviceClockMapping mapping = new DeviceClockMapping(vendorStart, 1_700_000_000_000_000_000L, 0.9999);
        CuptiBufferDecoder decoder = MuptiDecoder.replay(KernelNames.NONE, new NameTable(), mapping);
        CollectingSink sink = new CollectingSink();
        DecodeStats stats = new DecodeStats();
        decoder.decode(sample(), sink, stats);
        TraceRecord api = sink.records.get(1);
        assertEquals(1_700_000_000_000_000_000L, api.startNs);
        assertEquals(1_700_000_000_000_000_000L + Math.round(2000 * 0.9999), api.endNs);
        // the same buffer under a mapping whose session began a day after the records: every timed record dropped
        DeviceClockMapping later = new DeviceClockMapping(vendorStart - 2 * 86_400_000_000_000L, 1_700_000_000_000_000_000L, 1.0);
        DecodeStats dropped = new DecodeStats();
        CollectingSink none = new CollectingSink();
        MuptiDecoder.replay(KernelNames.NONE, new NameTable(), later).decode(sample(), none, dropped);
        assertEquals(9, dropped.invalidRecords(), dropped.problems());
        assertEquals(3, none.records.size(), "only the bindings, which carry no time");
        assertFalse(dropped.problems().isEmpty());
    }

    @Test
    void apiNamesComeFromTheCapturesNameTableUnderApiNameHandles() {
        Map<Long, String> table = Map.of(ApiNameHandle.of(2, 211), "musaLaunchKernel");
        CuptiBufferDecoder decoder = MuptiDecoder.replay(table::get, new NameTable(), DeviceClockMapping.IDENTITY);
        assertEquals("musaLaunchKernel", decoder.apiNames().name(EventKind.RUNTIME, 211));
        assertEquals(null, decoder.apiNames().name(EventKind.RUNTIME, 212));
        assertEquals(null, decoder.apiNames().name(EventKind.DRIVER, 211), "driver ids are another domain");
        assertEquals("privateuse1_runtime", decoder.apiNames().category(EventKind.RUNTIME));
        assertEquals("musaRuntime", decoder.apiNames().genericLabel(EventKind.RUNTIME));
    }
}
