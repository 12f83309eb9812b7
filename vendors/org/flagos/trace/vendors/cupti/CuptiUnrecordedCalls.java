package org.flagos.trace.vendors.cupti;

import org.bytedeco.cuda.global.cupti;

/**
 * The runtime calls whose records CUPTI is told not to write: the six torch's profiler leaves out of
 * its trace (cudaSetDevice, cudaGetDevice, cudaGetLastError, cudaEventCreate,
 * cudaEventCreateWithFlags, cudaEventDestroy). They launch no device work, and torch makes them
 * around every op: its trace of 20 training steps under {@code flagtrace run} held 5,779
 * cudaGetDevice and 873 cudaGetLastError records beside 569 cudaLaunchKernel, and each record
 * costs the calling thread (docs/vendors/cupti.md has the figures). Switched off at the source, so
 * they cost nothing, rather than dropped on the way.
 *
 * <p>The injected library of {@code flagtrace run} switches off the same list
 * ({@code native/inject/flagtrace_inject.c}, {@code RUNTIME_CALLS_OFF}); a test holds the two equal.
 */
public final class CuptiUnrecordedCalls {
    /** CUPTI 13.0's runtime callback ids of the six calls, in the order named above. */
    static final int[] RUNTIME_CBIDS = {16, 17, 10, 133, 134, 136};

    private CuptiUnrecordedCalls() {
    }

    /**
     * Switches the six calls' records off; called after each enable of the RUNTIME kind. A CUPTI that
     * refuses (before 12.x) records them as before: the count of refusals is returned, not thrown.
     */
    static int switchOff() {
        int refused = 0;
        for (int cbid : RUNTIME_CBIDS) {
            refused += cupti.cuptiActivityEnableRuntimeApi(cbid, (byte) 0) == 0 ? 0 : 1;
        }
        return refused;
    }
}
