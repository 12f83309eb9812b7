// An unchanged CUDA program for benchmarks/run-device-rows.sh: it knows nothing of flagtrace. Two threads (main
// and a worker) each run STEPS NVTX ranges "step" holding a kernel, a memset and a mark ("mark-main" or
// "mark-worker", nvtxMarkA), then one mark in an NVTX domain "app" (nvtxDomainMarkEx). Each thread prints its
// kernel thread id (gettid) and its counts, so the trace's rows can be checked against them.
//     rows_probe STEPS
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <sys/syscall.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

__global__ void bump(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

static void work(const char* who, int steps) {
    const int n = 1 << 14;
    float* device;
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaMalloc(&device, n * sizeof(float));
    char mark[32];
    snprintf(mark, sizeof mark, "mark-%s", who);
    for (int s = 0; s < steps; s++) {
        nvtxRangePushA("step");
        bump<<<n / 256, 256, 0, stream>>>(device, n);
        cudaMemsetAsync(device, 0, n * sizeof(float), stream);
        nvtxMarkA(mark);
        nvtxRangePop();
    }
    nvtxDomainHandle_t domain = nvtxDomainCreateA("app");
    nvtxEventAttributes_t attributes = {};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = "domain-mark";
    nvtxDomainMarkEx(domain, &attributes);
    cudaStreamSynchronize(stream);
    cudaFree(device);
    cudaStreamDestroy(stream);
    printf("thread=%s tid=%ld kernels=%d memsets=%d ranges=%d marks=%d\n", who, (long) syscall(SYS_gettid), steps, steps,
           steps, steps + 1);
    fflush(stdout);
}

int main(int argc, char** argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 50;
    cudaFree(nullptr);
    std::thread worker(work, "worker", steps);
    worker.join();
    work("main", steps);
    return 0;
}
