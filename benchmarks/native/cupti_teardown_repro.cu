// The teardown stress without Java: does raw CUPTI crash when sessions start and stop (kinds
// enabled, disabled and force-flushed) while threads launch? Mirrors TeardownStress and CuptiTracer:
// 8 threads launch 4-byte cudaMemsetAsync inside nested external-correlation pushes the whole time;
// the main thread runs SESSIONS sessions of SESSION_MS, enabling flagtrace's session kinds at start
// and disabling them then calling cuptiActivityFlushAll(FORCED) at stop, buffers from a preallocated
// pool, walked with cuptiActivityGetNextRecord. Prints one PASS line; a crash is the signal's exit.
// Build: nvcc -O2 -std=c++17 -arch=sm_90 cupti_teardown_repro.cu -o repro -lcupti -lpthread
// Run:   ./repro [sessions=40] [threads=8] [sessionMs=20] [mode=toggle]
// mode: toggle (kinds enabled at every start, disabled and force-flushed at every stop, as flagtrace);
// keep (kinds enabled once, only the forced flush at every stop); plain (toggle, flush with flag 0);
// nopush (toggle, no external-correlation push or pop anywhere); noflush (toggle, no flush at a stop:
// one forced flush at the end only); delayflush (toggle, the forced flush 5 ms after the kinds are disabled);
// period (toggle, no flush at a stop: CUPTI's own flush every 5 ms, cuptiActivityFlushPeriod, and 10 ms waited
// after the disable; one forced flush at the end).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <cuda_runtime.h>
#include <cupti.h>

#define CK(x) do { auto s_ = (x); if (s_ != 0) { fprintf(stderr, "%s failed: %d\n", #x, (int) s_); exit(3); } } while (0)

static const size_t BUFFER_BYTES = 1 << 20;
static std::mutex pool_lock;
static std::vector<uint8_t*> pool;
static std::atomic<long> records{0}, buffers{0}, launches{0};
static std::atomic<bool> recording{false}, done{false};
static bool pushes = true;

static void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max) {
  std::lock_guard<std::mutex> g(pool_lock);
  if (pool.empty()) pool.push_back((uint8_t*) aligned_alloc(16, BUFFER_BYTES));
  *buffer = pool.back(); pool.pop_back(); *size = BUFFER_BYTES; *max = 0;
}

static void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* b, size_t, size_t valid) {
  CUpti_Activity* r = nullptr; long n = 0;
  while (cuptiActivityGetNextRecord(b, valid, &r) == CUPTI_SUCCESS) n++;
  records += n; buffers++;
  std::lock_guard<std::mutex> g(pool_lock);
  pool.push_back(b);
}

static const CUpti_ActivityKind KINDS[] = {
  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
  CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
  CUPTI_ACTIVITY_KIND_OVERHEAD, CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MARKER, CUPTI_ACTIVITY_KIND_MEMCPY2};

static void work() {
  void* p = nullptr;
  CK(cudaMalloc(&p, 4));
  uint64_t id = 0, last;
  while (!done) {
    if (!recording) { CK(cudaMemsetAsync(p, 0xff, 4)); launches++; continue; }
    if (!pushes) {
      for (int k = 0; k < 4; k++) CK(cudaMemsetAsync(p, 1, 4));
      CK(cudaStreamSynchronize(0));
      launches += 4;
      continue;
    }
    CK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, ++id));
    CK(cudaMemsetAsync(p, 1, 4));
    CK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, ++id));
    CK(cudaMemsetAsync(p, 2, 4)); CK(cudaMemsetAsync(p, 2, 4));
    CK(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last));
    CK(cudaMemsetAsync(p, 1, 4));
    CK(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last));
    CK(cudaStreamSynchronize(0));
    launches += 4;
  }
  cudaFree(p);
}

int main(int argc, char** argv) {
  int sessions = argc > 1 ? atoi(argv[1]) : 40, threads = argc > 2 ? atoi(argv[2]) : 8, ms = argc > 3 ? atoi(argv[3]) : 20;
  std::string mode = argc > 4 ? argv[4] : "toggle";
  bool toggle = mode != "keep";
  uint8_t flag = mode == "plain" ? 0 : CUPTI_ACTIVITY_FLAG_FLUSH_FORCED;
  bool flushEach = mode != "noflush" && mode != "period";
  bool delay = mode == "delayflush", period = mode == "period";
  pushes = mode != "nopush";
  if (mode != "toggle" && mode != "keep" && mode != "plain" && mode != "nopush" && mode != "noflush"
      && mode != "delayflush" && mode != "period") {
    fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  if (!toggle) for (auto k : KINDS) CK(cuptiActivityEnable(k));
  for (int i = 0; i < 64; i++) pool.push_back((uint8_t*) aligned_alloc(16, BUFFER_BYTES));
  CK(cuptiActivityRegisterCallbacks(requested, completed));
  if (period) CK(cuptiActivityFlushPeriod(5));
  CK(cudaFree(0));
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; t++) ts.emplace_back(work);
  auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < sessions; s++) {
    if (toggle) for (auto k : KINDS) CK(cuptiActivityEnable(k));
    recording = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    recording = false;
    if (toggle) for (auto k : KINDS) CK(cuptiActivityDisable(k));
    if (delay || period) std::this_thread::sleep_for(std::chrono::milliseconds(period ? 10 : 5));
    if (flushEach) CK(cuptiActivityFlushAll(flag));
  }
  done = true;
  for (auto& t : ts) t.join();
  if (!flushEach) CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  printf("PASS (%s): %d sessions x %d threads, %ld launches, %ld records in %ld buffers, %.1f s\n", mode.c_str(), sessions, threads,
         launches.load(), records.load(), buffers.load(),
         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}
