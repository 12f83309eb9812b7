/* An unchanged CUDA program with a CUPTI client of its own, as a PyTorch program under torch.profiler has (kineto):
 * phase 1 launches 3 kernels in an NVTX range "before"; then the program takes CUPTI for itself as kineto does (its
 * own timestamp callback, a monotonic clock, and its own buffer callbacks, the kernel kind enabled), launches 5
 * kernels in a range "own", flushes and counts the kernel records its own callbacks got; prints both counts.
 * With "subscribe": between cudaProfilerStart and cudaProfilerStop, 3 kernels in "before", then the program subscribes
 * to CUPTI's callback API (one subscriber per process), 5 kernels in "own"; prints the subscribe's status.
 *
 *     own_client_program [subscribe] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fake_cuda.h"

/* CUPTI's activity API, as cupti_activity.h declares what this program calls (linked with -lcupti). */
int cuptiActivityRegisterCallbacks(void (*requested)(uint8_t**, size_t*, size_t*),
                                   void (*completed)(void*, uint32_t, uint8_t*, size_t, size_t));
int cuptiActivityRegisterTimestampCallback(uint64_t (*timestamp)(void));
int cuptiActivityEnable(int kind);
int cuptiActivityFlushAll(uint32_t flag);
int cuptiActivityGetNextRecord(uint8_t* buffer, size_t validSize, void** record);
int cuptiSubscribe(void** subscriber, void (*callback)(void*, int, uint32_t, const void*), void* userdata);

static void own_callback(void* userdata, int domain, uint32_t cbid, const void* data) {
    (void) userdata;
    (void) domain;
    (void) cbid;
    (void) data;
}

static long own_kernels;

static void requested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *size = 1 << 20;
    *buffer = aligned_alloc(8, *size);
    *maxNumRecords = 0;
}

static void completed(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize) {
    (void) context;
    (void) streamId;
    (void) size;
    void* record = NULL;
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == 0) {
        own_kernels += *(uint32_t*) record == 10; /* CONCURRENT_KERNEL */
    }
    free(buffer);
}

static uint64_t monotonic(void) { /* kineto's clock is not CUPTI's default one */
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000ull + (uint64_t) t.tv_nsec;
}

static void gemm_stub(void) {}

int main(int argc, char** argv) {
    __cudaRegisterFunction(NULL, (const char*) gemm_stub, (char*) "_Z4gemmPfS_S_i", "_Z4gemmPfS_S_i", -1, NULL, NULL,
                           NULL, NULL, NULL);
    dim3 grid = {8, 1, 1};
    dim3 block = {128, 1, 1};
    cudaDeviceSynchronize();
    if (argc > 1 && strcmp(argv[1], "subscribe") == 0) {
        cudaProfilerStart();
        nvtxRangePushA("before");
        for (int k = 0; k < 3; k++) {
            cudaLaunchKernel((const void*) gemm_stub, grid, block, NULL, 0, NULL);
        }
        nvtxRangePop();
        cudaDeviceSynchronize();
        void* subscriber = NULL;
        int status = cuptiSubscribe(&subscriber, own_callback, NULL);
        nvtxRangePushA("own");
        for (int k = 0; k < 5; k++) {
            cudaLaunchKernel((const void*) gemm_stub, grid, block, NULL, 0, NULL);
        }
        nvtxRangePop();
        cudaDeviceSynchronize();
        cudaProfilerStop();
        printf("before: kernels=3\nsubscribe=%d\n", status);
        return 0;
    }
    nvtxRangePushA("before");
    for (int k = 0; k < 3; k++) {
        cudaLaunchKernel((const void*) gemm_stub, grid, block, NULL, 0, NULL);
    }
    nvtxRangePop();
    cudaDeviceSynchronize();
    cuptiActivityRegisterTimestampCallback(monotonic);
    cuptiActivityRegisterCallbacks(requested, completed);
    cuptiActivityEnable(10);
    nvtxRangePushA("own");
    for (int k = 0; k < 5; k++) {
        cudaLaunchKernel((const void*) gemm_stub, grid, block, NULL, 0, NULL);
    }
    nvtxRangePop();
    cudaDeviceSynchronize();
    cuptiActivityFlushAll(1);
    printf("before: kernels=3\nown: kernels=5 recorded by the program's own client=%ld\n", own_kernels);
    return 0;
}
