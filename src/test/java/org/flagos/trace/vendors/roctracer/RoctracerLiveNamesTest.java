package org.flagos.trace.vendors.roctracer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.natives.RoctracerLibrary;
import org.flagos.trace.natives.RoctracerLibrary.Handle;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.NameSavingTap;
import org.junit.jupiter.api.Test;

/**
 * Names resolved through the fake libroctracer: API names by (domain, op) through roctracer_op_string,
 * kernel names only at the shim's interned copies; each resolved name saved to the current tap.
 */
class RoctracerLiveNamesTest {
    private static final int HIP_OPS = 2;
    private static final int HIP_API = 3;

    private final NameSavingTap tap = new NameSavingTap();
    private final Map<Long, String> saved = tap.saved;

    private static Handle open() {
        BytePointer error = new BytePointer(512);
        Handle lib = RoctracerLibrary.ft_roc_open(FakeVendorLibrary.build("fake_roctracer").toString(), error, 512);
        assertNotNull(lib, () -> error.getString(StandardCharsets.UTF_8));
        return lib;
    }

    @Test
    void apiNamesByDomainAndOpAreSavedUnderTheirHandle() {
        RoctracerLiveNames names = new RoctracerLiveNames(open());
        assertEquals("hipMemcpyAsync", names.lookup(ApiNameHandle.of(HIP_API, 134)), "before a tap: resolved, saved nowhere");
        assertEquals(Map.of(), saved);
        names.tap(tap);
        assertEquals("hipLaunchKernel", names.lookup(ApiNameHandle.of(HIP_API, 107)));
        assertEquals("unknown", names.lookup(ApiNameHandle.of(HIP_API, 9999)), "HIP's own answer; the API names map it");
        assertEquals("hipMemcpyAsync", names.lookup(ApiNameHandle.of(HIP_API, 134)), "cached, and saved to this tap");
        assertNull(names.lookup(ApiNameHandle.of(7, 1)), "a domain the library names nothing in");
        assertEquals(Map.of(ApiNameHandle.of(HIP_API, 107), "hipLaunchKernel", ApiNameHandle.of(HIP_API, 9999), "unknown",
                ApiNameHandle.of(HIP_API, 134), "hipMemcpyAsync"), saved);
    }

    @Test
    void kernelNamesOnlyAtTheShimsInternedCopies() {
        Handle lib = open();
        List<ByteBuffer> buffers = new ArrayList<>();
        RoctracerLibrary.BufferSink sink = new RoctracerLibrary.BufferSink() {
            @Override
            public void call(long library, BytePointer records, long size) {
                ByteBuffer copy = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
                copy.put(records.capacity(size).asByteBuffer()).flip();
                buffers.add(copy);
            }
        };
        assertEquals(0, RoctracerLibrary.ft_roc_open_pool(lib, 4096, sink));
        assertEquals(0, RoctracerLibrary.ft_roc_enable(lib, HIP_OPS));
        assertEquals(0, RoctracerLibrary.ft_roc_enable(lib, HIP_API)); // the fake records a dispatch only inside a traced call
        RoctracerLibrary.ft_roc_invoke(lib, "fakeHipLaunchKernel", 1);
        assertEquals(0, RoctracerLibrary.ft_roc_flush(lib));
        assertEquals(0, RoctracerLibrary.ft_roc_disable(lib, HIP_API));
        assertEquals(0, RoctracerLibrary.ft_roc_disable(lib, HIP_OPS));
        assertEquals(0, RoctracerLibrary.ft_roc_close_pool(lib));
        assertEquals(HIP_OPS, buffers.get(0).getInt(0), "the dispatch record comes first");
        long handle = buffers.get(0).getLong(56); // its kernel_name
        RoctracerLiveNames names = new RoctracerLiveNames(lib);
        names.tap(tap);
        assertEquals("_ZN2at6native18elementwise_kernelILi128ELi4EEEviPf", names.lookup(handle));
        assertNull(names.lookup(handle + 1), "any other value is never followed");
        assertNull(names.lookup(0));
        assertEquals(Map.of(handle, "_ZN2at6native18elementwise_kernelILi128ELi4EEEviPf"), saved);
    }
}
