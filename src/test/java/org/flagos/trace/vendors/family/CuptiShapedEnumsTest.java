package org.flagos.trace.vendors.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * CUPTI's copy and memory kind numbers as CUDA 13.0's own headers define them (the enum values dumped
 * beside the H200 managed capture, {@code h200-managed.enums.json}) map to the enum of the same name;
 * a number outside the table is UNKNOWN.
 */
class CuptiShapedEnumsTest {
    private static JsonNode enums() throws Exception {
        return TraceJson.MAPPER.readTree(Captures.dir().resolve("h200-managed/h200-managed.enums.json").toFile());
    }

    @Test
    void everyCopyKindCudaDefinesMapsToItsName() throws Exception {
        int seen = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = enums().get("CUpti_ActivityMemcpyKind").fields(); it.hasNext(); seen++) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey().substring("CUPTI_ACTIVITY_MEMCPY_KIND_".length());
            assertEquals(CopyKind.valueOf(name), CuptiShapedEnums.copyKind(e.getValue().asInt()), e.getKey());
        }
        assertTrue(seen >= 6, "copy kinds in the dump: " + seen);
        // the array kinds CUDA 13.0 no longer lists, at their CUDA 12 numbers
        assertEquals(CopyKind.HTOA, CuptiShapedEnums.copyKind(3));
        assertEquals(CopyKind.DTOA, CuptiShapedEnums.copyKind(7));
    }

    @Test
    void everyMemoryKindCudaDefinesMapsToItsName() throws Exception {
        int seen = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = enums().get("CUpti_ActivityMemoryKind").fields(); it.hasNext(); seen++) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey().substring("CUPTI_ACTIVITY_MEMORY_KIND_".length());
            assertEquals(MemoryKind.valueOf(name), CuptiShapedEnums.memoryKind(e.getValue().asInt()), e.getKey());
        }
        assertEquals(MemoryKind.values().length, seen, "every memory kind flagtrace knows is CUDA's");
    }

    @Test
    void aNumberOutsideTheTableIsUnknown() {
        for (int n : new int[] {-1, 11, 0x7FFFFFFF, Integer.MIN_VALUE}) {
            assertEquals(CopyKind.UNKNOWN, CuptiShapedEnums.copyKind(n), "copy kind " + n);
        }
        for (int n : new int[] {-1, 8, 0x7FFFFFFF}) {
            assertEquals(MemoryKind.UNKNOWN, CuptiShapedEnums.memoryKind(n), "memory kind " + n);
        }
        assertEquals(CopyKind.PTOP, CuptiShapedEnums.copyKind(10), "the last copy kind");
        assertEquals(MemoryKind.MANAGED_STATIC, CuptiShapedEnums.memoryKind(7), "the last memory kind");
    }
}
