package org.flagos.trace.natives;

import static org.flagos.trace.testing.FakeCuptiDetach.FINALIZES;
import static org.flagos.trace.testing.FakeCuptiDetach.SUBSCRIBES;
import static org.flagos.trace.testing.FakeCuptiDetach.UNSUBSCRIBES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.testing.FakeCuptiDetach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The native CUPTI detach against a fake CUPTI whose API calls come from many threads at once:
 * cuptiFinalize runs exactly once, from an exit callsite of the runtime domain, and a detach that
 * timed out is disarmed so that no later call finalizes behind a new session.
 */
class CuptiDetachLibraryTest {
    @RegisterExtension
    static final FakeCuptiDetach FAKE = new FakeCuptiDetach();

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
        assertEquals(39, CuptiDetachLibrary.ft_cupti_detach_arm(FAKE.path(), error, 256));
        assertTrue(error.getString(StandardCharsets.UTF_8).startsWith("cuptiSubscribe failed (39)"),
                error.getString(StandardCharsets.UTF_8));
        assertEquals(0, hook("cuptiFakeCount", FINALIZES));
    }

    private static int arm() {
        BytePointer error = new BytePointer(256);
        int status = CuptiDetachLibrary.ft_cupti_detach_arm(FAKE.path(), error, 256);
        assertEquals(0, status, () -> error.getString(StandardCharsets.UTF_8));
        return status;
    }

    private static long hook(String symbol, long argument) {
        return FAKE.hook(symbol, argument);
    }
}
