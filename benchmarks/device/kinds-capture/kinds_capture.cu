// Records real CUPTI 13 activity buffers for the record kinds flagtrace does not decode yet
// (SYNCHRONIZATION, OVERHEAD, MARKER + MARKER_DATA, MEMORY2, MEMCPY2, kernels with graph ids),
// beside the kinds it does decode, while a small workload runs under host ops.
//
// Usage: kinds_capture [NAME [DIR]]   (defaults: h200-kinds, .)
//        kinds_capture --layouts PREFIX  (writes PREFIX.layouts.json and PREFIX.enums.json only)
// Writes into DIR:
//   NAME.fltrbuf       the activity buffers exactly as CUPTI completed them (docs/formats.md)
//   NAME.ops.jsonl     host ops, External ids from 0, CUSTOM0 pushed while each op runs
//   NAME.truth.jsonl   every record as CUPTI's own structs decode it, one JSON line per record
//   NAME.names.tsv     kernel name pointer -> name (the kernel-name table)
//   NAME.strings.tsv   every other string pointer in a record (marker names and domains, memory
//                      names): pointer, kind, field, string; a pointer may be reused over time
//   NAME.layouts.json  sizeof/offsetof of every field of every CUPTI struct decoded here
//   NAME.enums.json    the values of the CUPTI enums these records carry
//   NAME.devices.json  device properties by torch's names (as the bundled captures)
//   NAME.meta.json     versions, which kinds CUPTI accepted, buffers, records per kind, drops
//
// NVTX: CUPTI receives NVTX calls only as NVTX's injection library. NVTX v3 (header-only) looks
// for it once, at the first NVTX call, in NVTX_INJECTION64_PATH; main() sets that variable to the
// libcupti.so it is linked with (unless already set) and arms CUPTI before any NVTX call.

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <nvtx3/nvToolsExt.h>

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

// ---------------------------------------------------------------------------------------------
// Small JSON line builder (no library on the device).

static std::string jsonEscape(const char* s) {
    std::string out = "\"";
    for (const unsigned char* p = reinterpret_cast<const unsigned char*>(s); *p; ++p) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') { out += '\\'; out += static_cast<char>(c); }
        else if (c < 0x20) { char b[8]; snprintf(b, sizeof b, "\\u%04x", c); out += b; }
        else out += static_cast<char>(c);
    }
    return out + "\"";
}

class Json {
  public:
    Json& u(const char* k, unsigned long long v) { key(k); s_ += std::to_string(v); return *this; }
    Json& i(const char* k, long long v) { key(k); s_ += std::to_string(v); return *this; }
    Json& d(const char* k, double v) { key(k); char b[64]; snprintf(b, sizeof b, "%.17g", v); s_ += b; return *this; }
    Json& str(const char* k, const char* v) { key(k); s_ += v ? jsonEscape(v) : "null"; return *this; }
    Json& raw(const char* k, const std::string& v) { key(k); s_ += v; return *this; }
    Json& u3(const char* k, long long a, long long b, long long c) {
        key(k); s_ += "[" + std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) + "]"; return *this;
    }
    std::string done() const { return "{" + s_ + "}"; }
  private:
    void key(const char* k) { if (!s_.empty()) s_ += ","; s_ += jsonEscape(k); s_ += ":"; }
    std::string s_;
};

// ---------------------------------------------------------------------------------------------
// Capture state, shared with CUPTI's buffer callbacks.

static const size_t kBufferBytes = 8u << 20;

struct Capture {
    std::mutex lock;
    FILE* fltrbuf = nullptr;
    FILE* truth = nullptr;
    bool closed = false;
    unsigned long buffers = 0;
    unsigned long long bytes = 0;
    unsigned long long droppedByCupti = 0;
    unsigned long long afterClose = 0;
    std::map<std::string, unsigned long long> recordsPerKind;
    std::map<uint64_t, std::string> kernelNames;
    std::map<std::string, std::string> strings;  // "0x..\tkind\tfield" -> string (first seen)
};
// Never destroyed: CUPTI may hand over a last buffer from an exit handler after static destructors.
static Capture& g = *new Capture;

static const char* resultString(CUptiResult r) {
    const char* s = nullptr;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) return "unknown CUPTI error";
    return s;
}

// A failing call is reported and counted, and the capture goes on: what CUPTI recorded up to then
// (and after) is still written, and the exit status is 3.
static int g_failures = 0;

#define CUDA_CHECK(call)                                                                        \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            g_failures++;                                                                       \
        }                                                                                       \
    } while (0)

#define CUPTI_CHECK(call)                                                                       \
    do {                                                                                        \
        CUptiResult r_ = (call);                                                                \
        if (r_ != CUPTI_SUCCESS) {                                                              \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, resultString(r_));     \
            g_failures++;                                                                       \
        }                                                                                       \
    } while (0)

static std::string hex(uint64_t v) { char b[32]; snprintf(b, sizeof b, "0x%" PRIx64, v); return b; }

static void rememberString(const char* kind, const char* field, const char* p) {
    if (!p) return;
    std::string key = hex(reinterpret_cast<uint64_t>(p)) + "\t" + kind + "\t" + field;
    g.strings.emplace(key, p);
}

static std::string apiName(CUpti_CallbackDomain domain, uint32_t cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || !name) return "";
    return name;
}

static std::string objectId(const CUpti_ActivityObjectKindId& id) {
    return Json().u("processId", id.pt.processId).u("threadId", id.pt.threadId)
        .u("deviceId", id.dcs.deviceId).u("contextId", id.dcs.contextId).u("streamId", id.dcs.streamId).done();
}

// ---------------------------------------------------------------------------------------------
// One record -> one truth line. The kinds flagtrace already decodes keep the keys of the bundled
// captures' truth files (CuptiTruthTest reads them); every other field follows, by CUPTI's name.

static std::string kernelLine(const CUpti_ActivityKernel10* k) {
    g.kernelNames.emplace(reinterpret_cast<uint64_t>(k->name), k->name ? k->name : "");
    return Json().str("kind", "kernel").u("cuptiKind", k->kind)
        .u("start", k->start).u("end", k->end).u("correlation", k->correlationId)
        .u("device", k->deviceId).u("context", k->contextId).u("stream", k->streamId)
        .u3("grid", k->gridX, k->gridY, k->gridZ).u3("block", k->blockX, k->blockY, k->blockZ)
        .u("registers", k->registersPerThread).i("static_smem", k->staticSharedMemory)
        .i("dynamic_smem", k->dynamicSharedMemory).u("queued", k->queued).str("name", k->name)
        .u("namePtr", reinterpret_cast<uint64_t>(k->name))
        .u("cacheConfig", k->cacheConfig.both).u("sharedMemoryConfig", k->sharedMemoryConfig)
        .u("partitionedGlobalCacheRequested", k->partitionedGlobalCacheRequested)
        .u("partitionedGlobalCacheExecuted", k->partitionedGlobalCacheExecuted)
        .u("completed", k->completed).u("localMemoryPerThread", k->localMemoryPerThread)
        .u("localMemoryTotal", k->localMemoryTotal).i("gridId", k->gridId).u("submitted", k->submitted)
        .u("launchType", k->launchType).u("isSharedMemoryCarveoutRequested", k->isSharedMemoryCarveoutRequested)
        .u("sharedMemoryCarveoutRequested", k->sharedMemoryCarveoutRequested)
        .u("sharedMemoryExecuted", k->sharedMemoryExecuted).u("graphNodeId", k->graphNodeId)
        .u("shmemLimitConfig", k->shmemLimitConfig).u("graphId", k->graphId)
        .u("channelID", k->channelID).u("channelType", k->channelType)
        .u3("cluster", k->clusterX, k->clusterY, k->clusterZ)
        .u("clusterSchedulingPolicy", k->clusterSchedulingPolicy).u("localMemoryTotal_v2", k->localMemoryTotal_v2)
        .u("maxPotentialClusterSize", k->maxPotentialClusterSize).u("maxActiveClusters", k->maxActiveClusters)
        .u("isDeviceLaunched", k->isDeviceLaunched).done();
}

static std::string memcpyLine(const CUpti_ActivityMemcpy6* m) {
    return Json().str("kind", "memcpy").u("cuptiKind", m->kind)
        .u("start", m->start).u("end", m->end).u("correlation", m->correlationId)
        .u("device", m->deviceId).u("stream", m->streamId).u("bytes", m->bytes)
        .u("copyKind", m->copyKind).u("srcKind", m->srcKind).u("dstKind", m->dstKind)
        .u("context", m->contextId).u("flags", m->flags).u("runtimeCorrelationId", m->runtimeCorrelationId)
        .u("graphNodeId", m->graphNodeId).u("graphId", m->graphId).u("channelID", m->channelID)
        .u("channelType", m->channelType).u("isDeviceLaunched", m->isDeviceLaunched)
        .u("copyCount", m->copyCount).done();
}

static std::string memcpyP2pLine(const CUpti_ActivityMemcpyPtoP4* m) {
    return Json().str("kind", "memcpy_p2p").u("cuptiKind", m->kind)
        .u("start", m->start).u("end", m->end).u("correlation", m->correlationId)
        .u("device", m->deviceId).u("stream", m->streamId).u("bytes", m->bytes)
        .u("copyKind", m->copyKind).u("srcKind", m->srcKind).u("dstKind", m->dstKind)
        .u("context", m->contextId).u("flags", m->flags)
        .u("srcDeviceId", m->srcDeviceId).u("srcContextId", m->srcContextId)
        .u("dstDeviceId", m->dstDeviceId).u("dstContextId", m->dstContextId)
        .u("graphNodeId", m->graphNodeId).u("graphId", m->graphId).u("channelID", m->channelID)
        .u("channelType", m->channelType).done();
}

static std::string memsetLine(const CUpti_ActivityMemset4* m) {
    return Json().str("kind", "memset").u("cuptiKind", m->kind)
        .u("start", m->start).u("end", m->end).u("correlation", m->correlationId)
        .u("device", m->deviceId).u("stream", m->streamId).u("bytes", m->bytes)
        .u("value", m->value).u("memoryKind", m->memoryKind)
        .u("context", m->contextId).u("flags", m->flags)
        .u("graphNodeId", m->graphNodeId).u("graphId", m->graphId).u("channelID", m->channelID)
        .u("channelType", m->channelType).u("isDeviceLaunched", m->isDeviceLaunched).done();
}

static std::string apiLine(const CUpti_ActivityAPI* a, bool runtime) {
    std::string name = apiName(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid);
    return Json().str("kind", runtime ? "runtime" : "driver").u("cuptiKind", a->kind)
        .u("start", a->start).u("end", a->end).u("correlation", a->correlationId)
        .u("cbid", a->cbid).u("thread", a->threadId).str("name", name.c_str())
        .u("processId", a->processId).u("returnValue", a->returnValue).done();
}

static std::string externalLine(const CUpti_ActivityExternalCorrelation* x) {
    return Json().str("kind", "external_correlation").u("cuptiKind", x->kind)
        .u("externalKind", x->externalKind).u("externalId", x->externalId)
        .u("correlation", x->correlationId).u("reserved", x->reserved).done();
}

static std::string syncLine(const CUpti_ActivitySynchronization2* s) {
    return Json().str("kind", "synchronization").u("cuptiKind", s->kind)
        .u("type", s->type).u("start", s->start).u("end", s->end).u("correlation", s->correlationId)
        .u("context", s->contextId).u("stream", s->streamId).u("cudaEventId", s->cudaEventId)
        .u("cudaEventSyncId", s->cudaEventSyncId).u("returnValue", s->returnValue).done();
}

static std::string overheadLine(const CUpti_ActivityOverhead3* o) {
    Json j;
    j.str("kind", "overhead").u("cuptiKind", o->kind)
        .u("overheadKind", o->overheadKind).u("objectKind", o->objectKind).raw("objectId", objectId(o->objectId))
        .u("start", o->start).u("end", o->end).u("correlation", o->correlationId).u("reserved0", o->reserved0)
        .u("overheadData", reinterpret_cast<uint64_t>(o->overheadData));
    if (o->overheadKind == CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL && o->overheadData) {
        auto* c = static_cast<const CUpti_ActivityOverheadCommandBufferFullData*>(o->overheadData);
        j.raw("commandBufferFull", Json().u("commandBufferLength", c->commandBufferLength)
            .u("channelID", c->channelID).u("channelType", c->channelType).done());
    }
    return j.done();
}

static std::string markerLine(const CUpti_ActivityMarker2* m) {
    rememberString("marker", "name", m->name);
    rememberString("marker", "domain", m->domain);
    return Json().str("kind", "marker").u("cuptiKind", m->kind)
        .u("flags", m->flags).u("timestamp", m->timestamp).u("id", m->id)
        .u("objectKind", m->objectKind).raw("objectId", objectId(m->objectId)).u("pad", m->pad)
        .str("name", m->name).str("domain", m->domain)
        .u("namePtr", reinterpret_cast<uint64_t>(m->name)).u("domainPtr", reinterpret_cast<uint64_t>(m->domain))
        .done();
}

static std::string markerDataLine(const CUpti_ActivityMarkerData2* m) {
    Json payload;
    payload.u("raw", m->payload.metricValueUint64);
    switch (m->payloadKind) {
        case CUPTI_METRIC_VALUE_KIND_DOUBLE: payload.d("double", m->payload.metricValueDouble); break;
        case CUPTI_METRIC_VALUE_KIND_INT64: payload.i("int64", m->payload.metricValueInt64); break;
        case CUPTI_METRIC_VALUE_KIND_PERCENT: payload.d("percent", m->payload.metricValuePercent); break;
        default: break;
    }
    return Json().str("kind", "marker_data").u("cuptiKind", m->kind)
        .u("flags", m->flags).u("id", m->id).u("payloadKind", m->payloadKind).raw("payload", payload.done())
        .u("color", m->color).u("category", m->category).u("cuptiDomainId", m->cuptiDomainId)
        .u("padding", m->padding).done();
}

static std::string memoryLine(const CUpti_ActivityMemory4* m) {
    rememberString("memory2", "name", m->name);
    rememberString("memory2", "source", m->source);
    const auto& p = m->memoryPoolConfig;
    std::string pool = Json().u("memoryPoolType", p.memoryPoolType).u("address", p.address)
        .u("releaseThreshold", p.releaseThreshold).u("size", p.pool.size).u("utilizedSize", p.utilizedSize).done();
    return Json().str("kind", "memory2").u("cuptiKind", m->kind)
        .u("memoryOperationType", m->memoryOperationType).u("memoryKind", m->memoryKind)
        .u("correlation", m->correlationId).u("address", m->address).u("bytes", m->bytes)
        .u("timestamp", m->timestamp).u("PC", m->PC).u("processId", m->processId)
        .u("device", m->deviceId).u("context", m->contextId).u("stream", m->streamId)
        .str("name", m->name).u("namePtr", reinterpret_cast<uint64_t>(m->name)).u("isAsync", m->isAsync)
        .raw("memoryPoolConfig", pool).str("source", m->source)
        .u("sourcePtr", reinterpret_cast<uint64_t>(m->source)).done();
}

#ifndef KINDS_NO_UM
static std::string unifiedMemoryLine(const CUpti_ActivityUnifiedMemoryCounter3* m) {
    return Json().str("kind", "unified_memory").u("cuptiKind", m->kind)
        .u("counterKind", m->counterKind).u("value", m->value).u("start", m->start).u("end", m->end)
        .u("address", m->address).u("srcId", m->srcId).u("dstId", m->dstId).u("streamId", m->streamId)
        .u("processId", m->processId).u("flags", m->flags).u("pad", m->pad)
        .raw("processors", "[" + std::to_string(m->processors[0]) + "," + std::to_string(m->processors[1]) + "," +
                               std::to_string(m->processors[2]) + "," + std::to_string(m->processors[3]) + "," +
                               std::to_string(m->processors[4]) + "]").done();
}
#endif

static std::string recordLine(const CUpti_Activity* r, std::string& kindName) {
    switch (r->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            kindName = "kernel"; return kernelLine(reinterpret_cast<const CUpti_ActivityKernel10*>(r));
        case CUPTI_ACTIVITY_KIND_MEMCPY:
            kindName = "memcpy"; return memcpyLine(reinterpret_cast<const CUpti_ActivityMemcpy6*>(r));
        case CUPTI_ACTIVITY_KIND_MEMCPY2:
            kindName = "memcpy_p2p"; return memcpyP2pLine(reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(r));
        case CUPTI_ACTIVITY_KIND_MEMSET:
            kindName = "memset"; return memsetLine(reinterpret_cast<const CUpti_ActivityMemset4*>(r));
        case CUPTI_ACTIVITY_KIND_RUNTIME:
            kindName = "runtime"; return apiLine(reinterpret_cast<const CUpti_ActivityAPI*>(r), true);
        case CUPTI_ACTIVITY_KIND_DRIVER:
            kindName = "driver"; return apiLine(reinterpret_cast<const CUpti_ActivityAPI*>(r), false);
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
            kindName = "external_correlation";
            return externalLine(reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(r));
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
            kindName = "synchronization"; return syncLine(reinterpret_cast<const CUpti_ActivitySynchronization2*>(r));
        case CUPTI_ACTIVITY_KIND_OVERHEAD:
            kindName = "overhead"; return overheadLine(reinterpret_cast<const CUpti_ActivityOverhead3*>(r));
        case CUPTI_ACTIVITY_KIND_MARKER:
            kindName = "marker"; return markerLine(reinterpret_cast<const CUpti_ActivityMarker2*>(r));
        case CUPTI_ACTIVITY_KIND_MARKER_DATA:
            kindName = "marker_data"; return markerDataLine(reinterpret_cast<const CUpti_ActivityMarkerData2*>(r));
        case CUPTI_ACTIVITY_KIND_MEMORY2:
            kindName = "memory2"; return memoryLine(reinterpret_cast<const CUpti_ActivityMemory4*>(r));
#ifndef KINDS_NO_UM
        case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
            kindName = "unified_memory";
            return unifiedMemoryLine(reinterpret_cast<const CUpti_ActivityUnifiedMemoryCounter3*>(r));
#endif
        default:
            kindName = "unknown_" + std::to_string(r->kind);
            return Json().str("kind", "unknown").u("cuptiKind", r->kind).done();
    }
}

// ---------------------------------------------------------------------------------------------
// CUPTI buffer callbacks.

static void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *buffer = static_cast<uint8_t*>(aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxNumRecords = 0;
}

static void writeFrame(const uint8_t* bytes, uint64_t length) {
    uint32_t vendor = 1, reserved = 0;  // 1 = CUPTI; fields little-endian as x86-64 stores them
    fwrite(&vendor, 4, 1, g.fltrbuf);
    fwrite(&reserved, 4, 1, g.fltrbuf);
    fwrite(&length, 8, 1, g.fltrbuf);
    fwrite(bytes, 1, length, g.fltrbuf);
}

static void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t* buffer, size_t /*size*/,
                                     size_t validSize) {
    std::lock_guard<std::mutex> hold(g.lock);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, streamId, &dropped) == CUPTI_SUCCESS) g.droppedByCupti += dropped;
    if (g.closed) {
        if (validSize > 0) g.afterClose += validSize;
        free(buffer);
        return;
    }
    if (validSize > 0) {
        writeFrame(buffer, validSize);
        g.buffers++;
        g.bytes += validSize;
        CUpti_Activity* record = nullptr;
        for (;;) {
            CUptiResult r = cuptiActivityGetNextRecord(buffer, validSize, &record);
            if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
            if (r != CUPTI_SUCCESS) {
                fprintf(stderr, "cuptiActivityGetNextRecord: %s (buffer %lu)\n", resultString(r), g.buffers);
                break;
            }
            std::string kind;
            std::string line = recordLine(record, kind);
            fprintf(g.truth, "%s\n", line.c_str());
            g.recordsPerKind[kind]++;
        }
    }
    free(buffer);
}

// ---------------------------------------------------------------------------------------------
// Host ops: an op pushes its External id (CUSTOM0) while it runs; lines written when it ends.

class HostOps {
  public:
    explicit HostOps(FILE* out) : out_(out), tid_(static_cast<long>(syscall(SYS_gettid))) {}
    void windowStart() { fprintf(out_, "{\"window_start\":%" PRIu64 "}\n", now()); }
    void windowEnd() { fprintf(out_, "{\"window_end\":%" PRIu64 "}\n", now()); }
    void begin(const char* name) {
        Open op{name, next_++, 0};
        CUPTI_CHECK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, op.id));
        op.start = now();
        open_.push_back(op);
    }
    void end() {
        uint64_t stop = now();
        Open op = open_.back();
        open_.pop_back();
        uint64_t popped = 0;
        CUPTI_CHECK(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped));
        if (popped != op.id) fprintf(stderr, "op %s: popped External id %" PRIu64 ", pushed %" PRIu64 "\n",
                                     op.name.c_str(), popped, op.id);
        fprintf(out_, "%s\n", Json().str("name", op.name.c_str()).u("external_id", op.id).i("thread", tid_)
                                   .str("thread_name", "main").u("start", op.start).u("end", stop).done().c_str());
    }
    unsigned long long count() const { return next_; }
  private:
    struct Open { std::string name; uint64_t id; uint64_t start; };
    static uint64_t now() { uint64_t t = 0; cuptiGetTimestamp(&t); return t; }
    FILE* out_;
    long tid_;
    uint64_t next_ = 0;
    std::vector<Open> open_;
};

struct Scope {
    HostOps& ops;
    Scope(HostOps& o, const char* name) : ops(o) { ops.begin(name); }
    ~Scope() { ops.end(); }
};

// ---------------------------------------------------------------------------------------------
// Kernels.

__global__ void fill(float* x, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

__global__ void axpy(float* y, const float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

// Busy for about `cycles` SM clocks, so that a wait on it is a real wait.
__global__ void spin(long long cycles, float* sink) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
    if (threadIdx.x == 0 && sink) sink[blockIdx.x] = static_cast<float>(t0 & 1);
}

static int blocksFor(int n) { return (n + 255) / 256; }

// ---------------------------------------------------------------------------------------------
// Kinds to arm; a kind CUPTI refuses is logged and the capture goes on without it.

struct KindSetting { CUpti_ActivityKind kind; const char* name; CUptiResult result; };

#ifndef KINDS_NO_UM
// Unified-memory counters must be configured before the kind is enabled; CUPTI refuses the kind
// (and this logs why) where the platform has no unified-memory profiling.
static CUptiResult configureUnifiedMemoryCounters() {
    const CUpti_ActivityUnifiedMemoryCounterKind wanted[] = {
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD,
    };
    const size_t n = sizeof wanted / sizeof wanted[0];
    CUpti_ActivityUnifiedMemoryCounterConfig config[n];
    memset(config, 0, sizeof config);
    for (size_t i = 0; i < n; i++) {
        config[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
        config[i].kind = wanted[i];
        config[i].deviceId = 0;
        config[i].enable = 1;
    }
    CUptiResult r = cuptiActivityConfigureUnifiedMemoryCounter(config, static_cast<uint32_t>(n));
    fprintf(stderr, "cuptiActivityConfigureUnifiedMemoryCounter(%zu counters): %s\n", n, resultString(r));
    return r;
}
#endif

static std::vector<KindSetting> armKinds() {
    std::vector<KindSetting> kinds = {
        {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", CUPTI_SUCCESS},
        {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", CUPTI_SUCCESS},
        {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", CUPTI_SUCCESS},
        {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", CUPTI_SUCCESS},
        {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", CUPTI_SUCCESS},
        {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", CUPTI_SUCCESS},
        {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", CUPTI_SUCCESS},
        {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", CUPTI_SUCCESS},
        {CUPTI_ACTIVITY_KIND_MARKER, "MARKER", CUPTI_SUCCESS},
        {CUPTI_ACTIVITY_KIND_MARKER_DATA, "MARKER_DATA", CUPTI_SUCCESS},
        {CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2", CUPTI_SUCCESS},
        {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", CUPTI_SUCCESS},
    };
    for (auto& k : kinds) {
        k.result = cuptiActivityEnable(k.kind);
        fprintf(stderr, "cuptiActivityEnable(%s = %d): %s\n", k.name, static_cast<int>(k.kind), resultString(k.result));
    }
    return kinds;
}

// ---------------------------------------------------------------------------------------------
// Side files.

static FILE* openOut(const std::string& dir, const std::string& name, const char* suffix) {
    std::string path = (dir.empty() ? "" : dir + "/") + name + suffix;
    FILE* f = fopen(path.c_str(), "wb");
    if (!f) { perror(path.c_str()); exit(2); }
    return f;
}

#define LAYOUT_FIELD(S, F) \
    out += std::string(first ? "" : ",\n") + "    {\"field\": \"" #F "\", \"offset\": " + \
           std::to_string(offsetof(S, F)) + ", \"size\": " + std::to_string(sizeof(static_cast<S*>(nullptr)->F)) + "}"; \
    first = false;
#define LAYOUT_BEGIN(S) \
    { out += std::string(firstStruct ? "" : ",\n") + "  \"" #S "\": {\"sizeof\": " + std::to_string(sizeof(S)) + \
             ", \"fields\": [\n"; firstStruct = false; bool first = true;
#define LAYOUT_END out += "\n  ]}"; }

static std::string layouts() {
    std::string out = "{\n";
    bool firstStruct = true;
    LAYOUT_BEGIN(CUpti_Activity)
    LAYOUT_FIELD(CUpti_Activity, kind)
    LAYOUT_END
    LAYOUT_BEGIN(CUpti_ActivityKernel10)
    LAYOUT_FIELD(CUpti_ActivityKernel10, kind)
    LAYOUT_FIELD(CUpti_ActivityKernel10, cacheConfig)
    LAYOUT_FIELD(CUpti_ActivityKernel10, sharedMemoryConfig)
    LAYOUT_FIELD(CUpti_ActivityKernel10, registersPerThread)
    LAYOUT_FIELD(CUpti_ActivityKernel10, partitionedGlobalCacheRequested)
    LAYOUT_FIELD(CUpti_ActivityKernel10, partitionedGlobalCacheExecuted)
    LAYOUT_FIELD(CUpti_ActivityKernel10, start)
    LAYOUT_FIELD(CUpti_ActivityKernel10, end)
    LAYOUT_FIELD(CUpti_ActivityKernel10, completed)
    LAYOUT_FIELD(CUpti_ActivityKernel10, deviceId)
    LAYOUT_FIELD(CUpti_ActivityKernel10, contextId)
    LAYOUT_FIELD(CUpti_ActivityKernel10, streamId)
    LAYOUT_FIELD(CUpti_ActivityKernel10, gridX)
    LAYOUT_FIELD(CUpti_ActivityKernel10, gridY)
    LAYOUT_FIELD(CUpti_ActivityKernel10, gridZ)
    LAYOUT_FIELD(CUpti_ActivityKernel10, blockX)
    LAYOUT_FIELD(CUpti_ActivityKernel10, blockY)
    LAYOUT_FIELD(CUpti_ActivityKernel10, blockZ)
    LAYOUT_FIELD(CUpti_ActivityKernel10, staticSharedMemory)
    LAYOUT_FIELD(CUpti_ActivityKernel10, dynamicSharedMemory)
    LAYOUT_FIELD(CUpti_ActivityKernel10, localMemoryPerThread)
    LAYOUT_FIELD(CUpti_ActivityKernel10, localMemoryTotal)
    LAYOUT_FIELD(CUpti_ActivityKernel10, correlationId)
    LAYOUT_FIELD(CUpti_ActivityKernel10, gridId)
    LAYOUT_FIELD(CUpti_ActivityKernel10, name)
    LAYOUT_FIELD(CUpti_ActivityKernel10, reserved0)
    LAYOUT_FIELD(CUpti_ActivityKernel10, queued)
    LAYOUT_FIELD(CUpti_ActivityKernel10, submitted)
    LAYOUT_FIELD(CUpti_ActivityKernel10, launchType)
    LAYOUT_FIELD(CUpti_ActivityKernel10, isSharedMemoryCarveoutRequested)
    LAYOUT_FIELD(CUpti_ActivityKernel10, sharedMemoryCarveoutRequested)
    LAYOUT_FIELD(CUpti_ActivityKernel10, padding)
    LAYOUT_FIELD(CUpti_ActivityKernel10, sharedMemoryExecuted)
    LAYOUT_FIELD(CUpti_ActivityKernel10, graphNodeId)
    LAYOUT_FIELD(CUpti_ActivityKernel10, shmemLimitConfig)
    LAYOUT_FIELD(CUpti_ActivityKernel10, graphId)
    LAYOUT_FIELD(CUpti_ActivityKernel10, pAccessPolicyWindow)
    LAYOUT_FIELD(CUpti_ActivityKernel10, channelID)
    LAYOUT_FIELD(CUpti_ActivityKernel10, channelType)
    LAYOUT_FIELD(CUpti_ActivityKernel10, clusterX)
    LAYOUT_FIELD(CUpti_ActivityKernel10, clusterY)
    LAYOUT_FIELD(CUpti_ActivityKernel10, clusterZ)
    LAYOUT_FIELD(CUpti_ActivityKernel10, clusterSchedulingPolicy)
    LAYOUT_FIELD(CUpti_ActivityKernel10, localMemoryTotal_v2)
    LAYOUT_FIELD(CUpti_ActivityKernel10, maxPotentialClusterSize)
    LAYOUT_FIELD(CUpti_ActivityKernel10, maxActiveClusters)
    LAYOUT_FIELD(CUpti_ActivityKernel10, isDeviceLaunched)
    LAYOUT_FIELD(CUpti_ActivityKernel10, padding3)
    LAYOUT_END
    LAYOUT_BEGIN(CUpti_ActivityMemcpy6)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, kind)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, copyKind)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, srcKind)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, dstKind)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, flags)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, bytes)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, start)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, end)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, deviceId)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, contextId)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, streamId)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, correlationId)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, runtimeCorrelationId)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, reserved0)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, graphNodeId)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, graphId)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, channelID)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, channelType)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, isDeviceLaunched)
    LAYOUT_FIELD(CUpti_ActivityMemcpy6, copyCount)
    LAYOUT_END
#ifndef KINDS_NO_UM
    LAYOUT_BEGIN(CUpti_ActivityUnifiedMemoryCounter3)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, kind)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, counterKind)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, value)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, start)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, end)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, address)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, srcId)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, dstId)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, streamId)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, processId)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, flags)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, pad)
    LAYOUT_FIELD(CUpti_ActivityUnifiedMemoryCounter3, processors)
    LAYOUT_END
#endif
    LAYOUT_BEGIN(CUpti_ActivityMemcpyPtoP4)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, kind)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, copyKind)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, srcKind)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, dstKind)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, flags)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, bytes)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, start)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, end)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, deviceId)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, contextId)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, streamId)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, srcDeviceId)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, srcContextId)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, dstDeviceId)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, dstContextId)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, correlationId)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, reserved0)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, graphNodeId)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, graphId)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, channelID)
    LAYOUT_FIELD(CUpti_ActivityMemcpyPtoP4, channelType)
    LAYOUT_END
    LAYOUT_BEGIN(CUpti_ActivityMemset4)
    LAYOUT_FIELD(CUpti_ActivityMemset4, kind)
    LAYOUT_FIELD(CUpti_ActivityMemset4, value)
    LAYOUT_FIELD(CUpti_ActivityMemset4, bytes)
    LAYOUT_FIELD(CUpti_ActivityMemset4, start)
    LAYOUT_FIELD(CUpti_ActivityMemset4, end)
    LAYOUT_FIELD(CUpti_ActivityMemset4, deviceId)
    LAYOUT_FIELD(CUpti_ActivityMemset4, contextId)
    LAYOUT_FIELD(CUpti_ActivityMemset4, streamId)
    LAYOUT_FIELD(CUpti_ActivityMemset4, correlationId)
    LAYOUT_FIELD(CUpti_ActivityMemset4, flags)
    LAYOUT_FIELD(CUpti_ActivityMemset4, memoryKind)
    LAYOUT_FIELD(CUpti_ActivityMemset4, reserved0)
    LAYOUT_FIELD(CUpti_ActivityMemset4, graphNodeId)
    LAYOUT_FIELD(CUpti_ActivityMemset4, graphId)
    LAYOUT_FIELD(CUpti_ActivityMemset4, channelID)
    LAYOUT_FIELD(CUpti_ActivityMemset4, channelType)
    LAYOUT_FIELD(CUpti_ActivityMemset4, isDeviceLaunched)
    LAYOUT_END
    LAYOUT_BEGIN(CUpti_ActivityAPI)
    LAYOUT_FIELD(CUpti_ActivityAPI, kind)
    LAYOUT_FIELD(CUpti_ActivityAPI, cbid)
    LAYOUT_FIELD(CUpti_ActivityAPI, start)
    LAYOUT_FIELD(CUpti_ActivityAPI, end)
    LAYOUT_FIELD(CUpti_ActivityAPI, processId)
    LAYOUT_FIELD(CUpti_ActivityAPI, threadId)
    LAYOUT_FIELD(CUpti_ActivityAPI, correlationId)
    LAYOUT_FIELD(CUpti_ActivityAPI, returnValue)
    LAYOUT_END
    LAYOUT_BEGIN(CUpti_ActivityExternalCorrelation)
    LAYOUT_FIELD(CUpti_ActivityExternalCorrelation, kind)
    LAYOUT_FIELD(CUpti_ActivityExternalCorrelation, externalKind)
    LAYOUT_FIELD(CUpti_ActivityExternalCorrelation, externalId)
    LAYOUT_FIELD(CUpti_ActivityExternalCorrelation, correlationId)
    LAYOUT_FIELD(CUpti_ActivityExternalCorrelation, reserved)
    LAYOUT_END
    LAYOUT_BEGIN(CUpti_ActivitySynchronization2)
    LAYOUT_FIELD(CUpti_ActivitySynchronization2, kind)
    LAYOUT_FIELD(CUpti_ActivitySynchronization2, type)
    LAYOUT_FIELD(CUpti_ActivitySynchronization2, start)
    LAYOUT_FIELD(CUpti_ActivitySynchronization2, end)
    LAYOUT_FIELD(CUpti_ActivitySynchronization2, correlationId)
    LAYOUT_FIELD(CUpti_ActivitySynchronization2, contextId)
    LAYOUT_FIELD(CUpti_ActivitySynchronization2, streamId)
    LAYOUT_FIELD(CUpti_ActivitySynchronization2, cudaEventId)
    LAYOUT_FIELD(CUpti_ActivitySynchronization2, cudaEventSyncId)
    LAYOUT_FIELD(CUpti_ActivitySynchronization2, returnValue)
    LAYOUT_FIELD(CUpti_ActivitySynchronization2, pad)
    LAYOUT_END
    LAYOUT_BEGIN(CUpti_ActivityOverhead3)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, kind)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, overheadKind)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, objectKind)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, objectId)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, objectId.pt.processId)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, objectId.pt.threadId)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, objectId.dcs.deviceId)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, objectId.dcs.contextId)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, objectId.dcs.streamId)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, start)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, end)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, correlationId)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, reserved0)
    LAYOUT_FIELD(CUpti_ActivityOverhead3, overheadData)
    LAYOUT_END
    LAYOUT_BEGIN(CUpti_ActivityOverheadCommandBufferFullData)
    LAYOUT_FIELD(CUpti_ActivityOverheadCommandBufferFullData, commandBufferLength)
    LAYOUT_FIELD(CUpti_ActivityOverheadCommandBufferFullData, channelID)
    LAYOUT_FIELD(CUpti_ActivityOverheadCommandBufferFullData, channelType)
    LAYOUT_END
    LAYOUT_BEGIN(CUpti_ActivityMarker2)
    LAYOUT_FIELD(CUpti_ActivityMarker2, kind)
    LAYOUT_FIELD(CUpti_ActivityMarker2, flags)
    LAYOUT_FIELD(CUpti_ActivityMarker2, timestamp)
    LAYOUT_FIELD(CUpti_ActivityMarker2, id)
    LAYOUT_FIELD(CUpti_ActivityMarker2, objectKind)
    LAYOUT_FIELD(CUpti_ActivityMarker2, objectId)
    LAYOUT_FIELD(CUpti_ActivityMarker2, objectId.pt.processId)
    LAYOUT_FIELD(CUpti_ActivityMarker2, objectId.pt.threadId)
    LAYOUT_FIELD(CUpti_ActivityMarker2, objectId.dcs.deviceId)
    LAYOUT_FIELD(CUpti_ActivityMarker2, objectId.dcs.contextId)
    LAYOUT_FIELD(CUpti_ActivityMarker2, objectId.dcs.streamId)
    LAYOUT_FIELD(CUpti_ActivityMarker2, pad)
    LAYOUT_FIELD(CUpti_ActivityMarker2, name)
    LAYOUT_FIELD(CUpti_ActivityMarker2, domain)
    LAYOUT_END
    LAYOUT_BEGIN(CUpti_ActivityMarkerData2)
    LAYOUT_FIELD(CUpti_ActivityMarkerData2, kind)
    LAYOUT_FIELD(CUpti_ActivityMarkerData2, flags)
    LAYOUT_FIELD(CUpti_ActivityMarkerData2, id)
    LAYOUT_FIELD(CUpti_ActivityMarkerData2, payloadKind)
    LAYOUT_FIELD(CUpti_ActivityMarkerData2, payload)
    LAYOUT_FIELD(CUpti_ActivityMarkerData2, color)
    LAYOUT_FIELD(CUpti_ActivityMarkerData2, category)
    LAYOUT_FIELD(CUpti_ActivityMarkerData2, cuptiDomainId)
    LAYOUT_FIELD(CUpti_ActivityMarkerData2, padding)
    LAYOUT_END
    LAYOUT_BEGIN(CUpti_ActivityMemory4)
    LAYOUT_FIELD(CUpti_ActivityMemory4, kind)
    LAYOUT_FIELD(CUpti_ActivityMemory4, memoryOperationType)
    LAYOUT_FIELD(CUpti_ActivityMemory4, memoryKind)
    LAYOUT_FIELD(CUpti_ActivityMemory4, correlationId)
    LAYOUT_FIELD(CUpti_ActivityMemory4, address)
    LAYOUT_FIELD(CUpti_ActivityMemory4, bytes)
    LAYOUT_FIELD(CUpti_ActivityMemory4, timestamp)
    LAYOUT_FIELD(CUpti_ActivityMemory4, PC)
    LAYOUT_FIELD(CUpti_ActivityMemory4, processId)
    LAYOUT_FIELD(CUpti_ActivityMemory4, deviceId)
    LAYOUT_FIELD(CUpti_ActivityMemory4, contextId)
    LAYOUT_FIELD(CUpti_ActivityMemory4, streamId)
    LAYOUT_FIELD(CUpti_ActivityMemory4, name)
    LAYOUT_FIELD(CUpti_ActivityMemory4, isAsync)
    LAYOUT_FIELD(CUpti_ActivityMemory4, memoryPoolConfig)
    LAYOUT_FIELD(CUpti_ActivityMemory4, memoryPoolConfig.memoryPoolType)
    LAYOUT_FIELD(CUpti_ActivityMemory4, memoryPoolConfig.address)
    LAYOUT_FIELD(CUpti_ActivityMemory4, memoryPoolConfig.releaseThreshold)
    LAYOUT_FIELD(CUpti_ActivityMemory4, memoryPoolConfig.pool.size)
    LAYOUT_FIELD(CUpti_ActivityMemory4, memoryPoolConfig.pool.processId)
    LAYOUT_FIELD(CUpti_ActivityMemory4, memoryPoolConfig.utilizedSize)
    LAYOUT_FIELD(CUpti_ActivityMemory4, source)
    LAYOUT_END
    return out + "\n}\n";
}

#define ENUM_VALUE(E) out += std::string(first ? "" : ",\n") + "    \"" #E "\": " + std::to_string(static_cast<long long>(E)); first = false;
#define ENUM_BEGIN(T) { out += std::string(firstEnum ? "" : ",\n") + "  \"" #T "\": {\n"; firstEnum = false; bool first = true;
#define ENUM_END out += "\n  }"; }

static std::string enums() {
    std::string out = "{\n";
    bool firstEnum = true;
    ENUM_BEGIN(CUpti_ActivityKind)
    ENUM_VALUE(CUPTI_ACTIVITY_KIND_MEMCPY) ENUM_VALUE(CUPTI_ACTIVITY_KIND_MEMSET)
    ENUM_VALUE(CUPTI_ACTIVITY_KIND_KERNEL) ENUM_VALUE(CUPTI_ACTIVITY_KIND_DRIVER)
    ENUM_VALUE(CUPTI_ACTIVITY_KIND_RUNTIME) ENUM_VALUE(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
    ENUM_VALUE(CUPTI_ACTIVITY_KIND_MARKER) ENUM_VALUE(CUPTI_ACTIVITY_KIND_MARKER_DATA)
    ENUM_VALUE(CUPTI_ACTIVITY_KIND_OVERHEAD) ENUM_VALUE(CUPTI_ACTIVITY_KIND_MEMCPY2)
    ENUM_VALUE(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) ENUM_VALUE(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)
    ENUM_VALUE(CUPTI_ACTIVITY_KIND_MEMORY2) ENUM_VALUE(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)
    ENUM_END
#ifndef KINDS_NO_UM
    ENUM_BEGIN(CUpti_ActivityUnifiedMemoryCounterKind)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_UNKNOWN)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD)
    ENUM_END
    ENUM_BEGIN(CUpti_ActivityUnifiedMemoryAccessType)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_UNKNOWN)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_READ)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_WRITE)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_ATOMIC)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_PREFETCH)
    ENUM_END
    ENUM_BEGIN(CUpti_ActivityUnifiedMemoryMigrationCause)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_UNKNOWN)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION)
    ENUM_VALUE(CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_ACCESS_COUNTERS)
    ENUM_END
#endif
    ENUM_BEGIN(CUpti_ActivitySynchronizationType)
    ENUM_VALUE(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN)
    ENUM_VALUE(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE)
    ENUM_VALUE(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT)
    ENUM_VALUE(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE)
    ENUM_VALUE(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE)
    ENUM_END
    ENUM_BEGIN(CUpti_ActivityOverheadKind)
    ENUM_VALUE(CUPTI_ACTIVITY_OVERHEAD_UNKNOWN) ENUM_VALUE(CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER)
    ENUM_VALUE(CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH) ENUM_VALUE(CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION)
    ENUM_VALUE(CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE)
    ENUM_VALUE(CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING)
    ENUM_VALUE(CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING) ENUM_VALUE(CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL)
    ENUM_VALUE(CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST) ENUM_VALUE(CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT)
    ENUM_END
    ENUM_BEGIN(CUpti_ActivityObjectKind)
    ENUM_VALUE(CUPTI_ACTIVITY_OBJECT_UNKNOWN) ENUM_VALUE(CUPTI_ACTIVITY_OBJECT_PROCESS)
    ENUM_VALUE(CUPTI_ACTIVITY_OBJECT_THREAD) ENUM_VALUE(CUPTI_ACTIVITY_OBJECT_DEVICE)
    ENUM_VALUE(CUPTI_ACTIVITY_OBJECT_CONTEXT) ENUM_VALUE(CUPTI_ACTIVITY_OBJECT_STREAM)
    ENUM_END
    ENUM_BEGIN(CUpti_ActivityMemoryOperationType)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
    ENUM_END
    ENUM_BEGIN(CUpti_ActivityMemoryKind)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN) ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_KIND_PINNED) ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_KIND_ARRAY) ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC) ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC)
    ENUM_END
    ENUM_BEGIN(CUpti_ActivityMemoryPoolType)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID) ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMORY_POOL_TYPE_IMPORTED)
    ENUM_END
    ENUM_BEGIN(CUpti_ActivityMemcpyKind)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN) ENUM_VALUE(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) ENUM_VALUE(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD)
    ENUM_VALUE(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH) ENUM_VALUE(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP)
    ENUM_END
    ENUM_BEGIN(CUpti_MetricValueKind)
    ENUM_VALUE(CUPTI_METRIC_VALUE_KIND_DOUBLE) ENUM_VALUE(CUPTI_METRIC_VALUE_KIND_UINT64)
    ENUM_VALUE(CUPTI_METRIC_VALUE_KIND_PERCENT) ENUM_VALUE(CUPTI_METRIC_VALUE_KIND_THROUGHPUT)
    ENUM_VALUE(CUPTI_METRIC_VALUE_KIND_INT64) ENUM_VALUE(CUPTI_METRIC_VALUE_KIND_UTILIZATION_LEVEL)
    ENUM_VALUE(CUPTI_METRIC_VALUE_KIND_NVTX_EXTENDED_PAYLOAD)
    ENUM_END
    ENUM_BEGIN(CUpti_ExternalCorrelationKind)
    ENUM_VALUE(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
    ENUM_END
    ENUM_BEGIN(CUpti_ActivityFlag)
    ENUM_VALUE(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) ENUM_VALUE(CUPTI_ACTIVITY_FLAG_MARKER_START)
    ENUM_VALUE(CUPTI_ACTIVITY_FLAG_MARKER_END) ENUM_VALUE(CUPTI_ACTIVITY_FLAG_MARKER_SYNC_ACQUIRE)
    ENUM_VALUE(CUPTI_ACTIVITY_FLAG_MARKER_COLOR_NONE) ENUM_VALUE(CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB)
    ENUM_END
    return out + "\n}\n";
}

static void writeDevices(FILE* f, const cudaDeviceProp& p) {
    fprintf(f, "{\n  \"deviceProperties\" : [ {\n");
    fprintf(f, "    \"id\" : 0,\n    \"name\" : %s,\n", jsonEscape(p.name).c_str());
    fprintf(f, "    \"totalGlobalMem\" : %zu,\n    \"computeMajor\" : %d,\n    \"computeMinor\" : %d,\n",
            p.totalGlobalMem, p.major, p.minor);
    fprintf(f, "    \"maxThreadsPerBlock\" : %d,\n    \"maxThreadsPerMultiprocessor\" : %d,\n",
            p.maxThreadsPerBlock, p.maxThreadsPerMultiProcessor);
    fprintf(f, "    \"regsPerBlock\" : %d,\n    \"warpSize\" : %d,\n    \"sharedMemPerBlock\" : %zu,\n",
            p.regsPerBlock, p.warpSize, p.sharedMemPerBlock);
    fprintf(f, "    \"numSms\" : %d,\n    \"regsPerMultiprocessor\" : %d,\n", p.multiProcessorCount,
            p.regsPerMultiprocessor);
    fprintf(f, "    \"sharedMemPerBlockOptin\" : %zu,\n    \"sharedMemPerMultiprocessor\" : %zu\n",
            p.sharedMemPerBlockOptin, p.sharedMemPerMultiprocessor);
    fprintf(f, "  } ]\n}");
}

// NVTX event attributes with a colour, a category and a 64-bit payload: what MARKER_DATA reports.
static nvtxEventAttributes_t nvtxAttributes(const char* message, uint32_t argb, uint32_t category, uint64_t payload) {
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = category;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = argb;
    a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    a.payload.ullValue = payload;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    return a;
}

// The driver API's context synchronize. Built with -DKINDS_NO_LIBCUDA (the runner's fallback when
// no libcuda.so can be linked) it is looked up in libcuda.so.1 at run time instead.
static CUresult contextSynchronize() {
#ifdef KINDS_NO_LIBCUDA
    using Fn = CUresult (*)();
    static Fn fn = nullptr;
    if (!fn) {
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
        if (lib) fn = reinterpret_cast<Fn>(dlsym(lib, "cuCtxSynchronize"));
        if (!fn) return CUDA_ERROR_NOT_FOUND;
    }
    return fn();
#else
    return cuCtxSynchronize();
#endif
}

static std::string cuptiLibraryPath() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &info) && info.dli_fname) return info.dli_fname;
    return "";
}

// ---------------------------------------------------------------------------------------------

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "--layouts") == 0) {  // no GPU needed: check the header's layouts
        std::string prefix = argc > 2 ? argv[2] : "cupti";
        FILE* f = openOut("", prefix, ".layouts.json");
        fputs(layouts().c_str(), f);
        fclose(f);
        f = openOut("", prefix, ".enums.json");
        fputs(enums().c_str(), f);
        fclose(f);
        return 0;
    }
    std::string name = argc > 1 ? argv[1] : "h200-kinds";
    std::string dir = argc > 2 ? argv[2] : ".";

    std::string injection = getenv("NVTX_INJECTION64_PATH") ? getenv("NVTX_INJECTION64_PATH") : "";
    if (injection.empty()) {
        injection = cuptiLibraryPath();
        if (!injection.empty()) setenv("NVTX_INJECTION64_PATH", injection.c_str(), 1);
    }
    fprintf(stderr, "NVTX_INJECTION64_PATH=%s\n", injection.c_str());

    FILE* f = openOut(dir, name, ".layouts.json");
    fputs(layouts().c_str(), f);
    fclose(f);
    f = openOut(dir, name, ".enums.json");
    fputs(enums().c_str(), f);
    fclose(f);

    g.fltrbuf = openOut(dir, name, ".fltrbuf");
    g.truth = openOut(dir, name, ".truth.jsonl");
    FILE* opsFile = openOut(dir, name, ".ops.jsonl");
    fwrite("FLTRBUF1", 1, 8, g.fltrbuf);

    uint32_t cuptiVersion = 0;
    cuptiGetVersion(&cuptiVersion);
    CUPTI_CHECK(cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted));
    std::vector<KindSetting> kinds = armKinds();

    HostOps ops(opsFile);
    ops.windowStart();

    const int n = 1 << 20;  // floats: 4 MiB buffers
    const size_t bytes = n * sizeof(float);
    float *dA = nullptr, *dB = nullptr, *dC = nullptr, *dSmall = nullptr, *hPinned = nullptr;
    std::vector<float> hPageable(n, 1.0f);
    cudaStream_t s1 = nullptr, s2 = nullptr, sg = nullptr;
    cudaEvent_t ev1 = nullptr, ev2 = nullptr;
    cudaDeviceProp props;
    memset(&props, 0, sizeof props);
    int runtimeVersion = 0, driverVersion = 0, deviceCount = 0;

    {
        Scope op(ops, "kinds::init");  // context creation and lazy loading land here
        CUDA_CHECK(cudaSetDevice(0));
        CUDA_CHECK(cudaFree(nullptr));
        CUDA_CHECK(cudaGetDeviceProperties(&props, 0));
        CUDA_CHECK(cudaRuntimeGetVersion(&runtimeVersion));
        CUDA_CHECK(cudaDriverGetVersion(&driverVersion));
        CUDA_CHECK(cudaGetDeviceCount(&deviceCount));
        CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&sg, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreate(&ev1));
        CUDA_CHECK(cudaEventCreateWithFlags(&ev2, cudaEventDisableTiming));
    }
#ifndef KINDS_NO_UM
    // CUPTI answers CUPTI_ERROR_NOT_READY to unified-memory counters before the driver is
    // initialized (seen on the H200 when armed with the other kinds): armed once kinds::init ran.
    if (configureUnifiedMemoryCounters() == CUPTI_SUCCESS) {
        KindSetting um{CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER, "UNIFIED_MEMORY_COUNTER", CUPTI_SUCCESS};
        um.result = cuptiActivityEnable(um.kind);
        fprintf(stderr, "cuptiActivityEnable(%s = %d): %s\n", um.name, static_cast<int>(um.kind), resultString(um.result));
        kinds.push_back(um);
    }
#endif
    {
        Scope op(ops, "kinds::alloc");
        CUDA_CHECK(cudaMalloc(&dA, bytes));
        CUDA_CHECK(cudaMalloc(&dB, bytes));
        CUDA_CHECK(cudaMalloc(&dC, bytes));
        CUDA_CHECK(cudaMalloc(&dSmall, 256));
        CUDA_CHECK(cudaMallocHost(&hPinned, bytes));
    }
    {
        Scope op(ops, "kinds::baseline");
        {
            Scope c(ops, "kinds::copy_h2d");
            CUDA_CHECK(cudaMemcpy(dA, hPageable.data(), bytes, cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpyAsync(dB, hPinned, bytes, cudaMemcpyHostToDevice, s1));
        }
        {
            Scope c(ops, "kinds::fill");
            fill<<<blocksFor(n), 256>>>(dC, 2.0f, n);
        }
        {
            Scope c(ops, "kinds::axpy");
            axpy<<<blocksFor(n), 256>>>(dC, dA, 0.5f, n);
        }
        {
            Scope c(ops, "kinds::zeros");
            CUDA_CHECK(cudaMemsetAsync(dSmall, 0, 256, s1));
        }
        {
            Scope c(ops, "kinds::copy_d2h");
            CUDA_CHECK(cudaMemcpyAsync(hPinned, dC, bytes, cudaMemcpyDeviceToHost, 0));
            CUDA_CHECK(cudaMemcpy(hPageable.data(), dC, 4096, cudaMemcpyDeviceToHost));
        }
    }
    const long long spinCycles = 400000;  // ~0.2 ms at ~2 GHz
    {
        Scope op(ops, "kinds::sync");
        {
            Scope c(ops, "kinds::stream_sync");
            spin<<<1, 32, 0, s1>>>(spinCycles, dSmall);
            CUDA_CHECK(cudaStreamSynchronize(s1));
        }
        {
            Scope c(ops, "kinds::event_sync");
            spin<<<1, 32, 0, s1>>>(spinCycles, dSmall);
            CUDA_CHECK(cudaEventRecord(ev1, s1));
            CUDA_CHECK(cudaEventSynchronize(ev1));
        }
        {
            Scope c(ops, "kinds::stream_wait_event");
            spin<<<1, 32, 0, s1>>>(spinCycles, dSmall);
            CUDA_CHECK(cudaEventRecord(ev2, s1));
            CUDA_CHECK(cudaStreamWaitEvent(s2, ev2, 0));
            scale<<<blocksFor(n), 256, 0, s2>>>(dC, 0.5f, n);
            CUDA_CHECK(cudaStreamSynchronize(s2));
        }
        {
            Scope c(ops, "kinds::event_query");
            spin<<<1, 32, 0, s1>>>(spinCycles, dSmall);
            CUDA_CHECK(cudaEventRecord(ev1, s1));
            while (cudaEventQuery(ev1) == cudaErrorNotReady) {
            }
        }
        {
            Scope c(ops, "kinds::device_sync");
            spin<<<1, 32, 0, s2>>>(spinCycles, dSmall);
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        {
            Scope c(ops, "kinds::context_sync");
            spin<<<1, 32, 0, s1>>>(spinCycles, dSmall);
            CUresult r = contextSynchronize();
            if (r != CUDA_SUCCESS) fprintf(stderr, "cuCtxSynchronize: %d\n", static_cast<int>(r));
        }
    }
    {
        Scope op(ops, "kinds::graph");
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        {
            // Captured, not run: CUPTI reports the API calls, the device work comes at launch.
            Scope c(ops, "kinds::graph_capture");
            CUDA_CHECK(cudaStreamBeginCapture(sg, cudaStreamCaptureModeGlobal));
            fill<<<blocksFor(n), 256, 0, sg>>>(dA, 1.0f, n);
            axpy<<<blocksFor(n), 256, 0, sg>>>(dB, dA, 2.0f, n);
            CUDA_CHECK(cudaMemcpyAsync(dC, dB, bytes, cudaMemcpyDeviceToDevice, sg));
            CUDA_CHECK(cudaMemsetAsync(dSmall, 0, 256, sg));
            scale<<<blocksFor(n), 256, 0, sg>>>(dC, 0.25f, n);
            CUDA_CHECK(cudaStreamEndCapture(sg, &graph));
        }
        {
            Scope c(ops, "kinds::graph_instantiate");
            CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        }
        {
            Scope c(ops, "kinds::graph_replay");
            for (int i = 0; i < 3; i++) {
                Scope l(ops, "kinds::graph_launch");
                CUDA_CHECK(cudaGraphLaunch(exec, sg));
            }
            CUDA_CHECK(cudaStreamSynchronize(sg));
        }
        CUDA_CHECK(cudaGraphExecDestroy(exec));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }
    {
        Scope op(ops, "kinds::nvtx");
        nvtxRangePushA("nvtx::outer");
        fill<<<blocksFor(n), 256>>>(dA, 3.0f, n);
        nvtxRangePushA("nvtx::inner");
        scale<<<blocksFor(n), 256>>>(dA, 2.0f, n);
        nvtxRangePop();
        nvtxRangePop();
        nvtxRangeId_t r = nvtxRangeStartA("nvtx::start_end");
        CUDA_CHECK(cudaMemsetAsync(dSmall, 1, 256, s1));
        nvtxRangeEnd(r);
        nvtxMarkA("nvtx::mark");
        nvtxEventAttributes_t ex = nvtxAttributes("nvtx::push_ex", 0xFF76B900u, 7, 42);
        nvtxRangePushEx(&ex);
        axpy<<<blocksFor(n), 256>>>(dB, dA, 1.0f, n);
        nvtxRangePop();
        nvtxDomainHandle_t domain = nvtxDomainCreateA("kinds.domain");
        nvtxEventAttributes_t dx = nvtxAttributes("nvtx::domain_range", 0xFF0000FFu, 3, 1234);
        nvtxDomainRangePushEx(domain, &dx);
        scale<<<blocksFor(n), 256>>>(dB, 0.5f, n);
        nvtxDomainRangePop(domain);
        nvtxEventAttributes_t sx = nvtxAttributes("nvtx::domain_start_end", 0xFFFF0000u, 4, 99);
        nvtxRangeId_t dr = nvtxDomainRangeStartEx(domain, &sx);
        fill<<<blocksFor(n), 256>>>(dC, 0.0f, n);
        nvtxDomainRangeEnd(domain, dr);
        CUDA_CHECK(cudaDeviceSynchronize());
        nvtxDomainDestroy(domain);
    }
    // A range with no enclosing op: its kernel has no External id.
    nvtxRangePushA("nvtx::no_op");
    fill<<<blocksFor(n), 256>>>(dA, 4.0f, n);
    nvtxRangePop();
    {
        Scope op(ops, "kinds::memory");
        const size_t sizes[] = {1u << 10, 64u << 10, 1u << 20, 16u << 20, 96u << 20};
        std::vector<void*> blocks;
        {
            Scope c(ops, "kinds::malloc");
            for (size_t s : sizes) {
                void* p = nullptr;
                CUDA_CHECK(cudaMalloc(&p, s));
                blocks.push_back(p);
            }
        }
        {
            Scope c(ops, "kinds::free");
            for (void* p : blocks) CUDA_CHECK(cudaFree(p));
        }
        {
            Scope c(ops, "kinds::malloc_async");
            const size_t asyncSizes[] = {4u << 10, 2u << 20, 32u << 20};
            std::vector<void*> async;
            for (size_t s : asyncSizes) {
                void* p = nullptr;
                CUDA_CHECK(cudaMallocAsync(&p, s, s1));
                async.push_back(p);
            }
            fill<<<blocksFor(n), 256, 0, s1>>>(static_cast<float*>(async[1]), 5.0f, (2 << 20) / 4);
            for (void* p : async) CUDA_CHECK(cudaFreeAsync(p, s1));
            CUDA_CHECK(cudaStreamSynchronize(s1));
        }
    }
#ifndef KINDS_NO_UM
    {
        // Managed memory: pages first touched on the host, then by a kernel (GPU page faults and
        // host-to-device migration), read back on the host (CPU page faults, device-to-host),
        // prefetched both ways, and copied with cudaMemcpy (a MEMCPY record of managed memory).
        Scope op(ops, "kinds::managed");
        const size_t managedBytes = 64u << 20;
        const int managedFloats = static_cast<int>(managedBytes / sizeof(float));
        float* m = nullptr;
        {
            Scope c(ops, "kinds::managed_alloc");
            CUDA_CHECK(cudaMallocManaged(&m, managedBytes));
        }
        if (m) {
            {
                Scope c(ops, "kinds::managed_host_write");
                for (int i = 0; i < managedFloats; i += 1024) m[i] = 1.0f;
            }
            {
                Scope c(ops, "kinds::managed_gpu_touch");
                scale<<<blocksFor(managedFloats), 256>>>(m, 2.0f, managedFloats);
                CUDA_CHECK(cudaDeviceSynchronize());
            }
            float sum = 0.0f;
            {
                Scope c(ops, "kinds::managed_host_read");
                for (int i = 0; i < managedFloats; i += 1024) sum += m[i];
            }
            {
                Scope c(ops, "kinds::managed_prefetch");
#if CUDART_VERSION >= 13000
                cudaMemLocation toDevice;
                memset(&toDevice, 0, sizeof toDevice);
                toDevice.type = cudaMemLocationTypeDevice;
                toDevice.id = 0;
                cudaMemLocation toHost;
                memset(&toHost, 0, sizeof toHost);
                toHost.type = cudaMemLocationTypeHost;
                toHost.id = 0;
                CUDA_CHECK(cudaMemPrefetchAsync(m, managedBytes, toDevice, 0, s1));
                CUDA_CHECK(cudaStreamSynchronize(s1));
                CUDA_CHECK(cudaMemPrefetchAsync(m, managedBytes, toHost, 0, s1));
#else
                CUDA_CHECK(cudaMemPrefetchAsync(m, managedBytes, 0, s1));
                CUDA_CHECK(cudaStreamSynchronize(s1));
                CUDA_CHECK(cudaMemPrefetchAsync(m, managedBytes, cudaCpuDeviceId, s1));
#endif
                CUDA_CHECK(cudaStreamSynchronize(s1));
            }
            {
                Scope c(ops, "kinds::managed_copy");
                CUDA_CHECK(cudaMemcpy(dA, m, bytes, cudaMemcpyDefault));
                CUDA_CHECK(cudaMemcpy(m, dB, bytes, cudaMemcpyDefault));
            }
            {
                Scope c(ops, "kinds::managed_free");
                CUDA_CHECK(cudaFree(m));
            }
            fprintf(stderr, "managed: host read sum %g\n", static_cast<double>(sum));
        }
    }
#endif
#ifndef KINDS_NO_LIBCUDA
    {
        // A second context on the same device and a copy between the two contexts: whether CUDA
        // and CUPTI report it as a peer-to-peer copy (MEMCPY2, with source and destination
        // contexts) on a one-GPU machine. Any refusal is logged, not counted as a failure.
        Scope op(ops, "kinds::context_peer");
        CUcontext primary = nullptr, other = nullptr;
        CUdevice dev = 0;
        CUresult r = cuCtxGetCurrent(&primary);
        if (r == CUDA_SUCCESS) r = cuDeviceGet(&dev, 0);
#if CUDA_VERSION >= 13000
        if (r == CUDA_SUCCESS) r = cuCtxCreate(&other, nullptr, 0, dev);
#else
        if (r == CUDA_SUCCESS) r = cuCtxCreate(&other, 0, dev);
#endif
        fprintf(stderr, "context_peer: second context: %d\n", static_cast<int>(r));
        if (r == CUDA_SUCCESS && other) {
            CUdeviceptr inOther = 0;
            r = cuMemAlloc(&inOther, bytes);  // the new context is current
            fprintf(stderr, "context_peer: cuMemAlloc in the second context: %d\n", static_cast<int>(r));
            CUcontext popped = nullptr;
            cuCtxPopCurrent(&popped);
            cuCtxSetCurrent(primary);
            if (r == CUDA_SUCCESS) {
                CUresult c1 = cuMemcpyPeer(inOther, other, reinterpret_cast<CUdeviceptr>(dA), primary, bytes);
                CUresult c2 = cuMemcpyPeerAsync(reinterpret_cast<CUdeviceptr>(dB), primary, inOther, other, bytes,
                                                reinterpret_cast<CUstream>(s1));
                fprintf(stderr, "context_peer: cuMemcpyPeer %d, cuMemcpyPeerAsync %d\n", static_cast<int>(c1),
                        static_cast<int>(c2));
                CUDA_CHECK(cudaStreamSynchronize(s1));
                cuCtxPushCurrent(other);
                cuCtxSynchronize();
                cuMemFree(inOther);
                cuCtxPopCurrent(&popped);
            }
            cuCtxSetCurrent(primary);
            cuCtxDestroy(other);
            cuCtxSetCurrent(primary);
        }
    }
#endif
    {
        // MEMCPY2 needs two GPUs. With one, this is a peer copy of the device to itself, which
        // CUDA reports as a device-to-device copy (MEMCPY), if at all.
        Scope op(ops, "kinds::peer_copy");
        if (deviceCount > 1) {
            float* peer = nullptr;
            CUDA_CHECK(cudaSetDevice(1));
            CUDA_CHECK(cudaMalloc(&peer, bytes));
            CUDA_CHECK(cudaSetDevice(0));
            cudaError_t access = cudaDeviceEnablePeerAccess(1, 0);
            if (access != cudaSuccess) fprintf(stderr, "cudaDeviceEnablePeerAccess: %s\n", cudaGetErrorString(access));
            CUDA_CHECK(cudaMemcpyPeer(peer, 1, dA, 0, bytes));
            CUDA_CHECK(cudaDeviceSynchronize());
            CUDA_CHECK(cudaFree(peer));
        } else {
            CUDA_CHECK(cudaMemcpyPeer(dB, 0, dA, 0, bytes));
        }
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    {
        Scope op(ops, "kinds::teardown");
        CUDA_CHECK(cudaFree(dA));
        CUDA_CHECK(cudaFree(dB));
        CUDA_CHECK(cudaFree(dC));
        CUDA_CHECK(cudaFree(dSmall));
        CUDA_CHECK(cudaFreeHost(hPinned));
        CUDA_CHECK(cudaEventDestroy(ev1));
        CUDA_CHECK(cudaEventDestroy(ev2));
        CUDA_CHECK(cudaStreamDestroy(s1));
        CUDA_CHECK(cudaStreamDestroy(s2));
        CUDA_CHECK(cudaStreamDestroy(sg));
    }
    ops.windowEnd();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));

    std::lock_guard<std::mutex> hold(g.lock);
    g.closed = true;
    fclose(g.fltrbuf);
    fclose(g.truth);
    fclose(opsFile);

    f = openOut(dir, name, ".names.tsv");
    fprintf(f, "# kernel name table: CUPTI name pointer -> name as CUPTI reported it\n");
    fprintf(f, "# written by benchmarks/device/kinds-capture/kinds_capture.cu\n");
    for (const auto& e : g.kernelNames) fprintf(f, "%s\t%s\n", hex(e.first).c_str(), e.second.c_str());
    fclose(f);
    f = openOut(dir, name, ".strings.tsv");
    fprintf(f, "# pointer\tkind\tfield\tstring (marker and memory strings; a pointer may be reused over time)\n");
    for (const auto& e : g.strings) fprintf(f, "%s\t%s\n", e.first.c_str(), e.second.c_str());
    fclose(f);
    f = openOut(dir, name, ".devices.json");
    writeDevices(f, props);
    fclose(f);

    std::string kindsJson = "{";
    for (size_t i = 0; i < kinds.size(); i++) {
        kindsJson += (i ? "," : "") + jsonEscape(kinds[i].name) + ":" + jsonEscape(resultString(kinds[i].result));
    }
    kindsJson += "}";
    std::string perKind = "{";
    bool first = true;
    for (const auto& e : g.recordsPerKind) {
        perKind += (first ? "" : ",") + jsonEscape(e.first.c_str()) + ":" + std::to_string(e.second);
        first = false;
    }
    perKind += "}";
    f = openOut(dir, name, ".meta.json");
    fprintf(f, "%s\n", Json().str("capture", name.c_str()).u("cuptiVersion", cuptiVersion)
                         .i("cudaRuntimeVersion", runtimeVersion).i("cudaDriverVersion", driverVersion)
                         .str("device", props.name).i("deviceCount", deviceCount)
                         .str("nvtxInjection", injection.c_str()).raw("kindsEnabled", kindsJson)
                         .u("buffers", g.buffers).u("bufferBytes", g.bytes).raw("recordsPerKind", perKind)
                         .u("droppedByCupti", g.droppedByCupti).u("bytesAfterClose", g.afterClose)
                         .u("ops", ops.count()).i("failedCalls", g_failures).done().c_str());
    fclose(f);
    fprintf(stderr, "%s: %lu buffers, %llu bytes, records %s, dropped %llu, ops %llu, failed calls %d\n",
            name.c_str(), g.buffers, g.bytes, perKind.c_str(), g.droppedByCupti, ops.count(), g_failures);
    return g_failures ? 3 : 0;
}
