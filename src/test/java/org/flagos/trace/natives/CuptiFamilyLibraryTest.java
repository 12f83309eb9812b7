package org.flagos.trace.natives;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.flagos.trace.natives.CuptiFamilyLibrary.Handle;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.junit.jupiter.api.Test;

/** The JNI shim against the smallest fake CUPTI-shaped library, built from C by the test. */
class CuptiFamilyLibraryTest {
    @Test
    void opensBindsByPrefixAndDeliversBuffersIntoJava() {
        String path = FakeVendorLibrary.build("fake_smoke").toString();
        BytePointer error = new BytePointer(512);
        Handle lib = CuptiFamilyLibrary.ft_family_open(path, "smoke", error, 512);
        assertNotNull(lib, () -> error.getString(StandardCharsets.UTF_8));
        assertEquals(1234567890123L, CuptiFamilyLibrary.ft_family_timestamp(lib));
        assertEquals(0, CuptiFamilyLibrary.ft_family_has(lib, "Subscribe"));
        List<long[]> buffers = new ArrayList<>();
        List<Long> libraries = new ArrayList<>();
        CuptiFamilyLibrary.BufferSink sink = new CuptiFamilyLibrary.BufferSink() {
            @Override
            public void call(long library, BytePointer buffer, long validSize) {
                libraries.add(library);
                ByteBuffer b = buffer.capacity(validSize).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                long[] words = new long[(int) (validSize / 8)];
                for (int i = 0; i < words.length; i++) {
                    words[i] = b.getLong(i * 8);
                }
                buffers.add(words);
            }
        };
        assertEquals(0, CuptiFamilyLibrary.ft_family_register(lib, 4096, sink));
        assertEquals(0, CuptiFamilyLibrary.ft_family_enable(lib, 3));
        assertEquals(0, CuptiFamilyLibrary.ft_family_push(lib, 0, 0)); // 0 is a valid External id
        assertEquals(0, CuptiFamilyLibrary.ft_family_push(lib, 0, 41));
        assertEquals(0, CuptiFamilyLibrary.ft_family_flush_all(lib, 1));
        assertEquals(1, buffers.size());
        assertEquals(List.of(lib.address()), libraries, "the buffer names the library that completed it");
        assertEquals(List.of(8L, 0L, 41L), List.of(buffers.get(0)[0], buffers.get(0)[1], buffers.get(0)[2]));
        LongPointer last = new LongPointer(1);
        assertEquals(0, CuptiFamilyLibrary.ft_family_pop(lib, 0, last));
        assertEquals(41, last.get());
        assertEquals(0, CuptiFamilyLibrary.ft_family_pop(lib, 0, last));
        assertEquals(0, last.get());
        assertEquals(0, CuptiFamilyLibrary.ft_family_buffers_in_flight(lib), "every buffer handed out came back");
        CuptiFamilyLibrary.ft_family_detach(lib);
    }

    @Test
    void aMissingLibraryOrEntryPointIsAnErrorString() {
        BytePointer error = new BytePointer(512);
        assertNull(CuptiFamilyLibrary.ft_family_open("/nonexistent/libmupti.so", "mupti", error, 512));
        assertTrue(error.getString().contains("/nonexistent/libmupti.so"), error.getString());
        String path = FakeVendorLibrary.build("fake_smoke").toString();
        assertNull(CuptiFamilyLibrary.ft_family_open(path, "mupti", error, 512));
        assertTrue(error.getString().contains("muptiActivityRegisterCallbacks"), error.getString());
    }
}
