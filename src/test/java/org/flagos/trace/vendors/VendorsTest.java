package org.flagos.trace.vendors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.Accelerator;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.CollectingSink;
import org.flagos.trace.vendors.cupti.workload.ParityWorkload;
import org.junit.jupiter.api.Test;

/**
 * The one vendor table: every accelerator but NONE served by exactly one line, and NONE by the
 * unavailable tracer in its words; each saved vendor id finds its decoder (the CUDA and MCPTI ones
 * decode a bundled capture), a vendor saved as another's and an unknown id find none; the
 * workloads by name; the process entries only MSPTI derives.
 */
class VendorsTest {
    @Test
    void everyAcceleratorButNoneIsServedByExactlyOneVendor() {
        Set<Accelerator> served = EnumSet.noneOf(Accelerator.class);
        Set<String> names = new HashSet<>();
        for (VendorPlugin p : Vendors.plugins()) {
            assertFalse(!served.add(p.accelerator()), p.accelerator() + " served twice");
            assertFalse(!names.add(p.name()), p.name() + " named twice");
        }
        assertEquals(EnumSet.complementOf(EnumSet.of(Accelerator.NONE)), served);
    }

    @Test
    void noAcceleratorGetsTheUnavailableTracerInItsWords() {
        DeviceTracer none = Vendors.tracerFor(Accelerator.NONE);
        assertInstanceOf(UnavailableTracer.class, none);
        assertFalse(none.available());
        assertEquals("no accelerator selected (FLAGOS_ACCELERATOR unset and no CUDA bindings)", none.unavailableReason());
    }

    @Test
    void eachSavedVendorIdFindsItsDecoderAndName() {
        Map<Integer, String> expected = Map.of(1, "CUPTI (NVIDIA)", 2, "MSPTI (Ascend)", 3, "MUPTI (MUSA)",
                4, "ROCtracer (AMD/DCU)", 5, "TOPSPTI (Enflame GCU)", 6, "MCPTI (MetaX)");
        expected.forEach((id, name) -> {
            assertNotNull(Vendors.decoderFor(id), "vendor " + id);
            assertEquals(name, Vendors.dumpVendorName(id));
        });
        for (int id : new int[] {0, 7, 99, VendorPlugin.SAVED_AS_ANOTHER}) {
            assertNull(Vendors.decoderFor(id), "vendor " + id);
            assertEquals("unknown vendor " + id, Vendors.dumpVendorName(id));
        }
    }

    /** The capture's buffers, decoded by the table's decoder for their vendor id. */
    private static DecodeStats replay(Path capture, Path names, int vendor) {
        ActivityBufferDecoder decoder = Vendors.decoderFor(vendor).create(KernelNameFile.read(names), new NameTable(), List.of());
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(capture), capture.toString());
        while (frames.next()) {
            assertEquals(vendor, frames.vendor());
            decoder.decode(frames.payload(), sink, stats);
        }
        return stats;
    }

    @Test
    void theTablesDecodersReadTheBundledCaptures() {
        DecodeStats cuda = replay(Captures.capture("h200-app-tiny2k"), Captures.names("h200-app-tiny2k"), 1);
        assertEquals(0, cuda.undecodableBytes() + cuda.invalidRecords());
        assertEquals(true, cuda.published(EventKind.KERNEL) > 0);
        DecodeStats metax = replay(Captures.dir().resolve("fake/fake-mcpti.fltrbuf"),
                Captures.dir().resolve("fake/fake-mcpti.names.tsv"), 6);
        assertEquals(true, metax.published(EventKind.KERNEL) > 0, "MCPTI's id reads MCPTI's records: " + metax.problems());
        assertEquals(0, metax.invalidRecords(), metax.problems());
    }

    @Test
    void workloadsByName() {
        assertEquals(Set.of("exchange", "kinds", "parity"), Vendors.workloads());
        assertEquals(List.of("exchange", "kinds", "parity"), List.copyOf(Vendors.workloads()), "in name order");
        assertInstanceOf(ParityWorkload.class, Vendors.workload("parity"));
        assertNull(Vendors.workload("Parity"));
        assertNull(Vendors.workload("none"));
    }

    @Test
    void onlyMsptiDerivesNameEntriesFromTheProcessEnvironment() {
        Map<String, String> env = Map.of("ASCEND_RT_VISIBLE_DEVICES", "4,2");
        Map<Long, String> entries = Vendors.processNameEntries(2, env::get);
        assertEquals(Map.of(ApiNameHandle.of(0xA5CE, 4), "0", ApiNameHandle.of(0xA5CE, 2), "1"), entries);
        for (int vendor : new int[] {1, 3, 4, 5, 6}) {
            assertEquals(Map.of(), Vendors.processNameEntries(vendor, env::get), "vendor " + vendor);
        }
        assertEquals(Map.of(), Vendors.processNameEntries(2, name -> null), "unset: ids as recorded");
    }

    @Test
    void detectionFollowsTheEnvironmentElseTheCudaBindings() {
        Accelerator chosen = Accelerator.fromEnvironment();
        // the test class path has org.bytedeco:cuda, so without FLAGOS_ACCELERATOR the process is CUDA's
        assertEquals(chosen != null ? chosen : Accelerator.CUDA, Vendors.detect());
    }
}
