// Does a CUPTI MARKER record's name pointer stay valid after its buffer was handed back?
// flagtrace's name stage reads a marker's name (like a kernel's) some time after the
// buffer-completed callback returned. This probe records each MARKER name pointer with a copy of
// the string read inside the callback, runs more NVTX work (messages built in temporary
// std::strings, so NVTX's own pointer dies at once), flushes, and at the end reads every pointer
// again: same string, other string, or a pointer that now names something else. It also reports
// whether one pointer carried two names at callback time (reuse) and whether CUPTI handed back
// the program's own message pointer (no copy).
// Build: nvcc -O2 -std=c++17 -I$CUPTI_INC nvtx_names.cu -L$CUPTI_LIB -lcupti -o nvtx_names
// Run:   NVTX_INJECTION64_PATH=$CUPTI_LIB/libcupti.so ./nvtx_names
#include <cuda_runtime.h>
#include <cupti.h>
#include <nvtx3/nvToolsExt.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

static std::mutex lock;
static std::map<const char*, std::string> seen;     // pointer -> first name read in the callback
static std::set<const char*> reused;                 // pointers seen with two different names
static std::set<const void*> programPointers;        // the message pointers the program passed
static long markers = 0, named = 0;

static void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    *size = 1 << 16;
    *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
    *maxRecords = 0;
}

static void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* r = nullptr;
    std::lock_guard<std::mutex> g(lock);
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
        if (r->kind != CUPTI_ACTIVITY_KIND_MARKER) continue;
        auto* m = reinterpret_cast<CUpti_ActivityMarker2*>(r);
        markers++;
        const char* name = m->name; // a packed field: read it into a local first
        if (name == nullptr) continue;
        named++;
        auto it = seen.find(name);
        if (it == seen.end()) seen.emplace(name, std::string(name));
        else if (it->second != name) reused.insert(name);
    }
    free(buffer);
}

int main() {
    if (!getenv("NVTX_INJECTION64_PATH")) { fprintf(stderr, "set NVTX_INJECTION64_PATH to libcupti.so\n"); return 2; }
    if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS) return 3;
    if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER) != CUPTI_SUCCESS) return 4;
    cudaFree(nullptr);
    const int rounds = 4, perRound = 2000;
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < perRound; i++) {
            std::string message = "range " + std::to_string(round) + "." + std::to_string(i % 300);
            { std::lock_guard<std::mutex> g(lock); programPointers.insert(message.c_str()); }
            nvtxRangePushA(message.c_str());
            std::string mark = "mark " + std::to_string(i % 50);
            nvtxMarkA(mark.c_str());
            nvtxRangePop();
        }
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        // churn the heap between rounds, as a program would
        std::vector<std::string> churn;
        for (int k = 0; k < 20000; k++) churn.push_back(std::string(40 + k % 200, 'x'));
    }
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    long same = 0, other = 0, program = 0;
    for (auto& p : seen) {
        if (programPointers.count(p.first)) program++;
        if (strncmp(p.first, p.second.c_str(), p.second.size() + 1) == 0) same++; else other++;
    }
    printf("marker records %ld, named %ld, distinct name pointers %zu, distinct names %zu\n", markers, named,
           seen.size(), [] { std::set<std::string> s; for (auto& p : seen) s.insert(p.second); return s.size(); }());
    printf("at the end: %ld pointers still hold their name, %ld hold another string\n", same, other);
    printf("pointers seen with two names at callback time: %zu\n", reused.size());
    printf("pointers that were the program's own message buffer: %ld\n", program);
    return 0;
}
