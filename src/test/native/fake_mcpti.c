/* A fake MetaX MCPTI (prefix "mcpti"): CUDA's activity API shape, CUPTI 12.1's record versions
 * (Kernel9, Memcpy5, Memset4), epoch-ns timestamps, and MCPTI's own runtime callback-id namespace
 * (ids that differ from CUPTI's) named by mcptiActivityGetApiName. That resolver fails loudly (an
 * error, a line on stderr, a count) when called while a buffer-completion callback runs, where the
 * real one can deadlock. The scripted quirks: every 4th memset of a thread reports start == end == 0
 * ("timing unavailable"), and after every 3rd external-correlation record of a thread 16 malformed
 * bytes follow (what a stale iterator would step onto), which a scanner must resynchronize over. */
#include "fake_cupti_records.h"
#include "fake_cupti_engine.h"

/* MCPTI's runtime ids (the fake's namespace): not CUPTI's 211 / 41 / 51. */
enum { MC_LAUNCH_KERNEL = 57, MC_MEMCPY_ASYNC = 23, MC_MEMSET_ASYNC = 29, MC_LATE = 5000, MC_LAST_DENSE = 300 };

static const char* const KERNELS[] = {"_Z9fake_gemmPfS_S_i", "_Z8fake_addPfS_i"};
static char generic_names[MC_LAST_DENSE + 1][24];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;
static atomic_long name_calls;
static atomic_long name_calls_in_callback;
static atomic_long malformed_bytes;
static atomic_long zero_timing_records;
static __thread int memsets_of_thread;
static __thread int externals_of_thread;
static int script_quirks = 1;

static void init_names(void) {
    for (int i = 1; i <= MC_LAST_DENSE; i++) {
        snprintf(generic_names[i], sizeof generic_names[i], "mcApi%d", i);
    }
}

/* The name of runtime id `id`, or NULL. */
static const char* runtime_name(uint32_t id) {
    switch (id) {
        case MC_LAUNCH_KERNEL: return "mcLaunchKernel";
        case MC_MEMCPY_ASYNC: return "mcMemcpyAsync";
        case MC_MEMSET_ASYNC: return "mcMemsetAsync";
        case MC_LATE: return "mcLaunchHostFunc";
        default: break;
    }
    if (id >= 1 && id <= MC_LAST_DENSE) {
        pthread_once(&names_once, init_names);
        return generic_names[id];
    }
    return NULL;
}

int mcptiActivityGetApiName(int kind, uint32_t id, const char** name) {
    atomic_fetch_add(&name_calls, 1);
    if (atomic_load(&fk_in_callback) > 0) {
        atomic_fetch_add(&name_calls_in_callback, 1);
        fprintf(stderr, "fake_mcpti: mcptiActivityGetApiName(%d, %u) called while a buffer callback runs:"
                        " the real MCPTI can deadlock here\n", kind, id);
        return FK_ERROR_UNKNOWN;
    }
    if (name == NULL || kind != FK_RUNTIME) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    *name = runtime_name(id);
    return *name == NULL ? FK_ERROR_INVALID_PARAMETER : FK_SUCCESS;
}

int mcptiActivityRegisterCallbacks(fk_requested_fn requested, fk_completed_fn completed) {
    return fk_register(requested, completed);
}

int mcptiActivityEnable(int kind) {
    return fk_enable(kind);
}

int mcptiActivityDisable(int kind) {
    return fk_disable(kind);
}

int mcptiActivityFlushAll(uint32_t flag) {
    (void) flag;
    return fk_flush_all();
}

int mcptiGetTimestamp(uint64_t* now) {
    if (now == NULL) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    *now = fk_realtime_ns();
    return FK_SUCCESS;
}

int mcptiActivityPushExternalCorrelationId(uint32_t kind, uint64_t id) {
    return fk_push(kind, id);
}

int mcptiActivityPopExternalCorrelationId(uint32_t kind, uint64_t* last) {
    return fk_pop(kind, last);
}

int mcptiActivityGetNumDroppedRecords(void* context, uint32_t streamId, size_t* dropped) {
    (void) context;
    (void) streamId;
    return fk_dropped_records(dropped);
}

/* The external-correlation record of `correlation` when an id is pushed, then (scripted) 16 bytes
 * no record starts with. */
static void external_record(uint32_t correlation) {
    if (fk_external_record(correlation) && script_quirks && ++externals_of_thread % 3 == 0) {
        uint8_t junk[16];
        memset(junk, 0x7A, sizeof junk); /* kind 0x7A7A7A7A: no MCPTI kind */
        fk_append(junk, sizeof junk);
        atomic_fetch_add(&malformed_bytes, sizeof junk);
    }
}

/* An API call: its runtime record from `start` to now. */
static uint64_t api_record(uint32_t cbid, uint32_t correlation, uint64_t start) {
    while (fk_realtime_ns() < start + 400) {
    }
    uint64_t end = fk_realtime_ns();
    fk_api_record(FK_RUNTIME, cbid, correlation, start, end);
    return end;
}

/* Launches kernel `which` (0 or 1): API record, external correlation, kernel record. */
int64_t fakeLaunchKernel(int64_t which) {
    int k = which == 1 ? 1 : 0;
    uint32_t correlation = atomic_fetch_add(&fk_next_correlation, 1);
    uint64_t start = fk_realtime_ns();
    external_record(correlation);
    uint64_t end = api_record(MC_LAUNCH_KERNEL, correlation, start);
    int kind = fk_is_enabled(FK_CONCURRENT_KERNEL) ? FK_CONCURRENT_KERNEL : fk_is_enabled(FK_KERNEL) ? FK_KERNEL : 0;
    if (kind != 0) {
        fk_kernel9 r;
        memset(&r, 0, sizeof r);
        r.kind = (uint32_t) kind;
        r.registersPerThread = 32;
        r.start = end + 200;
        r.end = r.start + 1500 + 100 * (uint64_t) k;
        r.completed = r.end;
        r.deviceId = 0;
        r.contextId = 1;
        r.streamId = 7;
        r.gridX = 8 + k;
        r.gridY = 2;
        r.gridZ = 1;
        r.blockX = 128;
        r.blockY = 1;
        r.blockZ = 1;
        r.dynamicSharedMemory = 1024;
        r.correlationId = correlation;
        r.name = KERNELS[k];
        fk_append(&r, sizeof r);
        fk_log(kind, correlation, (int64_t) r.start, (int64_t) r.end, fk_external(), k, 0, 0);
    }
    return correlation;
}

/* A host-to-device copy of `bytes` bytes. */
int64_t fakeMemcpy(int64_t bytes) {
    uint32_t correlation = atomic_fetch_add(&fk_next_correlation, 1);
    uint64_t start = fk_realtime_ns();
    external_record(correlation);
    uint64_t end = api_record(MC_MEMCPY_ASYNC, correlation, start);
    if (fk_is_enabled(FK_MEMCPY)) {
        fk_memcpy5 r;
        memset(&r, 0, sizeof r);
        r.kind = FK_MEMCPY;
        r.copyKind = 1; /* HtoD */
        r.srcKind = 2;  /* pinned */
        r.dstKind = 3;  /* device */
        r.flags = 1;    /* async */
        r.bytes = (uint64_t) bytes;
        r.start = end + 100;
        r.end = r.start + 800;
        r.contextId = 1;
        r.streamId = 7;
        r.correlationId = correlation;
        fk_append(&r, sizeof r);
        fk_log(FK_MEMCPY, correlation, (int64_t) r.start, (int64_t) r.end, fk_external(), 0, 0, bytes);
    }
    return correlation;
}

/* A device memset of `bytes` bytes; every 4th of a thread reports no timing. */
int64_t fakeMemset(int64_t bytes) {
    uint32_t correlation = atomic_fetch_add(&fk_next_correlation, 1);
    uint64_t start = fk_realtime_ns();
    external_record(correlation);
    uint64_t end = api_record(MC_MEMSET_ASYNC, correlation, start);
    if (fk_is_enabled(FK_MEMSET)) {
        int zero = script_quirks && ++memsets_of_thread % 4 == 0;
        fk_memset4 r;
        memset(&r, 0, sizeof r);
        r.kind = FK_MEMSET;
        r.value = 0;
        r.bytes = (uint64_t) bytes;
        r.start = zero ? 0 : end + 100;
        r.end = zero ? 0 : r.start + 600;
        r.contextId = 1;
        r.streamId = 7;
        r.correlationId = correlation;
        r.memoryKind = 3;
        fk_append(&r, sizeof r);
        if (zero) {
            atomic_fetch_add(&zero_timing_records, 1);
        }
        fk_log(FK_MEMSET, correlation, (int64_t) r.start, (int64_t) r.end, fk_external(), 0,
               zero ? FK_TRUTH_ZERO_TIMING : 0, bytes);
    }
    return correlation;
}

/* A runtime call whose id lies far outside the dense namespace (no device work). */
int64_t fakeLateApiCall(int64_t unused) {
    (void) unused;
    uint32_t correlation = atomic_fetch_add(&fk_next_correlation, 1);
    uint64_t start = fk_realtime_ns();
    api_record(MC_LATE, correlation, start);
    return correlation;
}

/* fakeStat(0): resolver calls made while a buffer callback ran; 1: resolver calls; 2: malformed
 * bytes written; 3: records written with start == end == 0; 4: refused pops; 5: the kinds enabled
 * now (a bit per kind); 6 and 7: successful Enable and Disable calls since the last reset; 8: threads
 * that recorded while every buffer slot was a live thread's (they share the last); 9: records dropped. */
int64_t fakeStat(int64_t which) {
    switch (which) {
        case 0: return atomic_load(&name_calls_in_callback);
        case 1: return atomic_load(&name_calls);
        case 2: return atomic_load(&malformed_bytes);
        case 3: return atomic_load(&zero_timing_records);
        case 4: return atomic_load(&fk_refused_pops);
        case 5: return (int64_t) __atomic_load_n(&fk_enabled, __ATOMIC_ACQUIRE);
        case 6: return atomic_load(&fk_enable_calls);
        case 7: return atomic_load(&fk_disable_calls);
        case 8: return atomic_load(&fk_threads_past_slots);
        case 9: return atomic_load(&fk_dropped);
        default: return -1;
    }
}

/* Forgets the log and the counts; quirks on (1) or off (0). Call with no session running. */
int64_t fakeReset(int64_t quirks) {
    fk_reset();
    script_quirks = quirks != 0;
    atomic_store(&name_calls, 0);
    atomic_store(&name_calls_in_callback, 0);
    atomic_store(&malformed_bytes, 0);
    atomic_store(&zero_timing_records, 0);
    return 0;
}
