package org.flagos.trace.vendors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.flagos.trace.vendors.mcpti.McptiTracer;
import org.flagos.trace.vendors.mupti.MuptiTracer;
import org.flagos.trace.vendors.ppu.PpuTracer;
import org.flagos.trace.vendors.topspti.TopsptiTracer;
import org.junit.jupiter.api.Test;

/** The vendor list is consistent: one line per vendor, each saved id read back by its own line. */
class VendorPluginTest {
    @Test
    void everySavedVendorIdIsOneVendorsAndHasAReplayDecoder() {
        Set<Integer> ids = new HashSet<>();
        for (VendorPlugin plugin : Vendors.plugins()) {
            if (plugin.dumpVendor() == VendorPlugin.SAVED_AS_ANOTHER) {
                assertNull(plugin.replay(), plugin.name() + " is replayed by the vendor its buffers are saved as");
                continue;
            }
            assertTrue(ids.add(plugin.dumpVendor()), "vendor id " + plugin.dumpVendor() + " twice");
            assertNotNull(plugin.replay(), plugin.name());
            assertEquals(plugin.replay(), Vendors.decoderFor(plugin.dumpVendor()));
            assertEquals(plugin.dumpName(), Vendors.dumpVendorName(plugin.dumpVendor()));
        }
        assertNull(Vendors.decoderFor(VendorPlugin.SAVED_AS_ANOTHER));
        assertEquals("unknown vendor 99", Vendors.dumpVendorName(99));
    }

    @Test
    void eachLineBuildsTheTracerItNames() {
        for (VendorPlugin plugin : Vendors.plugins()) {
            assertEquals(plugin.name(), Vendors.tracerFor(plugin.accelerator()).name(), plugin.accelerator().name());
        }
    }

    @Test
    void aVendorHasItsOwnClockExactlyWhenItsTracerMapsOne() {
        assertEquals(!MuptiTracer.PROFILE.vendorClockIsEpoch(), plugin("mupti").ownClock());
        assertEquals(!TopsptiTracer.PROFILE.vendorClockIsEpoch(), plugin("topspti").ownClock());
        assertEquals(!McptiTracer.PROFILE.vendorClockIsEpoch(), plugin("mcpti").ownClock());
        assertEquals(!PpuTracer.PROFILE.vendorClockIsEpoch(), plugin("ppu").ownClock());
    }

    private static VendorPlugin plugin(String name) {
        return Vendors.plugins().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }
}
