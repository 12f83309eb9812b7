// An unchanged CUDA program for benchmarks/run-device-inject.sh: it knows nothing of flagtrace. A copy
// in, STEPS NVTX ranges "step" each holding a range "compute" (two launches of scale and a memset) and
// a launch of relu outside "compute", a copy out, a synchronize; it prints its own counts.
//     inject_probe STEPS EXIT_CODE
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

__global__ void scale(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 1.0001f;
}

__global__ void relu(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] < 0) x[i] = 0;
}

int main(int argc, char** argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 100;
    int code = argc > 2 ? atoi(argv[2]) : 0;
    const int n = 1 << 16;
    float* host = (float*) calloc(n, sizeof(float));
    float* device;
    if (cudaMalloc(&device, n * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        return 99;
    }
    cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice);
    long kernels = 0, memsets = 0, ranges = 0;
    for (int s = 0; s < steps; s++) {
        nvtxRangePushA("step");
        nvtxRangePushA("compute");
        scale<<<n / 256, 256>>>(device, n);
        cudaMemsetAsync(device, 0, n * sizeof(float) / 2, 0);
        scale<<<n / 256, 256>>>(device, n);
        nvtxRangePop();
        relu<<<n / 256, 256>>>(device, n);
        nvtxRangePop();
        kernels += 3;
        memsets += 1;
        ranges += 2;
    }
    cudaMemcpy(host, device, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaDeviceSynchronize();
    printf("kernels=%ld memcpys=2 memsets=%ld ranges=%ld\n", kernels, memsets, ranges);
    cudaFree(device);
    free(host);
    return code;
}
