// An unchanged CUDA launch loop for benchmarks/run-device-stop-to-trace.sh (issue 31 item 6, "stop to trace"): it
// knows nothing of flagtrace. LAUNCHES launches of an empty kernel (a kernel record and a runtime record each), an NVTX
// range "step" around every 100, then a synchronize. An atexit handler registered before CUDA starts (so it runs after
// the injected library's own exit flush, which CUDA's initialisation registers later) prints on stderr the moment the
// program ends:
//     exited realtime_ns=N
// With PAUSE_FILE set, it first waits until that file exists (a script arms flagtrace in between), and after the loop
// it creates DONE_FILE and waits until PAUSE_FILE is gone (the script stops flagtrace while the program still runs).
//     stop_to_trace_loop LAUNCHES
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <unistd.h>

__global__ void step(float* p, int n) {
  if (p != nullptr && n < 0) p[0] = 0;
}

static void exited() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  fprintf(stderr, "exited realtime_ns=%lld\n", (long long) now.tv_sec * 1000000000LL + now.tv_nsec);
}

static void wait_for(const char* path, bool present) {
  while ((access(path, F_OK) == 0) != present) usleep(1000);
}

int main(int argc, char** argv) {
  long launches = argc > 1 ? atol(argv[1]) : 375000;
  const char* pause = getenv("PAUSE_FILE");
  const char* done = getenv("DONE_FILE");
  atexit(exited);
  if (cudaFree(nullptr) != cudaSuccess) return 3;  // CUDA starts: the injected library connects
  if (pause != nullptr) wait_for(pause, true);
  for (long i = 0; i < launches; i++) {
    if (i % 100 == 0) nvtxRangePushA("step");
    step<<<1, 32>>>(nullptr, 1);
    if (i % 100 == 99 || i == launches - 1) nvtxRangePop();
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  printf("kernels=%ld\n", launches);
  fflush(stdout);
  if (pause != nullptr && done != nullptr) {
    FILE* f = fopen(done, "w");
    if (f != nullptr) fclose(f);
    wait_for(pause, false);
  }
  return 0;
}
