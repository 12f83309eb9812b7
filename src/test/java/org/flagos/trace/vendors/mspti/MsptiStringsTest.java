package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.KernelNames;
import org.junit.jupiter.api.Test;

/** MSPTI's string pointers through the capture's strings: a null pointer is never looked up, a type once per pointer. */
class MsptiStringsTest {
    private final List<Long> asked = new ArrayList<>();
    private final Map<Long, String> table = Map.of(0x1000L, "aclnnFakeMatmul", 0x2000L, "fake_relu_kernel", 0x3000L, "AI_CORE");
    private final KernelNames source = handle -> {
        asked.add(handle);
        return table.get(handle);
    };

    @Test
    void namesComeFromTheSourceAndANullPointerIsNone() {
        MsptiStrings strings = new MsptiStrings(source);
        assertEquals("fake_relu_kernel", strings.kernelName(0x2000L));
        assertEquals("aclnnFakeMatmul", strings.apiName(0x1000L));
        assertNull(strings.kernelName(0x4000L), "unknown pointer");
        assertNull(strings.apiName(0));
        assertNull(strings.kernelName(0));
        assertEquals(List.of(0x2000L, 0x1000L, 0x4000L), asked, "a null pointer is never looked up");
    }

    @Test
    void eachKernelTypeIsReadOncePerPointer() {
        MsptiStrings strings = new MsptiStrings(source);
        strings.kernelType(0x3000L);
        strings.kernelType(0x3000L);
        strings.kernelType(0);
        strings.kernelType(0x5000L); // unknown: read once all the same
        strings.kernelType(0x5000L);
        strings.kernelType(0x3000L);
        assertEquals(List.of(0x3000L, 0x5000L), asked);
    }
}
