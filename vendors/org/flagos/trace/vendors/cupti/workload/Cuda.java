package org.flagos.trace.vendors.cupti.workload;

import org.bytedeco.cuda.global.cublas;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nvrtc;

/** Status checks for the CUDA libraries the workload calls: a failure is one clear exception. */
final class Cuda {
    static void check(int status, String call) {
        if (status != 0) {
            throw new IllegalStateException(call + " failed: " + cudart.cudaGetErrorString(status).getString() + " (" + status + ")");
        }
    }

    static void checkBlas(int status, String call) {
        if (status != cublas.CUBLAS_STATUS_SUCCESS) {
            throw new IllegalStateException(call + " failed: cuBLAS status " + status);
        }
    }

    static void checkNvrtc(int status, String call) {
        if (status != nvrtc.NVRTC_SUCCESS) {
            throw new IllegalStateException(call + " failed: " + nvrtc.nvrtcGetErrorString(status).getString());
        }
    }

    private Cuda() {
    }
}
