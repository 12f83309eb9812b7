// The floor that flagtrace's live cost is measured against: what raw CUPTI adds to a launch-bound
// loop, written in plain C++ so that nothing but CUPTI itself is in the way.
//
// One process runs the sequence a flagtrace JVM runs (benchmarks/java/.../FloorPairProbe.java):
//   1. register the buffer callbacks before the first CUDA context (flagtrace's Profiler.init());
//   2. plain:  batches of 4-byte cudaMemsetAsync on the default stream, each batch then synchronized;
//   3. armed:  the kinds a flagtrace session arms (CONCURRENT_KERNEL, MEMCPY, MEMSET, RUNTIME,
//              EXTERNAL_CORRELATION, SYNCHRONIZATION, OVERHEAD, MEMORY2), one external id pushed
//              around each batch as a flagtrace op does, 2 MiB buffers from a preallocated pool,
//              every delivered record walked with cuptiActivityGetNextRecord;
//   4. after:  every kind disabled and CUPTI flushed, as a session stop does; the same loop again;
//   5. cycles: `cycles` times armed then after again, `cycle_batches` timed batches each (one untimed
//              first): increments measured back to back in one process, so that what moves a whole
//              process (its cores, its clocks, its plain phase) cancels out of each one.
// Prints one JSON line: µs per launch (median of the timed batches) for each phase, each cycle's two
// medians, and what CUPTI delivered.
// Usage: launch_floor [batches=40] [launches=10000] [warmup=5] [pair=0] [cycles=0] [cycle_batches=10]
// (FLOOR_KINDS=RUNTIME,MEMSET,... arms those kinds instead of a session's: which kind leaves the residue;
// FLOOR_KINDS=NONE arms nothing, the control; FLOOR_FINALIZE=1 detaches CUPTI after each flush.)
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace {

constexpr size_t kBufferBytes = 2u << 20;             // flagtrace's default CUPTI buffer
constexpr size_t kPreallocated = (64u << 20) / kBufferBytes;  // flagtrace keeps 64 MiB ready

std::mutex pool_lock;
std::vector<uint8_t*> free_buffers;
std::atomic<uint64_t> records{0};
std::atomic<uint64_t> buffers_delivered{0};
std::atomic<uint64_t> buffers_grown{0};
std::atomic<uint64_t> dropped{0};
std::atomic<uint64_t> memset_records{0};

void die(const char* what, const char* detail) {
  std::fprintf(stderr, "launch_floor: %s failed: %s\n", what, detail);
  std::exit(1);
}

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) die(what, cudaGetErrorString(status));
}

void check_cupti(CUptiResult status, const char* what) {
  if (status != CUPTI_SUCCESS) {
    const char* text = "unknown CUPTI error";
    cuptiGetResultString(status, &text);
    die(what, text);
  }
}

uint8_t* new_buffer() {
  // CUPTI wants 8-byte alignment; the size is a multiple of the alignment as aligned_alloc requires.
  auto* b = static_cast<uint8_t*>(std::aligned_alloc(64, kBufferBytes));
  if (b == nullptr) die("aligned_alloc", "out of memory");
  return b;
}

void CUPTIAPI on_request(uint8_t** buffer, size_t* size, size_t* max_records) {
  uint8_t* b = nullptr;
  {
    std::lock_guard<std::mutex> hold(pool_lock);
    if (!free_buffers.empty()) {
      b = free_buffers.back();
      free_buffers.pop_back();
    }
  }
  if (b == nullptr) {  // every buffer in flight: grow rather than let CUPTI drop records
    b = new_buffer();
    buffers_grown.fetch_add(1, std::memory_order_relaxed);
  }
  *buffer = b;
  *size = kBufferBytes;
  *max_records = 0;
}

void CUPTIAPI on_complete(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t /*size*/, size_t valid) {
  uint64_t n = 0, sets = 0;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    ++n;
    if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) ++sets;
  }
  size_t lost = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream, &lost) == CUPTI_SUCCESS) {
    dropped.fetch_add(lost, std::memory_order_relaxed);
  }
  records.fetch_add(n, std::memory_order_relaxed);
  memset_records.fetch_add(sets, std::memory_order_relaxed);
  buffers_delivered.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> hold(pool_lock);
  free_buffers.push_back(buffer);
}

const CUpti_ActivityKind kSessionKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,   CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_OVERHEAD, CUPTI_ACTIVITY_KIND_MEMORY2,
    CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER,  // since 2026-12-02
};

struct Loop {
  void* device = nullptr;
  int launches = 0;
  uint64_t next_external_id = 1;

  // One batch: `launches` memsets, then a synchronize; with `push`, inside one external id.
  double batch_us_per_launch(bool push) {
    auto t0 = std::chrono::steady_clock::now();
    if (push) check_cupti(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                                                 next_external_id++), "push external id");
    int failed = 0;
    for (int i = 0; i < launches; ++i) failed |= cudaMemsetAsync(device, i & 0xff, 4);
    cudaError_t synced = cudaDeviceSynchronize();
    if (push) {
      uint64_t last = 0;
      check_cupti(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last),
                  "pop external id");
    }
    auto t1 = std::chrono::steady_clock::now();
    if (failed != 0) die("cudaMemsetAsync", "a launch in the batch failed");
    check_cuda(synced, "cudaDeviceSynchronize");
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
  }

  // `warmup` untimed batches, then the median of `batches` timed ones (min and max beside it),
  // appended to `json`: the line is printed only once every phase has run.
  void phase(std::string& json, const char* name, bool push, int warmup, int batches) {
    std::vector<double> t = timed(push, warmup, batches);
    double median = median_of(t);
    char field[160];
    std::snprintf(field, sizeof field, "\"%s\":%.4f,\"%s_min\":%.4f,\"%s_max\":%.4f,", name, median, name, t.front(),
                  name, t.back());
    json += field;
  }

  std::vector<double> timed(bool push, int warmup, int batches) {
    for (int i = 0; i < warmup; ++i) batch_us_per_launch(push);
    std::vector<double> t;
    for (int i = 0; i < batches; ++i) t.push_back(batch_us_per_launch(push));
    std::sort(t.begin(), t.end());
    return t;
  }

  static double median_of(const std::vector<double>& sorted) {
    size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
};

struct NamedKind {
  const char* name;
  CUpti_ActivityKind kind;
};

const NamedKind kNamedKinds[] = {
    {"CONCURRENT_KERNEL", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL}, {"MEMCPY", CUPTI_ACTIVITY_KIND_MEMCPY},
    {"MEMSET", CUPTI_ACTIVITY_KIND_MEMSET},   {"RUNTIME", CUPTI_ACTIVITY_KIND_RUNTIME},
    {"EXTERNAL_CORRELATION", CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION},
    {"SYNCHRONIZATION", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION}, {"OVERHEAD", CUPTI_ACTIVITY_KIND_OVERHEAD},
    {"MEMORY2", CUPTI_ACTIVITY_KIND_MEMORY2}, {"DRIVER", CUPTI_ACTIVITY_KIND_DRIVER},
    {"MEMCPY2", CUPTI_ACTIVITY_KIND_MEMCPY2}, {"UNIFIED_MEMORY_COUNTER", CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER},
};

// The kinds armed: a session's (kSessionKinds), or FLOOR_KINDS=NAME,NAME,... (kNamedKinds' names) to find
// which kind leaves a residue once disabled.
std::vector<CUpti_ActivityKind> armed_kinds;
std::string armed_names;

void choose_kinds() {
  const char* chosen = std::getenv("FLOOR_KINDS");
  if (chosen == nullptr || *chosen == 0) {
    armed_kinds.assign(std::begin(kSessionKinds), std::end(kSessionKinds));
    armed_names = "session";
    return;
  }
  std::string list = chosen;
  armed_names = list;
  if (list == "NONE") return;  // the control: the same phases with nothing armed
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    std::string name = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
    bool found = false;
    for (const NamedKind& k : kNamedKinds) {
      if (name == k.name) {
        armed_kinds.push_back(k.kind);
        found = true;
      }
    }
    if (!found) die("FLOOR_KINDS", ("unknown kind " + name).c_str());
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

// FLOOR_FINALIZE=1: after each disable and flush, cuptiFinalize (this program has one thread, so
// it is safe from here), and the callbacks registered again before the next arming: what a
// flagtrace session stop does by default since 2026-12-02 (through a runtime API exit callback).
bool finalize_at_stop() {
  const char* v = std::getenv("FLOOR_FINALIZE");
  return v != nullptr && v[0] == '1';
}
bool detached = false;

void arm(bool on) {
  if (on && detached) {
    check_cupti(cuptiActivityRegisterCallbacks(on_request, on_complete), "cuptiActivityRegisterCallbacks (after detach)");
    detached = false;
  }
  for (CUpti_ActivityKind kind : armed_kinds) {
    if (on && kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
      // Configured before enabling, as a flagtrace session does: the transfer counters (HtoD, DtoH, DtoD).
      CUpti_ActivityUnifiedMemoryCounterConfig config[3] = {};
      const CUpti_ActivityUnifiedMemoryCounterKind counters[3] = {
          CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
          CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
          CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD};
      for (int i = 0; i < 3; ++i) {
        config[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
        config[i].kind = counters[i];
        config[i].deviceId = 0;
        config[i].enable = 1;
      }
      check_cupti(cuptiActivityConfigureUnifiedMemoryCounter(config, 3), "cuptiActivityConfigureUnifiedMemoryCounter");
    }
    check_cupti(on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind), on ? "cuptiActivityEnable" : "cuptiActivityDisable");
  }
}

}  // namespace

int main(int argc, char** argv) {
  int batches = argc > 1 ? std::atoi(argv[1]) : 40;
  int launches = argc > 2 ? std::atoi(argv[2]) : 10000;
  int warmup = argc > 3 ? std::atoi(argv[3]) : 5;
  int pair = argc > 4 ? std::atoi(argv[4]) : 0;
  int cycles = argc > 5 ? std::atoi(argv[5]) : 0;
  int cycle_batches = argc > 6 ? std::atoi(argv[6]) : 10;
  if (batches < 1 || launches < 1 || warmup < 0 || cycles < 0 || cycle_batches < 1) {
    std::fprintf(stderr, "usage: launch_floor [batches>=1] [launches>=1] [warmup>=0] [pair] [cycles>=0] [cycle_batches>=1]\n");
    return 2;
  }
  choose_kinds();
  for (size_t i = 0; i < kPreallocated; ++i) free_buffers.push_back(new_buffer());
  // Before the first CUDA call, as flagtrace's initialization does.
  check_cupti(cuptiActivityRegisterCallbacks(on_request, on_complete), "cuptiActivityRegisterCallbacks");

  Loop loop;
  loop.launches = launches;
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  check_cuda(cudaMalloc(&loop.device, 4), "cudaMalloc");
  for (int i = 0; i < 16; ++i) check_cuda(cudaMemsetAsync(loop.device, i, 4), "first cudaMemsetAsync");
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

  std::string json;
  loop.phase(json, "plain", false, warmup, batches);

  arm(true);
  loop.phase(json, "armed", true, warmup, batches);
  arm(false);
  auto f0 = std::chrono::steady_clock::now();
  check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  double flush_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - f0).count();
  uint64_t delivered_at_stop = records.load();
  if (finalize_at_stop()) {
    check_cupti(cuptiFinalize(), "cuptiFinalize");
    detached = true;
  }

  loop.phase(json, "after", false, warmup, batches);
  uint64_t records_before_cycles = records.load(), memsets_before_cycles = memset_records.load();

  std::string on = "\"cycle_on\":[", off = "\"cycle_off\":[";
  for (int c = 0; c < cycles; ++c) {
    arm(true);
    double armed = Loop::median_of(loop.timed(true, 1, cycle_batches));
    arm(false);
    check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    if (finalize_at_stop()) {
      check_cupti(cuptiFinalize(), "cuptiFinalize");
      detached = true;
    }
    double after = Loop::median_of(loop.timed(false, 1, cycle_batches));
    char v[64];
    std::snprintf(v, sizeof v, "%s%.4f", c ? "," : "", armed);
    on += v;
    std::snprintf(v, sizeof v, "%s%.4f", c ? "," : "", after);
    off += v;
  }
  json += on + "]," + off + "],";
  std::printf("{\"side\":\"c\",\"pair\":%d,\"kinds\":\"%s\",\"batches\":%d,\"launches\":%d,%s", pair,
              armed_names.c_str(), batches, launches, json.c_str());
  std::printf("\"flush_s\":%.6f,\"records\":%llu,\"memset_records\":%llu,\"records_after_stop\":%llu,"
              "\"buffers\":%llu,\"buffers_grown\":%llu,\"dropped\":%llu}\n",
              flush_s, static_cast<unsigned long long>(delivered_at_stop),
              static_cast<unsigned long long>(memsets_before_cycles),
              static_cast<unsigned long long>(records_before_cycles - delivered_at_stop),
              static_cast<unsigned long long>(buffers_delivered.load()),
              static_cast<unsigned long long>(buffers_grown.load()), static_cast<unsigned long long>(dropped.load()));
  // (records and memsets above are the three phases'; the cycles' records are not counted there)
  std::fflush(stdout);
  check_cuda(cudaFree(loop.device), "cudaFree");
  return 0;
}
