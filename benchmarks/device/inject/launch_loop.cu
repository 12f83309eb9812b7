// An unchanged launch-bound CUDA program for benchmarks/run-device-torch-run.sh (issue 31, item 6):
// the loop of the CUPTI floor (benchmarks/device/floor/launch_floor.cpp) with no CUPTI in it at all:
// WARMUP untimed then BATCHES timed batches of LAUNCHES 4-byte cudaMemsetAsync on the default stream,
// each batch then synchronized. Run alone it is the plain cost; under `flagtrace run` the injected
// library arms CUPTI in it. Prints one JSON line: µs per launch (median, min, max of the timed
// batches), the launches made and the program's own wall time from its first CUDA call to its end.
//     launch_loop [batches=40] [launches=10000] [warmup=5]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s failed: %d\n", #x, (int) e_); return 3; } } while (0)

int main(int argc, char** argv) {
  int batches = argc > 1 ? atoi(argv[1]) : 40, launches = argc > 2 ? atoi(argv[2]) : 10000;
  int warmup = argc > 3 ? atoi(argv[3]) : 5;
  auto begin = std::chrono::steady_clock::now();
  void* p = nullptr;
  CK(cudaMalloc(&p, 4));
  std::vector<double> us;
  for (int b = 0; b < warmup + batches; b++) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; i++) CK(cudaMemsetAsync(p, 0, 4, 0));
    CK(cudaDeviceSynchronize());
    auto t1 = std::chrono::steady_clock::now();
    if (b >= warmup) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
  }
  CK(cudaFree(p));
  std::sort(us.begin(), us.end());
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  printf("{\"us_per_launch_median\":%.4f,\"min\":%.4f,\"max\":%.4f,\"launches\":%ld,\"program_wall_s\":%.3f}\n",
         us[us.size() / 2], us.front(), us.back(), (long) (warmup + batches) * launches, wall);
  return 0;
}
