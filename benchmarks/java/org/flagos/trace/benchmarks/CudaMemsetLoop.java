package org.flagos.trace.benchmarks;

import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;

/**
 * A launch-bound CUDA loop for the live benchmarks: one device buffer of a few bytes and
 * {@code cudaMemsetAsync}s on it, each of which is one launch whose GPU work is negligible, so
 * that the time per launch is the host's (and any tracer's) cost, not the GPU's.
 *
 * <p>Nothing here touches flagtrace: the caller decides whether to initialize the profiler first
 * (it must, before {@link #open}, to be heard by CUPTI). Every failure, including a missing
 * libcudart or no device, is an {@link IllegalStateException} with the reason.
 */
final class CudaMemsetLoop implements AutoCloseable {
    /** Bytes each memset writes: one int. */
    static final long BYTES = 4;

    private final Pointer buffer;
    private boolean closed;

    private CudaMemsetLoop(Pointer buffer) {
        this.buffer = buffer;
    }

    /**
     * Loads cudart, selects {@code device} (creating its primary context) and allocates the buffer.
     * The first CUDA call of the process happens here.
     */
    static CudaMemsetLoop open(int device) {
        try {
            Loader.load(cudart.class);
        } catch (LinkageError e) { // UnsatisfiedLinkError, NoClassDefFoundError, ExceptionInInitializerError
            throw new IllegalStateException("cannot load libcudart through JavaCPP (no CUDA runtime on this machine?): "
                    + firstLine(String.valueOf(e.getMessage())), e);
        }
        int[] count = new int[1];
        int status = cudart.cudaGetDeviceCount(count);
        if (status != 0 || count[0] == 0) {
            throw new IllegalStateException("no CUDA device: cudaGetDeviceCount " + describe(status) + ", count " + count[0]);
        }
        check(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
        Pointer buffer = new Pointer();
        check(cudart.cudaMalloc(buffer, BYTES), "cudaMalloc(" + BYTES + ")");
        CudaMemsetLoop loop = new CudaMemsetLoop(buffer);
        loop.launch(16); // lazy module and stream setup, outside any measurement
        return loop;
    }

    /** Issues one 4-byte memset of {@code value} on the default stream, without waiting. */
    void launchOne(int value) {
        check(cudart.cudaMemsetAsync(buffer, value, BYTES), "cudaMemsetAsync");
    }

    /** Issues {@code n} 4-byte memsets on the default stream, then waits for them all. */
    void launch(int n) {
        Pointer b = buffer;
        int failed = 0;
        for (int i = 0; i < n; i++) {
            failed |= cudart.cudaMemsetAsync(b, i & 0xff, BYTES);
        }
        int synced = cudart.cudaDeviceSynchronize();
        if (failed != 0) {
            throw new IllegalStateException("cudaMemsetAsync failed (status bits " + failed + ")");
        }
        check(synced, "cudaDeviceSynchronize");
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            cudart.cudaDeviceSynchronize();
            cudart.cudaFree(buffer);
        }
    }

    static void check(int status, String call) {
        if (status != 0) {
            throw new IllegalStateException(call + " failed: " + describe(status));
        }
    }

    private static String describe(int status) {
        if (status == 0) {
            return "cudaSuccess";
        }
        BytePointer text = cudart.cudaGetErrorString(status);
        return (text == null || text.isNull() ? "error" : text.getString()) + " (" + status + ")";
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
