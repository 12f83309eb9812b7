/* An unchanged CUDA program that puts NVTX marks on its threads, ITERATIONS times:
 *   "tick"       nvtxMarkA, outside every range, before each step
 *   a range "step" (nvtxRangePushA) holding, in this order: "in step" (nvtxMarkA), a gemm kernel,
 *                "wide µs" (nvtxMarkW), "ex mark" (nvtxMarkEx, an ASCII message)
 * then once "registered mark" (nvtxDomainMarkEx in domain "app", a registered string), once a mark whose message is
 * 70,000 'L's (longer than the 64 KiB a range's name is cut at), and, on a second thread, a range "work" holding
 * "worker" (nvtxMarkA) and a relu kernel. A mark made before its first CUDA call ("before init") is before the window,
 * as a range would be. Prints its own counts (the marks made after its first CUDA call).
 *
 *     marks_program ITERATIONS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fake_cuda.h"

static void gemm_stub(void) {}
static void relu_stub(void) {}
static const dim3 grid = {64, 1, 1};
static const dim3 block = {256, 1, 1};

static nvtxEventAttributes_t ascii(const char* message) {
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    return a;
}

static void* worker(void* unused) {
    (void) unused;
    nvtxRangePushA("work");
    nvtxMarkA("worker");
    cudaLaunchKernel((const void*) relu_stub, grid, block, NULL, 0, NULL);
    nvtxRangePop();
    return NULL;
}

int main(int argc, char** argv) {
    int iterations = argc > 1 ? atoi(argv[1]) : 3;
    __cudaRegisterFunction(NULL, (const char*) gemm_stub, (char*) "_Z4gemmPfS_S_i", "_Z4gemmPfS_S_i", -1, NULL, NULL,
                           NULL, NULL, NULL);
    __cudaRegisterFunction(NULL, (const char*) relu_stub, (char*) "_Z4reluPfi", "_Z4reluPfi", -1, NULL, NULL, NULL,
                           NULL, NULL);
    nvtxMarkA("before init");
    cudaDeviceSynchronize();
    nvtxDomainHandle_t app = nvtxDomainCreateA("app");
    nvtxStringHandle_t registered = nvtxDomainRegisterStringA(app, "registered mark");
    long kernels = 0, ranges = 0, marks = 0;
    for (int i = 0; i < iterations; i++) {
        nvtxMarkA("tick");
        nvtxRangePushA("step");
        nvtxMarkA("in step");
        cudaLaunchKernel((const void*) gemm_stub, grid, block, NULL, 0, NULL);
        nvtxMarkW(L"wide \u00b5s");
        nvtxEventAttributes_t ex = ascii("ex mark");
        nvtxMarkEx(&ex);
        nvtxRangePop();
        kernels++;
        ranges++;
        marks += 4;
    }
    nvtxEventAttributes_t reg = ascii(NULL);
    reg.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    reg.message.registered = registered;
    nvtxDomainMarkEx(app, &reg);
    size_t longest = 70000;
    char* long_message = malloc(longest + 1);
    memset(long_message, 'L', longest);
    long_message[longest] = '\0';
    nvtxMarkA(long_message);
    free(long_message);
    marks += 2;
    pthread_t thread;
    pthread_create(&thread, NULL, worker, NULL);
    pthread_join(thread, NULL);
    kernels++;
    ranges++;
    marks++;
    cudaDeviceSynchronize();
    printf("kernels=%ld ranges=%ld marks=%ld\n", kernels, ranges, marks);
    return 0;
}
