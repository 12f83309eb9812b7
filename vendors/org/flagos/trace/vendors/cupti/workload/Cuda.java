package org.flagos.trace.vendors.cupti.workload;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.cudart.dim3;
import org.bytedeco.cuda.global.cublas;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nvrtc;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;

/** Status checks and kernel launches for the built-in workloads: a failure is one clear exception. */
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

    /**
     * Launches through {@code cudaLaunchKernel}: each argument is a device pointer, an int, a long
     * or a float, boxed into the holder the kernel's parameter needs.
     */
    static void launch(Pointer kernel, int grid, int block, CUstream_st stream, Object... args) {
        PointerPointer<Pointer> argv = new PointerPointer<>(args.length);
        List<Pointer> keep = new ArrayList<>(args.length); // holders must outlive the launch call
        for (int i = 0; i < args.length; i++) {
            Pointer holder;
            if (args[i] instanceof Pointer) {
                holder = new PointerPointer<Pointer>(1).put(0, (Pointer) args[i]);
            } else if (args[i] instanceof Integer) {
                holder = new IntPointer(1).put((Integer) args[i]);
            } else if (args[i] instanceof Long) {
                holder = new LongPointer(1).put((Long) args[i]);
            } else if (args[i] instanceof Float) {
                holder = new FloatPointer(1).put((Float) args[i]);
            } else {
                throw new IllegalArgumentException("kernel argument " + i + " is a " + args[i].getClass().getSimpleName());
            }
            keep.add(holder);
            argv.put(i, holder);
        }
        check(cudart.cudaLaunchKernel(kernel, new dim3(grid, 1, 1), new dim3(block, 1, 1), argv, 0, stream),
                "cudaLaunchKernel");
        keep.clear();
    }

    private Cuda() {
    }
}
