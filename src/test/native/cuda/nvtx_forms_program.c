/* An unchanged CUDA program that marks its work with every NVTX range form a library may use, one
 * kernel inside each range, ITERATIONS times:
 *   "ex ascii"   nvtxRangePushEx, an ASCII message          -> gemm
 *   "wide µs"    nvtxRangePushW                             -> relu
 *   "registered" nvtxDomainRangePushEx in domain "app", a registered string (nvtx3::scoped_range's way) -> gemm
 *   "started"    nvtxRangeStartA ... nvtxRangeEnd           -> relu
 *   "domain started" nvtxDomainRangeStartEx ... nvtxDomainRangeEnd -> gemm
 *   "outer" (nvtxDomainRangePushEx, ASCII) holding "inner" (nvtxRangePushA) -> relu inside "inner"
 * and prints its own counts. Its first CUDA call comes first: a range opened before the driver initialises
 * (and loads the injected library) is before the window, as in any program.
 *
 *     nvtx_forms_program ITERATIONS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fake_cuda.h"

static void gemm_stub(void) {}
static void relu_stub(void) {}

static nvtxEventAttributes_t ascii(const char* message) {
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xFF00FF00;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    return a;
}

int main(int argc, char** argv) {
    int iterations = argc > 1 ? atoi(argv[1]) : 4;
    __cudaRegisterFunction(NULL, (const char*) gemm_stub, (char*) "_Z4gemmPfS_S_i", "_Z4gemmPfS_S_i", -1, NULL, NULL,
                           NULL, NULL, NULL);
    __cudaRegisterFunction(NULL, (const char*) relu_stub, (char*) "_Z4reluPfi", "_Z4reluPfi", -1, NULL, NULL, NULL,
                           NULL, NULL);
    dim3 grid = {64, 1, 1};
    dim3 block = {256, 1, 1};
    nvtxDomainHandle_t app = nvtxDomainCreateA("app");
    nvtxStringHandle_t registered = nvtxDomainRegisterStringA(app, "registered");
    long kernels = 0, ranges = 0;
    cudaDeviceSynchronize();
    for (int i = 0; i < iterations; i++) {
        nvtxEventAttributes_t ex = ascii("ex ascii");
        nvtxRangePushEx(&ex);
        cudaLaunchKernel((const void*) gemm_stub, grid, block, NULL, 0, NULL);
        nvtxRangePop();

        nvtxRangePushW(L"wide \u00b5s");
        cudaLaunchKernel((const void*) relu_stub, grid, block, NULL, 0, NULL);
        nvtxRangePop();

        nvtxEventAttributes_t reg = ascii(NULL);
        reg.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        reg.message.registered = registered;
        nvtxDomainRangePushEx(app, &reg);
        cudaLaunchKernel((const void*) gemm_stub, grid, block, NULL, 0, NULL);
        nvtxDomainRangePop(app);

        uint64_t started = nvtxRangeStartA("started");
        cudaLaunchKernel((const void*) relu_stub, grid, block, NULL, 0, NULL);
        nvtxRangeEnd(started);

        nvtxEventAttributes_t ds = ascii("domain started");
        uint64_t domainStarted = nvtxDomainRangeStartEx(app, &ds);
        cudaLaunchKernel((const void*) gemm_stub, grid, block, NULL, 0, NULL);
        nvtxDomainRangeEnd(app, domainStarted);

        nvtxEventAttributes_t outer = ascii("outer");
        nvtxDomainRangePushEx(app, &outer);
        nvtxRangePushA("inner");
        cudaLaunchKernel((const void*) relu_stub, grid, block, NULL, 0, NULL);
        nvtxRangePop();
        nvtxDomainRangePop(app);
        kernels += 6;
        ranges += 7;
    }
    cudaDeviceSynchronize();
    printf("kernels=%ld ranges=%ld\n", kernels, ranges);
    return 0;
}
