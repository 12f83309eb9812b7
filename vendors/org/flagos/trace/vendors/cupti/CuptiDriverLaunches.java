package org.flagos.trace.vendors.cupti;

import org.bytedeco.cuda.global.cupti;

/**
 * The driver calls a session records: the launches only (cuLaunch, cuLaunchGrid, cuLaunchGridAsync,
 * cuLaunchKernel and _ptsz, cuLaunchCooperativeKernel and _ptsz, cuGraphLaunch and _ptsz, cuLaunchKernelEx and
 * _ptsz). Libraries that launch through the driver (cuBLASLt's cutlass kernels, Triton) then get the call record,
 * External id and flow arrow a cudaLaunchKernel gets, as torch's trace shows them ({@code cuda_driver}); every
 * other driver call, of which cuBLAS and cudart make many, costs no record.
 *
 * <p>Armed kineto's way: the DRIVER kind on, then every other id switched off. Switching the launch ids on alone
 * records nothing when first done after the CUDA context exists (measured on an H100:
 * {@code benchmarks/device/driver-arm}), which is every session a program opens after its first CUDA call.
 * The injected library of {@code flagtrace run} arms the same list ({@code native/inject/flagtrace_inject.c},
 * {@code DRIVER_LAUNCHES}); a test holds the two equal.
 */
public final class CuptiDriverLaunches {
    /** CUPTI 13.0's driver callback ids of the launches, in the order named above. */
    static final int[] LAUNCH_CBIDS = {115, 116, 117, 307, 442, 477, 478, 514, 515, 652, 653};
    /** Ids switched off below this (CUDA 13.0 has 806); an id a CUPTI does not know it refuses, harmlessly. */
    static final int CBID_LIMIT = 1024;
    /** cuInit, an id every CUPTI knows: the probe of the per-call switch. */
    private static final int CBID_CU_INIT = 1;

    private CuptiDriverLaunches() {
    }

    static boolean isLaunch(int cbid) {
        for (int launch : LAUNCH_CBIDS) {
            if (launch == cbid) {
                return true;
            }
        }
        return false;
    }

    /**
     * Enables the DRIVER kind with the launches only; the status of enabling the kind (0: armed). A CUPTI without
     * per-call switches (before 12.x) is not armed at all: the kind alone would record every driver call.
     */
    static int arm() {
        if (cupti.cuptiActivityEnableDriverApi(CBID_CU_INIT, (byte) 0) != 0) { // the per-call switch, refused by an old CUPTI
            return -1;
        }
        int status = cupti.cuptiActivityEnable(CuptiActivityKind.DRIVER);
        if (status != 0) {
            return status;
        }
        for (int cbid = 1; cbid < CBID_LIMIT; cbid++) {
            cupti.cuptiActivityEnableDriverApi(cbid, (byte) (isLaunch(cbid) ? 1 : 0));
        }
        return 0;
    }
}
