package org.flagos.trace.vendors.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.NameSavingTap;
import org.flagos.trace.vendors.mupti.MuptiTracer;
import org.junit.jupiter.api.Test;

/**
 * A CUPTI-shaped tracer's API names, over the fake MUPTI library: each name is asked of the vendor's
 * callback-name call and saved into the running session's capture name table under its handle; an
 * id the vendor does not name stays unnamed and saves nothing; every session gets a fresh cache, so
 * its capture gets the names its calls use; a tracer without its library names nothing.
 */
class CuptiShapedTracerTest {
    /** fake_cupti_older.h's launch, copy and set callback ids; MUPTI's runtime domain is 2. */
    private static final int LAUNCH = 211;
    private static final int MEMCPY = 41;
    private static final int RUNTIME_DOMAIN = 2;

    private static MuptiTracer fake() {
        MuptiTracer tracer = new MuptiTracer(FakeVendorLibrary.build("fake_mupti").toString());
        assertTrue(tracer.available(), tracer.unavailableReason());
        return tracer;
    }

    @Test
    void aNameIsAskedOfTheVendorAndSavedIntoTheSessionsCapture() {
        MuptiTracer tracer = fake();
        NameSavingTap session = new NameSavingTap();
        tracer.decoder(new NameTable(), session);
        ApiNames names = tracer.apiNames();
        assertEquals("musaLaunchKernel", names.name(EventKind.RUNTIME, LAUNCH));
        assertEquals(Map.of(ApiNameHandle.of(RUNTIME_DOMAIN, LAUNCH), "musaLaunchKernel"), session.saved);
        assertNull(names.name(EventKind.RUNTIME, 9999), "an id the vendor does not name");
        assertEquals(1, session.saved.size(), "nothing saved for it");
    }

    @Test
    void eachSessionGetsAFreshCacheSoItsCaptureHasItsNames() {
        MuptiTracer tracer = fake();
        NameSavingTap first = new NameSavingTap();
        tracer.decoder(new NameTable(), first);
        ApiNames firstNames = tracer.apiNames();
        assertEquals("musaMemcpyAsync", firstNames.name(EventKind.RUNTIME, MEMCPY));
        NameSavingTap second = new NameSavingTap();
        tracer.decoder(new NameTable(), second);
        ApiNames secondNames = tracer.apiNames();
        assertNotSame(firstNames, secondNames);
        assertEquals("musaMemcpyAsync", secondNames.name(EventKind.RUNTIME, MEMCPY));
        assertEquals(Map.of(ApiNameHandle.of(RUNTIME_DOMAIN, MEMCPY), "musaMemcpyAsync"), second.saved,
                "the second capture has the name though the first session resolved it");
    }

    @Test
    void withoutItsLibraryATracerNamesNothing() {
        MuptiTracer tracer = new MuptiTracer("/nonexistent/flagtrace-test/libmupti.so");
        assertFalse(tracer.available());
        NameSavingTap session = new NameSavingTap();
        tracer.decoder(new NameTable(), session);
        assertNull(tracer.apiNames().name(EventKind.RUNTIME, LAUNCH));
        assertEquals(Map.of(), session.saved);
    }
}
