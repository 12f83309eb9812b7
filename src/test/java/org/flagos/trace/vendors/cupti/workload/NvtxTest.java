package org.flagos.trace.vendors.cupti.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The NVTX bridge of the kinds workload without its JNI library: unavailable, saying which property
 * names the library and how to build it (the calls themselves need CUDA and the library).
 */
class NvtxTest {
    @Test
    void withoutThePropertyTheReasonSaysHowToGetTheLibrary() {
        Assumptions.assumeTrue(System.getProperty(Nvtx.LIBRARY_PROPERTY) == null, "the NVTX library is named");
        assertEquals("flagtrace.workload.nvtxLibrary", Nvtx.LIBRARY_PROPERTY);
        assertEquals("-Dflagtrace.workload.nvtxLibrary is not set (build it with benchmarks/device/java-nvtx/build.sh)",
                Nvtx.unavailableReason());
    }
}
