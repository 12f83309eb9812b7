package org.flagos.trace.natives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.natives.CuptiFamilyLibrary.Handle;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The native CUPTI detach against a fake CUPTI whose API calls come from many threads at once:
 * cuptiFinalize runs exactly once, from an exit callsite of the runtime domain, and a detach that
 * timed out is disarmed so that no later call finalizes behind a new session.
 */
class CuptiDetachLibraryTest {
    private static final int SUBSCRIBES = 0;
    private static final int UNSUBSCRIBES = 1;
    private static final int FINALIZES = 2;
    private static String path;
    private static Handle fake;

    @BeforeAll
    static void load() {
        path = FakeVendorLibrary.build("fake_cupti_detach").toString();
        BytePointer error = new BytePointer(512);
        fake = CuptiFamilyLibrary.ft_family_open(path, "cupti", error, 512); // keeps it loaded for RTLD_NOLOAD
        assertNotNull(fake, () -> error.getString(StandardCharsets.UTF_8));
    }

    @AfterAll
    static void unhook() {
        CuptiFamilyLibrary.ft_family_detach(fake);
    }

    @BeforeEach
    void reset() {
        hook("cuptiFakeReset", 0);
    }

    @Test
    void theFirstExitCallsiteAmongManyThreadsFinalizesOnce() {
        assertEquals(0, arm(), "armed");
        hook("cuptiFakeStorm", 8);
        assertEquals(0, CuptiDetachLibrary.ft_cupti_detach_await(5_000));
        assertEquals(1, hook("cuptiFakeCount", FINALIZES), "exactly one cuptiFinalize among 8 threads' 16,000 exits");
        assertEquals(1, hook("cuptiFakeCount", SUBSCRIBES));
    }

    @Test
    void enterCallsitesAndOtherDomainsDoNotFinalize() {
        assertEquals(0, arm());
        hook("cuptiFakeCallsite", 2 << 8);      // runtime, enter
        hook("cuptiFakeCallsite", 1 << 8 | 1);  // driver, exit
        assertEquals(0, hook("cuptiFakeCount", FINALIZES));
        hook("cuptiFakeCallsite", 2 << 8 | 1);  // runtime, exit
        assertEquals(0, CuptiDetachLibrary.ft_cupti_detach_await(5_000));
        assertEquals(1, hook("cuptiFakeCount", FINALIZES));
    }

    @Test
    void aDetachThatTimesOutIsDisarmedAndUnsubscribed() {
        assertEquals(0, arm());
        assertEquals(-2, CuptiDetachLibrary.ft_cupti_detach_await(20));
        assertEquals(1, hook("cuptiFakeCount", UNSUBSCRIBES));
        hook("cuptiFakeStorm", 4);
        assertEquals(0, hook("cuptiFakeCount", FINALIZES), "no later call finalizes");
    }

    @Test
    void aRefusedSubscriptionIsAReason() {
        hook("cuptiFakeReset", 1);
        BytePointer error = new BytePointer(256);
        assertEquals(39, CuptiDetachLibrary.ft_cupti_detach_arm(path, error, 256));
        assertTrue(error.getString(StandardCharsets.UTF_8).startsWith("cuptiSubscribe failed (39)"),
                error.getString(StandardCharsets.UTF_8));
        assertEquals(0, hook("cuptiFakeCount", FINALIZES));
    }

    private static int arm() {
        BytePointer error = new BytePointer(256);
        int status = CuptiDetachLibrary.ft_cupti_detach_arm(path, error, 256);
        assertEquals(0, status, () -> error.getString(StandardCharsets.UTF_8));
        return status;
    }

    private static long hook(String symbol, long argument) {
        return CuptiFamilyLibrary.ft_family_invoke(fake, symbol, argument);
    }
}
