package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.natives.CuptiFamilyLibrary;
import org.flagos.trace.natives.CuptiFamilyLibrary.Handle;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The detach's rule without a GPU, against the fake CUPTI of the native detach's own test
 * ({@code fake_cupti_detach.c}): when arming is refused the detach stays attached, says why in the
 * shim's words, makes no CUDA call (a real runtime call would need a GPU) and never finalizes.
 */
class CuptiDetachTest {
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

    @Test
    void theNativeDetachLoads() {
        assertNull(new CuptiDetach(path).load());
    }

    @Test
    void aRefusedSubscriptionKeepsCuptiAttachedAndSaysWhy() {
        CuptiFamilyLibrary.ft_family_invoke(fake, "cuptiFakeReset", 1); // cuptiSubscribe returns 39
        try {
            assertEquals("cuptiSubscribe failed (39): another CUPTI subscriber owns the process",
                    new CuptiDetach(path).detach(50));
            assertEquals(0, CuptiFamilyLibrary.ft_family_invoke(fake, "cuptiFakeCount", FINALIZES));
        } finally {
            CuptiFamilyLibrary.ft_family_invoke(fake, "cuptiFakeReset", 0);
        }
    }
}
