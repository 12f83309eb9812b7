/* An unchanged CUDA program for flagtrace run's tests: it knows nothing of flagtrace. It registers
 * two kernels as nvcc's generated code does, then runs ITERATIONS steps, each an NVTX range "step"
 * holding a range "compute" (two kernel launches and a memset) and a kernel outside "compute", and
 * the cudaGetDevice and cudaGetLastError calls torch makes around each op (no device work);
 * copies in and out around them; prints its own counts on stdout and exits with EXIT_CODE.
 * With "hang" as third argument it prints "ready PID" after the steps and waits to be killed.
 *
 *     unchanged_program ITERATIONS EXIT_CODE [hang] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fake_cuda.h"

static void gemm_stub(void) {}
static void relu_stub(void) {}

int main(int argc, char** argv) {
    int iterations = argc > 1 ? atoi(argv[1]) : 10;
    int code = argc > 2 ? atoi(argv[2]) : 0;
    int hang = argc > 3 && strcmp(argv[3], "hang") == 0;
    __cudaRegisterFunction(NULL, (const char*) gemm_stub, (char*) "_Z4gemmPfS_S_i", "_Z4gemmPfS_S_i", -1, NULL, NULL,
                           NULL, NULL, NULL);
    __cudaRegisterFunction(NULL, (const char*) relu_stub, (char*) "_Z4reluPfi", "_Z4reluPfi", -1, NULL, NULL, NULL,
                           NULL, NULL);
    long kernels = 0, memcpys = 0, memsets = 0, ranges = 0, mallocs = 0;
    size_t bytes = 1 << 16;
    float* host = calloc(bytes / sizeof(float), sizeof(float));
    void* device;
    cudaMalloc(&device, bytes);
    mallocs++;
    cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
    memcpys++;
    dim3 grid = {64, 1, 1};
    dim3 block = {256, 1, 1};
    for (int i = 0; i < iterations; i++) {
        nvtxRangePushA("step");
        nvtxRangePushA("compute, seq = 3, op_id = 7"); /* as torch's emit_nvtx names its ranges */
        int current;
        cudaGetDevice(&current);
        cudaLaunchKernel((const void*) gemm_stub, grid, block, NULL, 0, NULL);
        cudaMemsetAsync(device, 0, bytes / 2, NULL);
        cudaLaunchKernel((const void*) gemm_stub, grid, block, NULL, 0, NULL);
        nvtxRangePop();
        cudaLaunchKernel((const void*) relu_stub, grid, block, NULL, 0, NULL);
        cudaGetLastError();
        nvtxRangePop();
        kernels += 3;
        memsets += 1;
        ranges += 2;
    }
    cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost);
    memcpys++;
    cudaDeviceSynchronize();
    printf("kernels=%ld memcpys=%ld memsets=%ld ranges=%ld mallocs=%ld\n", kernels, memcpys, memsets, ranges, mallocs);
    fflush(stdout);
    if (hang) {
        printf("ready %ld\n", (long) getpid());
        fflush(stdout);
        for (;;) {
            pause();
        }
    }
    cudaFree(device);
    free(host);
    return code;
}
