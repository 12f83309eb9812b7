// `flagtrace run --capture-range cudaProfilerApi` on real CUDA and CUPTI (issue 31 item 3): an unchanged
// program that launches kernels of its own outside and inside two cudaProfilerStart/Stop spans, each span's
// kernel its own name, and prints what it launched in each (the fakes' capture_range_program.c, profiler
// mode, with real kernels). A stop while stopped and a second start while started change nothing.
//
//     profiler_range            -> "span 1: kernels=4 memsets=1", "span 2: kernels=2 memsets=0", "outside: kernels=5"
#include <cstdio>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

__global__ void outside_kernel(float* x) { x[threadIdx.x] += 1.0f; }
__global__ void w1_kernel(float* x) { x[threadIdx.x] *= 2.0f; }
__global__ void w2_kernel(float* x) { x[threadIdx.x] -= 1.0f; }

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

int main() {
    float* x;
    CHECK(cudaMalloc(&x, 256 * sizeof(float)));
    int outside = 0;
    outside_kernel<<<1, 64>>>(x); outside_kernel<<<1, 64>>>(x); outside += 2;
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStart());
    for (int i = 0; i < 4; i++) w1_kernel<<<1, 64>>>(x);
    CHECK(cudaMemsetAsync(x, 0, 128 * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStop());
    outside_kernel<<<1, 64>>>(x); outside_kernel<<<1, 64>>>(x); outside += 2;
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStop());   // stopped already: nothing
    CHECK(cudaProfilerStart());
    CHECK(cudaProfilerStart());  // started already: nothing
    w2_kernel<<<1, 64>>>(x); w2_kernel<<<1, 64>>>(x);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStop());
    outside_kernel<<<1, 64>>>(x); outside += 1;
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(x));
    std::printf("span 1: kernels=4 memsets=1\nspan 2: kernels=2 memsets=0\noutside: kernels=%d\n", outside);
    return 0;
}
