package org.flagos.trace.natives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.natives.RoctracerLibrary.Handle;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.junit.jupiter.api.Test;

/** The ROCtracer shim against the fake libroctracer, built from C by the test. */
class RoctracerLibraryTest {
    private static final int HIP_OPS = 2;
    private static final int HIP_API = 3;

    /** Copies each buffer and, for each dispatch record, the name its kernel_name reads during the callback. */
    static final class Collecting extends RoctracerLibrary.BufferSink {
        final List<ByteBuffer> buffers = new ArrayList<>();

        @Override
        public void call(long library, BytePointer records, long size) {
            ByteBuffer view = records.capacity(size).asByteBuffer();
            ByteBuffer copy = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
            copy.put(view).flip();
            buffers.add(copy);
        }
    }

    @Test
    void deliversRecordsWithKernelNamesThatOutliveTheCallback() {
        Handle lib = open();
        assertEquals(4001, RoctracerLibrary.ft_roc_version(lib), "the fake is a 4.1 (rocm-5.3+) library");
        Collecting sink = new Collecting();
        assertEquals(0, RoctracerLibrary.ft_roc_open_pool(lib, 4096, sink));
        assertEquals(0, RoctracerLibrary.ft_roc_enable(lib, HIP_OPS));
        assertEquals(0, RoctracerLibrary.ft_roc_enable(lib, HIP_API));
        assertEquals(0, RoctracerLibrary.ft_roc_push(lib, 0)); // 0 is a valid External id
        long first = RoctracerLibrary.ft_roc_invoke(lib, "fakeHipLaunchKernel", 1);
        assertEquals(0, RoctracerLibrary.ft_roc_flush(lib));
        long second = RoctracerLibrary.ft_roc_invoke(lib, "fakeHipLaunchKernel", 1);
        assertEquals(0, RoctracerLibrary.ft_roc_flush(lib));
        LongPointer last = new LongPointer(1);
        assertEquals(0, RoctracerLibrary.ft_roc_pop(lib, last));
        assertEquals(0, last.get());
        last.put(99);
        assertEquals(-7, RoctracerLibrary.ft_roc_pop(lib, last), "an empty stack is roctracer's MISMATCHED error");
        assertEquals(0, last.get(), "and the out-parameter reads 0");
        assertEquals(0, RoctracerLibrary.ft_roc_close_pool(lib));

        assertEquals(2, sink.buffers.size());
        long[] names = new long[2];
        for (int b = 0; b < 2; b++) {
            ByteBuffer buffer = sink.buffers.get(b);
            assertEquals(0, buffer.remaining() % 64, "whole 64-byte records only");
            assertEquals(3 * 64, buffer.remaining(), "dispatch, EXT_API binding, HIP_API call");
            assertEquals(HIP_OPS, buffer.getInt(0));
            assertEquals(b == 0 ? first : second, buffer.getLong(16), "dispatch correlation");
            assertEquals(5, buffer.getInt(64), "EXT_API directly before the API record");
            assertEquals(0, buffer.getLong(64 + 40), "External id 0");
            assertEquals(HIP_API, buffer.getInt(128));
            assertEquals(107, buffer.getInt(128 + 8), "hipLaunchKernel's hip_api_id_t");
            names[b] = buffer.getLong(56);
        }
        // The fake scribbled and freed each buffer after its callback; the shim's copy of the name stays.
        assertEquals(names[0], names[1], "one stable pointer per distinct name, whatever buffer held it");
        BytePointer name = RoctracerLibrary.ft_roc_kernel_name(lib, names[0]);
        assertNotNull(name);
        assertEquals("_ZN2at6native18elementwise_kernelILi128ELi4EEEviPf", name.getString(StandardCharsets.UTF_8));
        assertNull(RoctracerLibrary.ft_roc_kernel_name(lib, names[0] + 1), "only interned pointers are followed");
        assertEquals("hipLaunchKernel", RoctracerLibrary.ft_roc_op_string(lib, HIP_API, 107, 0).getString());
        assertEquals("unknown", RoctracerLibrary.ft_roc_op_string(lib, HIP_API, 9999, 0).getString());
        long now = RoctracerLibrary.ft_roc_timestamp(lib);
        long boot = RoctracerLibrary.ft_roc_boottime();
        assertTrue(Math.abs(boot - now) < 1_000_000_000L, "the fake's clock is CLOCK_BOOTTIME: " + now + " vs " + boot);
        assertNotEquals(0, RoctracerLibrary.ft_roc_buffers(lib));
    }

    @Test
    void aMissingLibraryOrEntryPointIsAnErrorString() {
        BytePointer error = new BytePointer(512);
        assertNull(RoctracerLibrary.ft_roc_open("/nonexistent/libroctracer64.so", error, 512));
        assertTrue(error.getString().contains("/nonexistent/libroctracer64.so"), error.getString());
        String smoke = FakeVendorLibrary.build("fake_smoke").toString();
        assertNull(RoctracerLibrary.ft_roc_open(smoke, error, 512));
        assertTrue(error.getString().contains("has no roctracer_open_pool_expl"), error.getString());
    }

    private static Handle open() {
        String path = FakeVendorLibrary.build("fake_roctracer").toString();
        BytePointer error = new BytePointer(512);
        Handle lib = RoctracerLibrary.ft_roc_open(path, error, 512);
        assertNotNull(lib, () -> error.getString(StandardCharsets.UTF_8));
        return lib;
    }
}
