package org.flagos.trace.vendors.cupti.workload;

import static org.flagos.trace.vendors.cupti.workload.Cuda.check;
import static org.flagos.trace.vendors.cupti.workload.Cuda.checkNvrtc;

import org.bytedeco.cuda.cudart.CUkern_st;
import org.bytedeco.cuda.cudart.CUlib_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nvrtc;
import org.bytedeco.cuda.nvrtc._nvrtcProgram;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.javacpp.SizeTPointer;

/**
 * A workload's own kernels, compiled at run time by NVRTC to a cubin for the device and loaded
 * with the runtime's library API, so they launch through {@code cudaLaunchKernel} like any CUDA C++
 * kernel. They are C++ (not extern "C") so CUPTI reports mangled names, as it does for torch's.
 */
final class NvrtcKernels {
    /** The parity workload's kernels. */
    static final String PARITY_SOURCE = String.join("\n",
            "__global__ void relu(float* x, int n) {",
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
            "  if (i < n) x[i] = x[i] > 0.f ? x[i] : 0.f;",
            "}",
            "__global__ void tiny(float* x) { x[0] += 1.f; }",
            "__global__ void bitonic(float* x, int j, int k) {",
            "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;",
            "  unsigned p = i ^ j;",
            "  if (p > i) {",
            "    bool up = (i & k) == 0;",
            "    float a = x[i], b = x[p];",
            "    if ((a > b) == up) { x[i] = b; x[p] = a; }",
            "  }",
            "}",
            "");

    /** {@code fill}: every element set to one value (the kinds and exchange workloads). */
    private static final String FILL = String.join("\n",
            "__global__ void fill(float* x, float v, int n) {",
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
            "  if (i < n) x[i] = v;",
            "}");
    /** {@code spin}: one block busy for a number of clock cycles (the kinds and exchange workloads). */
    private static final String SPIN = String.join("\n",
            "__global__ void spin(long long cycles, float* sink) {",
            "  long long t0 = clock64();",
            "  while (clock64() - t0 < cycles) {}",
            "  if (threadIdx.x == 0 && sink) sink[blockIdx.x] = (float) (t0 & 1);",
            "}");

    /** The kinds workload's kernels: those of benchmarks/device/kinds-capture/kinds_capture.cu. */
    static final String KINDS_SOURCE = String.join("\n",
            FILL,
            "__global__ void axpy(float* y, const float* x, float a, int n) {",
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
            "  if (i < n) y[i] += a * x[i];",
            "}",
            "__global__ void scale(float* x, float a, int n) {",
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
            "  if (i < n) x[i] *= a;",
            "}",
            SPIN,
            "");

    /**
     * The exchange workload's kernels: a step's computation ({@code fill}, {@code spin}) and the
     * exchange, {@code allreduce_sum_peer}: each rank adds the peer's buffer, read in place through
     * CUDA IPC, to its own, so both end with the sum over the two ranks (an all-reduce of world size 2).
     */
    static final String EXCHANGE_SOURCE = String.join("\n",
            FILL,
            SPIN,
            "__global__ void allreduce_sum_peer(float* out, const float* mine, const float* peer, int n) {",
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
            "  if (i < n) out[i] = mine[i] + peer[i];",
            "}",
            "");

    private final CUlib_st library = new CUlib_st();

    /** Compiles {@code source} for the device of compute capability {@code major.minor} and loads it. */
    NvrtcKernels(int computeMajor, int computeMinor, String source) {
        _nvrtcProgram program = new _nvrtcProgram();
        checkNvrtc(nvrtc.nvrtcCreateProgram(program, new BytePointer(source), new BytePointer("flagtrace_workload.cu"),
                0, (PointerPointer) null, (PointerPointer) null), "nvrtcCreateProgram");
        String arch = "--gpu-architecture=sm_" + computeMajor + computeMinor;
        int status = nvrtc.nvrtcCompileProgram(program, 1, new PointerPointer<BytePointer>(arch));
        if (status != nvrtc.NVRTC_SUCCESS) {
            SizeTPointer logSize = new SizeTPointer(1);
            nvrtc.nvrtcGetProgramLogSize(program, logSize);
            BytePointer log = new BytePointer(logSize.get(0));
            nvrtc.nvrtcGetProgramLog(program, log);
            throw new IllegalStateException("NVRTC could not compile the workload kernels: " + log.getString());
        }
        SizeTPointer size = new SizeTPointer(1);
        checkNvrtc(nvrtc.nvrtcGetCUBINSize(program, size), "nvrtcGetCUBINSize");
        BytePointer cubin = new BytePointer(size.get(0));
        checkNvrtc(nvrtc.nvrtcGetCUBIN(program, cubin), "nvrtcGetCUBIN");
        check(cudart.cudaLibraryLoadData(library, cubin, (IntPointer) null, (PointerPointer) null, 0,
                (IntPointer) null, (PointerPointer) null, 0), "cudaLibraryLoadData");
    }

    /** The kernel of that mangled name in the loaded library. */
    CUkern_st kernel(String mangledName) {
        CUkern_st kernel = new CUkern_st();
        check(cudart.cudaLibraryGetKernel(kernel, library, mangledName), "cudaLibraryGetKernel(" + mangledName + ")");
        return kernel;
    }
}
