package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.testing.NameSavingTap;
import org.junit.jupiter.api.Test;

/** A C string at a native address, read as UTF-8 up to its NUL and saved to the tap under its address. */
class LiveMsptiStringsTest {
    private final NameSavingTap tap = new NameSavingTap();
    private final Map<Long, String> saved = tap.saved;

    @Test
    void readsTheStringAtTheAddressAndSavesIt() {
        String name = "aclnnAdd_\u00e9\u4e2d_kernel"; // non-ASCII: MSPTI's strings are UTF-8
        try (BytePointer c = new BytePointer(name, StandardCharsets.UTF_8)) {
            LiveMsptiStrings strings = new LiveMsptiStrings(tap);
            assertEquals(name, strings.lookup(c.address()));
            assertEquals(Map.of(c.address(), name), saved);
        }
    }

    @Test
    void stopsAtTheFirstNul() {
        byte[] bytes = "rtMemcpy\0trailing".getBytes(StandardCharsets.US_ASCII);
        try (BytePointer c = new BytePointer(bytes.length + 1)) {
            c.put(bytes).put(bytes.length, (byte) 0);
            assertEquals("rtMemcpy", new LiveMsptiStrings(tap).lookup(c.address()));
        }
    }

    @Test
    void aNullPointerIsNoneAndNotSaved() {
        assertNull(new LiveMsptiStrings(tap).lookup(0));
        assertEquals(Map.of(), saved);
    }
}
