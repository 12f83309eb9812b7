package org.flagos.trace.vendors.cupti;

import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Loader;
import org.flagos.trace.natives.CuptiDetachLibrary;
import org.flagos.trace.vendors.activity.VendorLibrary;

/**
 * Detaches CUPTI ({@code cuptiFinalize}) the one way NVIDIA documents as safe for a process that
 * keeps running: from inside the exit callsite of a runtime API call. Called from an ordinary
 * thread, {@code cuptiFinalize} races with threads inside CUDA or CUPTI and crashed kineto in a
 * flush (pytorch/kineto#686). The callback is native ({@code native/cpp/flagtrace_cupti_detach.h}):
 * the first version took it through a Java upcall, and on the H200 a thread still inside CUPTI's
 * callback dispatch died while another finalized. A subscriber is enabled for the runtime domain
 * only for the moment of detaching; this thread then makes one runtime call of its own, so the exit
 * callback that finalizes comes at once even when no other thread calls CUDA, and whichever thread
 * reaches an exit callsite first finalizes, exactly once.
 */
final class CuptiDetach {
    private static final int ERROR_BYTES = 256;
    /** The CUPTI the tracer loaded: FLAGOS_TRACER_LIBRARY's file, else the system's by its soname. */
    private final String library;

    CuptiDetach(String library) {
        this.library = library;
    }

    /** Loads the detach's native library (nothing is armed); null when loaded, else why not. */
    String load() {
        try {
            Loader.load(CuptiDetachLibrary.class);
            return null;
        } catch (LinkageError | RuntimeException e) { // the stop's detach meets it again and reports it
            return e.toString();
        }
    }

    /**
     * Finalizes CUPTI; returns null when detached, else why it stayed attached. The caller has
     * already disarmed every kind, flushed, and drained its completion callbacks and its own CUPTI
     * calls (nothing it owns can be inside CUPTI now).
     */
    String detach(long timeoutMs) {
        try (BytePointer error = new BytePointer(ERROR_BYTES)) {
            int armed = CuptiDetachLibrary.ft_cupti_detach_arm(library, error, ERROR_BYTES);
            if (armed != 0) {
                return VendorLibrary.cString(error);
            }
        }
        try (IntPointer device = new IntPointer(1)) {
            cudart.cudaGetDevice(device); // its exit callsite finalizes, unless another thread's came first
        }
        int status = CuptiDetachLibrary.ft_cupti_detach_await(timeoutMs);
        if (status == -2) {
            return "no runtime API exit callback within " + timeoutMs + " ms";
        }
        return status == 0 ? null : "cuptiFinalize returned " + status;
    }
}
