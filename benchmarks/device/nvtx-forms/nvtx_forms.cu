// Every NVTX range form a library may use, on the real driver, NVTX v3 and CUPTI, one kernel inside each
// range, ITERATIONS times (the fakes' twin: src/test/native/cuda/nvtx_forms_program.c):
//   "ex ascii" nvtxRangePushEx -> gemm; "wide µs" nvtxRangePushW -> relu; "registered" nvtxDomainRangePushEx in
//   domain "app" with a registered string -> gemm; "started" nvtxRangeStartA/End -> relu; "domain started"
//   nvtxDomainRangeStartEx/End -> gemm; "outer" (domain push) holding "inner" (nvtxRangePushA) -> relu;
//   and nvtx3::scoped_range "scoped" (C++ API, default domain) -> gemm.
// Prints its own counts. Run under `flagtrace run`; benchmarks/device/nvtx-forms/check.py reads the trace.
//     nvcc -O2 -arch=sm_90 -o nvtx_forms nvtx_forms.cu && ./nvtx_forms 4
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <nvtx3/nvtx3.hpp>

__global__ void gemm(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * 2.0f + 1.0f; }
__global__ void relu(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] > 0 ? x[i] : 0; }

static nvtxEventAttributes_t ascii(const char* message) {
  nvtxEventAttributes_t a;
  std::memset(&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xFF00FF00;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message;
  return a;
}

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 4;
  const int n = 1 << 16;
  float* x;
  cudaMalloc(&x, n * sizeof(float));  // the driver first: a range opened before it is before the window
  cudaMemset(x, 0, n * sizeof(float));
  dim3 grid((n + 255) / 256), block(256);
  nvtxDomainHandle_t app = nvtxDomainCreateA("app");
  nvtxStringHandle_t registered = nvtxDomainRegisterStringA(app, "registered");
  long kernels = 0, ranges = 0;
  for (int i = 0; i < iterations; i++) {
    nvtxEventAttributes_t ex = ascii("ex ascii");
    nvtxRangePushEx(&ex); gemm<<<grid, block>>>(x, n); nvtxRangePop();
    nvtxRangePushW(L"wide \u00b5s"); relu<<<grid, block>>>(x, n); nvtxRangePop();
    nvtxEventAttributes_t reg = ascii(nullptr);
    reg.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    reg.message.registered = registered;
    nvtxDomainRangePushEx(app, &reg); gemm<<<grid, block>>>(x, n); nvtxDomainRangePop(app);
    nvtxRangeId_t started = nvtxRangeStartA("started"); relu<<<grid, block>>>(x, n); nvtxRangeEnd(started);
    nvtxEventAttributes_t ds = ascii("domain started");
    nvtxRangeId_t domainStarted = nvtxDomainRangeStartEx(app, &ds); gemm<<<grid, block>>>(x, n);
    nvtxDomainRangeEnd(app, domainStarted);
    nvtxEventAttributes_t outer = ascii("outer");
    nvtxDomainRangePushEx(app, &outer);
    nvtxRangePushA("inner"); relu<<<grid, block>>>(x, n); nvtxRangePop();
    nvtxDomainRangePop(app);
    { nvtx3::scoped_range scoped{"scoped"}; gemm<<<grid, block>>>(x, n); }
    kernels += 7;
    ranges += 8;
  }
  cudaDeviceSynchronize();
  cudaFree(x);
  std::printf("kernels=%ld ranges=%ld\n", kernels, ranges);
  return 0;
}
