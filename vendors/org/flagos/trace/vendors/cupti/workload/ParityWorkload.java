package org.flagos.trace.vendors.cupti.workload;

import static org.flagos.trace.vendors.cupti.workload.Cuda.check;
import static org.flagos.trace.vendors.cupti.workload.Cuda.checkBlas;
import static org.flagos.trace.vendors.cupti.workload.Cuda.launch;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bytedeco.cuda.cublas.cublasContext;
import org.bytedeco.cuda.cudart.CUkern_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.cudart.cudaDeviceProp;
import org.bytedeco.cuda.global.cublas;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;
import org.flagos.trace.model.HostOpMarker;
import org.flagos.trace.model.Workload;

/**
 * The parity workload, the shape of the torch baseline's and the shared captures': allocations,
 * host-to-device copies, five cuBLAS SGEMM 256x256 + ReLU iterations inside nested ops, a bitonic
 * sort, a 4 MiB pageable copy, a 4 MiB memset, a device-to-host copy, 100 one-thread launches, and
 * two worker threads on their own streams running nested ops.
 */
public final class ParityWorkload implements Workload {
    private static final int N = 256;
    private static final int SORT = 1 << 14;
    private static final long MIB4 = 4L << 20;

    @Override
    public String name() {
        return "parity";
    }

    @Override
    public String description() {
        return "cuBLAS SGEMM + NVRTC ReLU loop, a sort, copies, a memset, tiny launches, two worker threads";
    }

    @Override
    public void run(HostOpMarker session) throws Exception {
        Loader.load(cublas.class);
        check(cudart.cudaSetDevice(0), "cudaSetDevice");
        cudaDeviceProp props = new cudaDeviceProp();
        check(cudart.cudaGetDeviceProperties(props, 0), "cudaGetDeviceProperties");
        NvrtcKernels library = new NvrtcKernels(props.major(), props.minor(), NvrtcKernels.PARITY_SOURCE);
        Kernels kernels = new Kernels(library.kernel("_Z4reluPfi"), library.kernel("_Z4tinyPf"),
                library.kernel("_Z7bitonicPfii"));
        long matrixBytes = (long) N * N * Float.BYTES;

        FloatPointer a = new FloatPointer((Pointer) null);
        FloatPointer b = new FloatPointer((Pointer) null);
        FloatPointer c = new FloatPointer((Pointer) null);
        FloatPointer sorted = new FloatPointer((Pointer) null);
        FloatPointer big = new FloatPointer((Pointer) null);
        try (HostOpMarker.Scope op = session.op("app::alloc")) {
            check(cudart.cudaMalloc(a, matrixBytes), "cudaMalloc");
            check(cudart.cudaMalloc(b, matrixBytes), "cudaMalloc");
            check(cudart.cudaMalloc(c, matrixBytes), "cudaMalloc");
            check(cudart.cudaMalloc(sorted, (long) SORT * Float.BYTES), "cudaMalloc");
            check(cudart.cudaMalloc(big, MIB4), "cudaMalloc");
        }
        FloatPointer hostA = random(N * N, 1);
        FloatPointer hostB = random(N * N, 2);
        try (HostOpMarker.Scope op = session.op("app::copy_h2d")) {
            check(cudart.cudaMemcpy(a, hostA, matrixBytes, cudart.cudaMemcpyHostToDevice), "cudaMemcpy");
            check(cudart.cudaMemcpy(b, hostB, matrixBytes, cudart.cudaMemcpyHostToDevice), "cudaMemcpy");
        }
        cublasContext blas = new cublasContext();
        checkBlas(cublas.cublasCreate_v2(blas), "cublasCreate");
        FloatPointer one = new FloatPointer(1f);
        FloatPointer zero = new FloatPointer(0f);
        for (int i = 0; i < 5; i++) {
            try (HostOpMarker.Scope step = session.op("app::matmul_relu")) {
                try (HostOpMarker.Scope mm = session.op("app::mm")) {
                    checkBlas(cublas.cublasSgemm_v2(blas, cublas.CUBLAS_OP_N, cublas.CUBLAS_OP_N, N, N, N,
                            one, a, N, b, N, zero, c, N), "cublasSgemm");
                }
                try (HostOpMarker.Scope relu = session.op("app::relu")) {
                    launch(kernels.relu(), (N * N + 255) / 256, 256, null, c, N * N);
                }
            }
        }
        try (HostOpMarker.Scope op = session.op("app::sort")) {
            check(cudart.cudaMemcpy(sorted, c, (long) SORT * Float.BYTES, 3 /* cudaMemcpyDeviceToDevice */), "cudaMemcpy");
            for (int k = 2; k <= SORT; k <<= 1) {
                for (int j = k >> 1; j > 0; j >>= 1) {
                    launch(kernels.bitonic(), SORT / 256, 256, null, sorted, j, k);
                }
            }
        }
        FloatPointer hostBig = new FloatPointer(MIB4 / Float.BYTES);
        try (HostOpMarker.Scope op = session.op("app::copy_h2d_4MiB")) {
            check(cudart.cudaMemcpy(big, hostBig, MIB4, cudart.cudaMemcpyHostToDevice), "cudaMemcpy");
        }
        try (HostOpMarker.Scope op = session.op("app::zeros")) {
            check(cudart.cudaMemsetAsync(big, 0, MIB4, null), "cudaMemsetAsync");
        }
        FloatPointer hostC = new FloatPointer((long) N * N);
        try (HostOpMarker.Scope op = session.op("app::copy_d2h")) {
            check(cudart.cudaMemcpy(hostC, c, matrixBytes, cudart.cudaMemcpyDeviceToHost), "cudaMemcpy");
        }
        for (int i = 0; i < 100; i++) {
            try (HostOpMarker.Scope op = session.op("app::tiny")) {
                launch(kernels.tiny(), 1, 1, null, big);
            }
        }
        runWorkers(session, kernels, 2, 20);
        check(cudart.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        check(verifySorted(sorted), "sort verification");
        for (Pointer p : new Pointer[] {a, b, c, sorted, big}) {
            check(cudart.cudaFree(p), "cudaFree");
        }
        cublas.cublasDestroy_v2(blas);
    }

    /** The parity workload's kernels, looked up in the order the workload always looked them up. */
    private record Kernels(CUkern_st relu, CUkern_st tiny, CUkern_st bitonic) {
    }

    /** Two threads, each on its own stream, each running nested ops. */
    private static void runWorkers(HostOpMarker session, Kernels kernels, int threads, int steps) throws InterruptedException {
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    check(cudart.cudaSetDevice(0), "cudaSetDevice");
                    CUstream_st stream = new CUstream_st();
                    check(cudart.cudaStreamCreate(stream), "cudaStreamCreate");
                    FloatPointer buffer = new FloatPointer((Pointer) null);
                    check(cudart.cudaMalloc(buffer, 1 << 16), "cudaMalloc");
                    for (int i = 0; i < steps; i++) {
                        try (HostOpMarker.Scope step = session.op("app::worker_step")) {
                            try (HostOpMarker.Scope relu = session.op("app::worker_relu")) {
                                launch(kernels.relu(), 64, 256, stream, buffer, 1 << 14);
                            }
                            try (HostOpMarker.Scope zero = session.op("app::worker_memset")) {
                                check(cudart.cudaMemsetAsync(buffer, 0, 1 << 16, stream), "cudaMemsetAsync");
                            }
                        }
                    }
                    check(cudart.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
                    check(cudart.cudaFree(buffer), "cudaFree");
                    check(cudart.cudaStreamDestroy(stream), "cudaStreamDestroy");
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "flagtrace-worker-" + t);
            workers.add(worker);
            worker.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("worker failed: " + failures.get(0), failures.get(0));
        }
    }

    private static FloatPointer random(int n, long seed) {
        Random random = new Random(seed);
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = (float) random.nextGaussian();
        }
        return new FloatPointer(values);
    }

    /** 0 when the first SORT floats of {@code d} are ascending. */
    private static int verifySorted(FloatPointer d) {
        FloatPointer host = new FloatPointer(SORT);
        check(cudart.cudaMemcpy(host, d, (long) SORT * Float.BYTES, cudart.cudaMemcpyDeviceToHost), "cudaMemcpy");
        for (int i = 1; i < SORT; i++) {
            if (host.get(i - 1) > host.get(i)) {
                return 999; // reported through check() as a failed verification
            }
        }
        return 0;
    }
}
