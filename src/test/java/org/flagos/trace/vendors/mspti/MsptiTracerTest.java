package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.natives.MsptiLibrary;
import org.flagos.trace.natives.MsptiLibrary.Handle;
import org.flagos.trace.model.Accelerator;
import org.flagos.trace.vendors.Vendors;
import org.junit.jupiter.api.Test;

/** The tracer's pieces that need no session: link-map parsing, device ordinals, loading, pop semantics. */
class MsptiTracerTest {
    private static final String MAPS = String.join("\n",
            "55d0c0a00000-55d0c0a01000 r--p 00000000 fd:01 1234 /usr/bin/java",
            "7f1e2c000000-7f1e2c021000 rw-p 00000000 00:00 0 ",
            "7f1e2d000000-7f1e2d100000 r-xp 00000000 fd:01 99 /usr/local/Ascend/cann/lib64/libmspti.so",
            "7ffd1a000000-7ffd1a021000 rw-p 00000000 00:00 0 [stack]");

    @Test
    void theLinkMapParserFindsLibmsptiByFileName() {
        assertTrue(MsptiTracer.mapsHoldMspti(MAPS));
        assertTrue(MsptiTracer.mapsHoldMspti("7f0-7f1 r-xp 0 fd:01 9 /opt/x/libmspti.so.1 (deleted)"));
        assertFalse(MsptiTracer.mapsHoldMspti(MAPS.replace("libmspti.so", "libascendcl.so")));
        assertFalse(MsptiTracer.mapsHoldMspti("7f0-7f1 r-xp 0 fd:01 9 /tmp/target/fake-vendors/libfake_mspti.so"));
        assertFalse(MsptiTracer.mapsHoldMspti("7f0-7f1 r-xp 0 fd:01 9 /opt/libmspti.so.bak/other.so"));
        assertFalse(MsptiTracer.libraryPreloaded(), "nothing preloads libmspti.so into the test JVM");
    }

    @Test
    void libmsptiIsLookedForByTheLoaderThenWhereCannInstallsIt() {
        assertEquals(java.util.List.of("libmspti.so"), MsptiTracer.defaultLibraries(null));
        assertEquals(java.util.List.of("libmspti.so"), MsptiTracer.defaultLibraries(" "));
        java.util.List<String> underHome = java.util.List.of("libmspti.so",
                "/usr/local/Ascend/ascend-toolkit/latest/tools/mspti/lib64/libmspti.so",
                "/usr/local/Ascend/ascend-toolkit/latest/lib64/libmspti.so");
        assertEquals(underHome, MsptiTracer.defaultLibraries("/usr/local/Ascend/ascend-toolkit/latest"));
        assertEquals(underHome, MsptiTracer.defaultLibraries("/usr/local/Ascend/ascend-toolkit/latest/"));
    }

    @Test
    void visibleDevicesMapPhysicalIdsToLogicalOrdinals() {
        AscendDevices devices = AscendDevices.parse("4, 2,6");
        assertEquals(0, devices.logical(4));
        assertEquals(1, devices.logical(2));
        assertEquals(2, devices.logical(6));
        assertEquals(3, devices.logical(3), "an id the list does not name stays as recorded");
        assertEquals(5, AscendDevices.parse(null).logical(5));
        assertEquals(5, AscendDevices.parse("a,b").logical(5), "malformed: identity");
        java.util.Map<Long, String> saved = new java.util.HashMap<>();
        devices.save(new org.flagos.trace.model.BufferTap() {
            @Override
            public void buffer(int dumpVendor, java.nio.ByteBuffer validBytes) {
            }

            @Override
            public void kernelName(long handle, String vendorName) {
                saved.put(handle, vendorName);
            }
        });
        AscendDevices replayed = AscendDevices.saved(saved::get);
        for (int physical = 0; physical < 8; physical++) {
            assertEquals(devices.logical(physical), replayed.logical(physical), "saved in the name table, read back");
        }
    }

    @Test
    void aMissingLibraryIsAnErrorStringAndAscendGetsThisTracer() {
        MsptiTracer tracer = new MsptiTracer("/nonexistent/libmspti.so", null);
        assertFalse(tracer.available());
        assertTrue(tracer.unavailableReason().contains("/nonexistent/libmspti.so"), tracer.unavailableReason());
        assertTrue(Vendors.tracerFor(Accelerator.ASCEND) instanceof MsptiTracer);
        assertTrue(Vendors.decoderFor(MsptiTracer.DUMP_VENDOR) != null);
    }

    @Test
    void theFakeRefusesANullPopWithoutUnwindingAsCann90Does() {
        Handle lib = FakeMsptiBuffers.open();
        assertEquals(0, MsptiLibrary.ftm_push(lib, 2, 7));
        assertEquals(1, MsptiLibrary.ftm_invoke(lib, "fakePopWithNull", 2), "MSPTI_ERROR_INVALID_PARAMETER");
        LongPointer last = new LongPointer(1);
        assertEquals(0, MsptiLibrary.ftm_pop(lib, 2, last), "the stack was not unwound by the null pop");
        assertEquals(7, last.get());
        assertEquals(5, MsptiLibrary.ftm_pop(lib, 2, last), "MSPTI_ERROR_QUEUE_EMPTY");
    }
}
