package org.flagos.trace.vendors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.flagos.trace.model.Accelerator;
import org.junit.jupiter.api.Test;

/**
 * Which tracer each accelerator builds, pinned one by one: a new accelerator must be given a tracer
 * deliberately (the seed's PPU silently got the unavailable tracer through a fall-through arm).
 */
class TracerSelectionTest {
    private static final Map<Accelerator, String> EXPECTED = Map.of(
            Accelerator.CUDA, "cupti",
            Accelerator.METAX, "mcpti",
            Accelerator.ASCEND, "mspti",
            Accelerator.MUSA, "mupti",
            Accelerator.DCU, "roctracer",
            Accelerator.GCU, "topspti",
            Accelerator.PPU, "ppu",
            Accelerator.NONE, "unavailable");

    @Test
    void everyAcceleratorIsPinned() {
        assertEquals(Accelerator.values().length, EXPECTED.size(), "a new accelerator needs a line here and in Vendors");
        for (Accelerator a : Accelerator.values()) {
            assertEquals(EXPECTED.get(a), Vendors.tracerFor(a).name(), a.name());
        }
    }
}
