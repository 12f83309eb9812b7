package org.flagos.trace.vendors.cupti;

import static org.flagos.trace.testing.FakeCuptiDetach.FINALIZES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.flagos.trace.testing.FakeCuptiDetach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The detach's rule without a GPU, against the fake CUPTI of the native detach's own test
 * ({@code fake_cupti_detach.c}): when arming is refused the detach stays attached, says why in the
 * shim's words, makes no CUDA call (a real runtime call would need a GPU) and never finalizes.
 */
class CuptiDetachTest {
    @RegisterExtension
    static final FakeCuptiDetach FAKE = new FakeCuptiDetach();

    @Test
    void theNativeDetachLoads() {
        assertNull(new CuptiDetach(FAKE.path()).load());
    }

    @Test
    void aRefusedSubscriptionKeepsCuptiAttachedAndSaysWhy() {
        FAKE.hook("cuptiFakeReset", 1); // cuptiSubscribe returns 39
        try {
            assertEquals("cuptiSubscribe failed (39): another CUPTI subscriber owns the process",
                    new CuptiDetach(FAKE.path()).detach(50));
            assertEquals(0, FAKE.hook("cuptiFakeCount", FINALIZES));
        } finally {
            FAKE.hook("cuptiFakeReset", 0);
        }
    }
}
