package org.flagos.trace.vendors.roctracer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.flagos.trace.model.EventKind;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.vendors.activity.VendorLibrary;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * RoctracerTracer's library rules without a GPU: with nothing named it tries ROCm's four usual
 * names in order and, when none loads, is one sentence with each one's reason; a named file that is
 * missing or is not libroctracer (no {@code roctracer_*} entry point) is refused in the shim's words;
 * the fake libroctracer loads, and its API names come from the library; with no session the time is
 * the host's realtime clock.
 */
class RoctracerTracerTest {
    @Test
    void withNothingNamedRocmsUsualNamesAreTriedInOrder() {
        Assumptions.assumeTrue(System.getenv(VendorLibrary.LIBRARY_ENV) == null
                && System.getProperty(VendorLibrary.LIBRARY_PROPERTY) == null, "a library is named by the environment");
        RoctracerTracer tracer = new RoctracerTracer();
        Assumptions.assumeFalse(tracer.available(), "this machine has ROCm");
        String tried = "libroctracer64.so, libroctracer64.so.4, libroctracer64.so.1, /opt/rocm/lib/libroctracer64.so";
        assertEquals(tried, tracer.library());
        String why = tracer.unavailableReason();
        assertTrue(why.startsWith("ROCtracer library " + tried + " could not be loaded: libroctracer64.so: "), why);
        assertEquals(4, why.split("; ").length, "one reason per name: " + why);
        assertTrue(why.contains("; /opt/rocm/lib/libroctracer64.so: "), why);
    }

    @Test
    void aMissingFileIsRefusedInTheLinkersWords() {
        String path = "/nonexistent/flagtrace-test/libroctracer64.so";
        RoctracerTracer tracer = new RoctracerTracer(path, 1 << 16);
        assertFalse(tracer.available());
        assertEquals(path, tracer.library());
        assertTrue(tracer.unavailableReason().startsWith("ROCtracer library " + path + " could not be loaded: " + path + ": "),
                tracer.unavailableReason());
    }

    @Test
    void aLibraryThatIsNotRoctracerIsRefusedNamingWhatItLacks() {
        String other = FakeVendorLibrary.build("fake_mspti").toString();
        RoctracerTracer tracer = new RoctracerTracer(other, 1 << 16);
        assertFalse(tracer.available());
        assertTrue(tracer.unavailableReason().matches("ROCtracer library \\Q" + other + "\\E could not be loaded: \\Q" + other
                + "\\E has no roctracer_\\w+"), tracer.unavailableReason());
    }

    @Test
    void theFakeLoadsAndNamesItsCallsThroughTheLibrary() {
        String fake = FakeVendorLibrary.build("fake_roctracer").toString();
        RoctracerTracer tracer = new RoctracerTracer(fake, 1 << 16);
        assertTrue(tracer.available(), tracer.unavailableReason());
        assertEquals(fake, tracer.library());
        assertEquals("", tracer.unavailableReason());
        assertEquals("hipLaunchKernel", tracer.apiNames().name(EventKind.RUNTIME, 107), "roctracer_op_string's name");
        assertEquals("hipApi", tracer.apiNames().genericLabel(EventKind.RUNTIME));
    }

    @Test
    void withoutASessionTheTimeIsTheHostsRealtimeClock() {
        RoctracerTracer tracer = new RoctracerTracer(FakeVendorLibrary.build("fake_roctracer").toString(), 1 << 16);
        long before = System.currentTimeMillis() * 1_000_000L;
        long now = tracer.timestampNs();
        long after = System.currentTimeMillis() * 1_000_000L;
        assertTrue(now >= before - 1_000_000L && now <= after + 1_000_000L, before + " <= " + now + " <= " + after);
    }
}
