package org.flagos.trace.vendors.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.model.BufferTap;
import org.junit.jupiter.api.Test;

/** A kernel name read at the address a record points to, up to its NUL, and saved to the tap under that address. */
class LiveKernelNamesTest {
    private final Map<Long, String> saved = new LinkedHashMap<>();
    private final BufferTap tap = new BufferTap() {
        @Override
        public void buffer(int dumpVendor, ByteBuffer validBytes) {
        }

        @Override
        public void kernelName(long handle, String vendorName) {
            saved.put(handle, vendorName);
        }
    };

    @Test
    void readsTheNameAtTheAddressAndSavesIt() {
        String mangled = "_ZN2at6native18elementwise_kernelILi128ELi4EEEviPf";
        try (BytePointer c = new BytePointer(mangled, StandardCharsets.UTF_8);
             BytePointer d = new BytePointer("triton_poi_fused_add_0", StandardCharsets.UTF_8)) {
            LiveKernelNames names = new LiveKernelNames(tap);
            assertEquals(mangled, names.lookup(c.address()));
            assertEquals("triton_poi_fused_add_0", names.lookup(d.address()));
            assertEquals(Map.of(c.address(), mangled, d.address(), "triton_poi_fused_add_0"), saved);
        }
    }

    @Test
    void stopsAtTheFirstNul() {
        byte[] bytes = "kernel_a\0kernel_b".getBytes(StandardCharsets.US_ASCII);
        try (BytePointer c = new BytePointer(bytes.length + 1)) {
            c.put(bytes).put(bytes.length, (byte) 0);
            assertEquals("kernel_a", new LiveKernelNames(tap).lookup(c.address()));
        }
    }

    @Test
    void aNullPointerIsNoneAndNotSaved() {
        assertNull(new LiveKernelNames(tap).lookup(0));
        assertEquals(Map.of(), saved);
    }
}
