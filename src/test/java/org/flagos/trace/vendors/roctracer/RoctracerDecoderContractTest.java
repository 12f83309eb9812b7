package org.flagos.trace.vendors.roctracer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.natives.RoctracerLibrary;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ActivityDecoderContract;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.testing.CollectingSink;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.junit.jupiter.api.Test;

/**
 * The decoder contract on a buffer the fake libroctracer delivered through the shim: a kernel, a
 * copy, a fill and a barrier on the device, four HIP calls, each bound to the External id pushed.
 */
class RoctracerDecoderContractTest extends ActivityDecoderContract {
    private static byte[] buffer;

    static synchronized byte[] fakeBuffer() {
        if (buffer == null) {
            BytePointer error = new BytePointer(512);
            RoctracerLibrary.Handle lib = RoctracerLibrary.ft_roc_open(FakeVendorLibrary.build("fake_roctracer").toString(), error, 512);
            assertNotNull(lib, () -> error.getString(StandardCharsets.UTF_8));
            byte[][] out = new byte[1][];
            RoctracerLibrary.BufferSink sink = new RoctracerLibrary.BufferSink() {
                @Override
                public void call(long library, BytePointer records, long size) { // made once per JVM (buffer is kept)
                    out[0] = new byte[(int) size];
                    records.capacity(size).asByteBuffer().get(out[0]);
                }
            };
            assertEquals(0, RoctracerLibrary.ft_roc_open_pool(lib, 1 << 16, sink));
            RoctracerLibrary.ft_roc_enable(lib, RoctracerRecord.DOMAIN_HIP_OPS);
            RoctracerLibrary.ft_roc_enable(lib, RoctracerRecord.DOMAIN_HIP_API);
            RoctracerLibrary.ft_roc_push(lib, 7);
            RoctracerLibrary.ft_roc_invoke(lib, "fakeHipLaunchKernel", 0);
            RoctracerLibrary.ft_roc_invoke(lib, "fakeHipMemcpyAsync", 4096);
            RoctracerLibrary.ft_roc_invoke(lib, "fakeHipMemsetAsync", 512);
            RoctracerLibrary.ft_roc_invoke(lib, "fakeHipDeviceSynchronize", 0);
            RoctracerLibrary.ft_roc_pop(lib, new org.bytedeco.javacpp.LongPointer(1));
            assertEquals(0, RoctracerLibrary.ft_roc_close_pool(lib));
            buffer = out[0];
        }
        return buffer;
    }

    @Override
    protected ActivityBufferDecoder decoder() {
        return new RoctracerBufferDecoder(KernelNames.NONE, new NameTable(), DeviceClockMapping.IDENTITY);
    }

    @Override
    protected byte[] realBuffer() {
        return fakeBuffer();
    }

    @Override
    protected int unknownKind() {
        return 0x4242; // the first field is the domain: far past ACTIVITY_DOMAIN_NUMBER
    }

    @Test
    void eachRecordOfTheBufferDecodesToItsKind() {
        byte[] real = realBuffer();
        assertEquals(12 * 64, real.length, "4 device records (one a barrier), 4 EXT_API + 4 HIP_API records");
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        Map<Long, String> names = Map.of();
        new RoctracerBufferDecoder(names::get, new NameTable(), DeviceClockMapping.IDENTITY)
                .decode(ByteBuffer.wrap(real).order(ByteOrder.LITTLE_ENDIAN), sink, stats);
        assertEquals(1, stats.published(EventKind.KERNEL));
        assertEquals(1, stats.published(EventKind.MEMCPY));
        assertEquals(1, stats.published(EventKind.MEMSET));
        assertEquals(4, stats.published(EventKind.RUNTIME));
        assertEquals(4, stats.bindings());
        assertEquals(Map.of(2002, 1L), stats.skippedByVendorKind(), "the barrier, skipped and counted");
        assertEquals(0, stats.invalidRecords());
    }
}
