/* A fake PPU CUPTI (prefix "cupti", as PPU's libcupti.so): CUPTI's API, CUPTI 13.0's record
 * versions (Kernel10, Memcpy6, Memset4), CUPTI's callback ids. What makes it PPU's:
 *  - every runtime call also writes a driver record, and an external-correlation record for each
 *    of the two calls when an id is pushed: buffers of many small records;
 *  - KERNEL and CONCURRENT_KERNEL exclude each other: enabling one while the other is enabled fails
 *    (and is counted), and fakeRefuseConcurrentKernel(1) makes CONCURRENT_KERNEL fail outright;
 *  - its device clock has another epoch and another rate: vendor = (realtime - 1.6e18) * 1.05;
 *  - every 4th memset of a thread carries device times near the clock's origin, which no record of
 *    a session can have (implausible: dropped and counted). */
#include <pthread.h>
#include "fake_cupti_records.h"
#include "fake_cupti_engine.h"

/* CUPTI 13.0 runtime and driver callback ids. */
enum { RT_LAUNCH_KERNEL = 211, RT_MEMCPY_ASYNC = 41, RT_MEMSET_ASYNC = 51 };
enum { DRV_LAUNCH_KERNEL = 307, DRV_MEMCPY_HTOD_ASYNC = 277, DRV_MEMSET_D8_ASYNC = 216 };
#define PPU_ORIGIN 1600000000000000000ULL

static const char* const KERNELS[] = {"_Z9fake_gemmPfS_S_i", "_Z8fake_addPfS_i"};
static atomic_long both_kernel_kinds_refused;
static atomic_long implausible_records;
static int refuse_concurrent_kernel;
static __thread int memsets_of_thread;

/* PPU's device clock: 21 device ns per 20 real ns, counted from PPU_ORIGIN. */
static uint64_t ppu_now(void) {
    uint64_t real = fk_realtime_ns() - PPU_ORIGIN;
    return real + real / 20;
}

int cuptiActivityRegisterCallbacks(fk_requested_fn requested, fk_completed_fn completed) {
    return fk_register(requested, completed);
}

int cuptiActivityEnable(int kind) {
    if (kind == FK_CONCURRENT_KERNEL && refuse_concurrent_kernel) {
        return FK_ERROR_NOT_COMPATIBLE;
    }
    if ((kind == FK_KERNEL && fk_is_enabled(FK_CONCURRENT_KERNEL))
            || (kind == FK_CONCURRENT_KERNEL && fk_is_enabled(FK_KERNEL))) {
        atomic_fetch_add(&both_kernel_kinds_refused, 1);
        return FK_ERROR_NOT_COMPATIBLE;
    }
    return fk_enable(kind);
}

int cuptiActivityDisable(int kind) {
    return fk_disable(kind);
}

int cuptiActivityFlushAll(uint32_t flag) {
    (void) flag;
    return fk_flush_all();
}

int cuptiGetTimestamp(uint64_t* now) {
    if (now == NULL) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    *now = ppu_now();
    return FK_SUCCESS;
}

int cuptiActivityPushExternalCorrelationId(uint32_t kind, uint64_t id) {
    return fk_push(kind, id);
}

int cuptiActivityPopExternalCorrelationId(uint32_t kind, uint64_t* last) {
    return fk_pop(kind, last);
}

int cuptiActivityGetNumDroppedRecords(void* context, uint32_t streamId, size_t* dropped) {
    (void) context;
    (void) streamId;
    return fk_dropped_records(dropped);
}

/* A device runs one thing at a time per stream: work starts when it was launched or when the
 * stream's previous work ended, whichever is later (threads launch onto the one stream concurrently,
 * and overlapping slices on one row would bind arrows to the wrong slice in a viewer). */
static pthread_mutex_t stream_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t stream_free;

static uint64_t stream_slot(uint64_t earliest, uint64_t duration) {
    pthread_mutex_lock(&stream_lock);
    uint64_t start = earliest > stream_free ? earliest : stream_free + 50;
    stream_free = start + duration;
    pthread_mutex_unlock(&stream_lock);
    return start;
}

/* A runtime call and the driver call inside it, each with its own correlation; returns the
 * runtime call's end (vendor ns) and its correlation in *correlation. */
static uint64_t runtime_call(uint32_t runtimeCbid, uint32_t driverCbid, uint32_t* correlation) {
    uint32_t rt = atomic_fetch_add(&fk_next_correlation, 1);
    uint32_t drv = atomic_fetch_add(&fk_next_correlation, 1);
    uint64_t start = ppu_now();
    fk_external_record(rt);
    fk_external_record(drv);
    while (ppu_now() < start + 600) {
    }
    uint64_t end = ppu_now();
    fk_api_record(FK_DRIVER, driverCbid, drv, start + 100, end - 100);
    fk_api_record(FK_RUNTIME, runtimeCbid, rt, start, end);
    *correlation = rt;
    return end;
}

int64_t fakeLaunchKernel(int64_t which) {
    int k = which == 1 ? 1 : 0;
    uint32_t correlation;
    uint64_t end = runtime_call(RT_LAUNCH_KERNEL, DRV_LAUNCH_KERNEL, &correlation);
    int kind = fk_is_enabled(FK_CONCURRENT_KERNEL) ? FK_CONCURRENT_KERNEL : fk_is_enabled(FK_KERNEL) ? FK_KERNEL : 0;
    if (kind != 0) {
        fk_kernel10 r;
        memset(&r, 0, sizeof r);
        r.k.kind = (uint32_t) kind;
        r.k.registersPerThread = 40;
        r.k.start = stream_slot(end + 200, 2000 + 100 * (uint64_t) k);
        r.k.end = r.k.start + 2000 + 100 * (uint64_t) k;
        r.k.completed = r.k.end;
        r.k.contextId = 1;
        r.k.streamId = 13;
        r.k.gridX = 16 + k;
        r.k.gridY = 1;
        r.k.gridZ = 1;
        r.k.blockX = 256;
        r.k.blockY = 1;
        r.k.blockZ = 1;
        r.k.staticSharedMemory = 512;
        r.k.correlationId = correlation;
        r.k.name = KERNELS[k];
        fk_append(&r, sizeof r);
        fk_log(kind, correlation, (int64_t) r.k.start, (int64_t) r.k.end, fk_external(), k, 0, 0);
    }
    return correlation;
}

int64_t fakeMemcpy(int64_t bytes) {
    uint32_t correlation;
    uint64_t end = runtime_call(RT_MEMCPY_ASYNC, DRV_MEMCPY_HTOD_ASYNC, &correlation);
    if (fk_is_enabled(FK_MEMCPY)) {
        fk_memcpy6 r;
        memset(&r, 0, sizeof r);
        r.kind = FK_MEMCPY;
        r.copyKind = 1;
        r.srcKind = 2;
        r.dstKind = 3;
        r.flags = 1;
        r.bytes = (uint64_t) bytes;
        r.start = stream_slot(end + 100, 900);
        r.end = r.start + 900;
        r.contextId = 1;
        r.streamId = 13;
        r.correlationId = correlation;
        r.copyCount = 1;
        fk_append(&r, sizeof r);
        fk_log(FK_MEMCPY, correlation, (int64_t) r.start, (int64_t) r.end, fk_external(), 0, 0, bytes);
    }
    return correlation;
}

/* Every 4th memset of a thread is stamped near the device clock's origin: implausible. */
int64_t fakeMemset(int64_t bytes) {
    uint32_t correlation;
    uint64_t end = runtime_call(RT_MEMSET_ASYNC, DRV_MEMSET_D8_ASYNC, &correlation);
    if (fk_is_enabled(FK_MEMSET)) {
        int implausible = ++memsets_of_thread % 4 == 0;
        fk_memset4 r;
        memset(&r, 0, sizeof r);
        r.kind = FK_MEMSET;
        r.value = 0xAB;
        r.bytes = (uint64_t) bytes;
        r.start = implausible ? 1000 : stream_slot(end + 100, 700);
        r.end = r.start + 700;
        r.contextId = 1;
        r.streamId = 13;
        r.correlationId = correlation;
        r.memoryKind = 3;
        fk_append(&r, sizeof r);
        if (implausible) {
            atomic_fetch_add(&implausible_records, 1);
        }
        fk_log(FK_MEMSET, correlation, (int64_t) r.start, (int64_t) r.end, fk_external(), 0,
               implausible ? FK_TRUTH_IMPLAUSIBLE : 0, bytes);
    }
    return correlation;
}

/* 1: CONCURRENT_KERNEL cannot be enabled (the tracer must fall back to KERNEL). */
int64_t fakeRefuseConcurrentKernel(int64_t refuse) {
    refuse_concurrent_kernel = refuse != 0;
    return 0;
}

/* fakeStat(0): enables refused because the other kernel kind was on; 1: implausible records
 * written; 2: refused pops; 3: the enabled-kind mask. */
int64_t fakeStat(int64_t which) {
    switch (which) {
        case 0: return atomic_load(&both_kernel_kinds_refused);
        case 1: return atomic_load(&implausible_records);
        case 2: return atomic_load(&fk_refused_pops);
        case 3: return (int64_t) __atomic_load_n(&fk_enabled, __ATOMIC_ACQUIRE);
        default: return -1;
    }
}

int64_t fakeReset(int64_t unused) {
    (void) unused;
    fk_reset();
    refuse_concurrent_kernel = 0;
    atomic_store(&both_kernel_kinds_refused, 0);
    atomic_store(&implausible_records, 0);
    return 0;
}
