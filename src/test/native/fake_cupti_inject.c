/* A fake NVIDIA libcupti.so for the injection path (flagtrace run): CUPTI's entry points under their
 * real names, CUPTI 13.0's record versions (Kernel10, Memcpy6, Memset4, API, ExternalCorrelation),
 * CUPTI's runtime callback ids, CUPTI's clock (epoch ns). The records come from the shared engine
 * (fake_cupti_engine.h), as the other CUPTI-family fakes' do; the fake CUDA runtime (fake_cudart.c)
 * reports each call it makes through fakeCuptiRuntimeCall, found with dlopen(RTLD_NOLOAD): when no
 * tool loaded this library, a program's calls produce nothing, as with the real driver. CUPTI's callback API
 * (cuptiSubscribe, one subscriber per process; cuptiEnableCallback, cuptiEnableDomain, cuptiUnsubscribe) for the
 * driver domain: the fake driver (fake_cuda_driver.c) reports the calls it has callbacks for (cuProfilerStart,
 * cuProfilerStop) through fakeCuptiDriverCall, at their entry and exit, as the real driver does, and each of its
 * calls through fakeCuptiDriverApiCall (cuLaunchKernel's kernel included), kept as CUDA 13's CUPTI keeps driver
 * records (fk_api_recorded). What a tool's first call of each CUPTI function saw (FAKE_CUPTI_LOG, below), and a
 * registration after the CUDA context on a driver older than 13.0 (the fake driver's cuDriverGetVersion) that delivers
 * nothing, as the seed found CUPTI did there. Built by scripts/fake-gpu-env (soname libcupti.so). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "fake_cupti_records.h"
#include "fake_cupti_engine.h"

/* CUPTI 13.0 runtime callback ids of the calls the fake runtime makes. */
enum { RT_MALLOC = 20, RT_MEMCPY = 31, RT_MEMSET_ASYNC = 51, RT_DEVICE_SYNCHRONIZE = 165, RT_LAUNCH_KERNEL = 211 };
/* What device work a call makes (fakeCuptiRuntimeCall's `work`). */
enum { WORK_NONE = 0, WORK_KERNEL = 1, WORK_MEMCPY_HTOD = 2, WORK_MEMCPY_DTOH = 3, WORK_MEMSET = 4 };
enum { FK_MAX_LIMIT_REACHED = 12 };

/* Kernels the program launched so far (every launch reported, recorded or not). */
static atomic_long kernels_launched;
/* A registration that delivers nothing: made after the CUDA context existed, on a driver older than CUDA 13.0. */
static atomic_int dead_registration;

/* FAKE_CUPTI_LOG=FILE: the first call of each CUPTI function by each library appends one line to FILE,
 *     CALL by=LIBRARY kernels_before=N
 * (LIBRARY: the file name of the library or program that made the call, or that holds the callback it registered,
 * since a preloaded tool passes a program's registration on), so a test sees when a tool first touched CUPTI against
 * the program's kernel launches. A registration's line ends with delivers=0 when it will deliver nothing. */
static const char* log_path;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void read_log_path(void) {
    const char* set = getenv("FAKE_CUPTI_LOG");
    log_path = set != NULL && set[0] != '\0' ? set : NULL;
}

static void first_call(const char* call, const void* by, const char* extra) {
    static struct {
        const char* call;
        char by[64];
    } seen[128];
    static int seen_count;
    static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_once(&log_once, read_log_path);
    if (log_path == NULL) {
        return;
    }
    Dl_info info;
    const char* file = dladdr(by, &info) != 0 && info.dli_fname != NULL ? info.dli_fname : "unknown";
    const char* base = strrchr(file, '/') != NULL ? strrchr(file, '/') + 1 : file;
    pthread_mutex_lock(&seen_lock);
    int known = 0;
    for (int i = 0; i < seen_count && !known; i++) {
        known = strcmp(seen[i].call, call) == 0 && strncmp(seen[i].by, base, sizeof seen[i].by - 1) == 0;
    }
    if (!known && seen_count < 128) {
        seen[seen_count].call = call;
        snprintf(seen[seen_count].by, sizeof seen[seen_count].by, "%s", base);
        seen_count++;
        FILE* out = fopen(log_path, "a");
        if (out != NULL) {
            fprintf(out, "%s by=%s kernels_before=%ld%s\n", call, base, atomic_load(&kernels_launched), extra);
            fclose(out);
        }
    }
    pthread_mutex_unlock(&seen_lock);
}

#define FIRST_CALL(call) first_call(call, __builtin_return_address(0), "")

/* The fake driver's version (cuDriverGetVersion), or 0 when no driver is loaded. */
static int driver_version(void) {
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    int (*get)(int*) = driver == NULL ? NULL : (int (*)(int*)) dlsym(driver, "cuDriverGetVersion");
    int version = 0;
    if (get != NULL) {
        get(&version);
    }
    if (driver != NULL) {
        dlclose(driver);
    }
    return version;
}

int cuptiActivityRegisterCallbacks(fk_requested_fn requested, fk_completed_fn completed) {
    if (atomic_load(&fk_context_made) && driver_version() < 13000) {
        atomic_store(&dead_registration, 1);
    }
    first_call("cuptiActivityRegisterCallbacks", (const void*) requested, atomic_load(&dead_registration) ? " delivers=0" : "");
    return fk_register(requested, completed);
}

/* CUPTI 12's choice of the thread ids of API records: this fake's are always the kernel's (SYSTEM). */
int cuptiSetThreadIdType(int type) {
    FIRST_CALL("cuptiSetThreadIdType");
    return type == 0 || type == 1 ? FK_SUCCESS : FK_ERROR_INVALID_PARAMETER;
}

/* FAKE_CUPTI_ENABLE_DELAY_MS: each cuptiActivityEnable takes that long, as an enable on a thread descheduled while
 * it arms may: a test that `flagtrace start` is answered only once the window's kinds record sets it. */
static void enable_delay(void) {
    const char* set = getenv("FAKE_CUPTI_ENABLE_DELAY_MS");
    long ms = set != NULL ? strtol(set, NULL, 10) : 0;
    if (ms > 0) {
        struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&pause, NULL);
    }
}

int cuptiActivityEnable(int kind) {
    FIRST_CALL("cuptiActivityEnable");
    enable_delay();
    return fk_enable(kind);
}

int cuptiActivityDisable(int kind) {
    FIRST_CALL("cuptiActivityDisable");
    return fk_disable(kind);
}

/* CUPTI 12's switch of one runtime call's records; the injected library turns torch's six quiet calls off. */
int cuptiActivityEnableRuntimeApi(uint32_t cbid, uint8_t enable) {
    FIRST_CALL("cuptiActivityEnableRuntimeApi");
    if (cbid >= FK_CBIDS) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    atomic_store(&fk_runtime_off[cbid], enable ? 0 : 1);
    return 0;
}

/* CUPTI 12's switch of one driver call's records, with CUDA 13's catch (fk_api_recorded). */
int cuptiActivityEnableDriverApi(uint32_t cbid, uint8_t enable) {
    FIRST_CALL("cuptiActivityEnableDriverApi");
    return fk_enable_driver_api(cbid, enable);
}

int cuptiActivityFlushAll(uint32_t flag) {
    FIRST_CALL("cuptiActivityFlushAll");
    (void) flag;
    return fk_flush_all();
}

/* A client's own clock (cuptiActivityRegisterTimestampCallback), as kineto registers one: CUPTI's timestamps come from it
 * after that. Here cuptiGetTimestamp does (the records keep the fake's clock). */
static uint64_t (*_Atomic fk_timestamp_callback)(void);

int cuptiActivityRegisterTimestampCallback(uint64_t (*callback)(void)) {
    first_call("cuptiActivityRegisterTimestampCallback", (const void*) callback, "");
    atomic_store(&fk_timestamp_callback, callback);
    return FK_SUCCESS;
}

int cuptiGetTimestamp(uint64_t* now) {
    FIRST_CALL("cuptiGetTimestamp");
    if (now == NULL) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    uint64_t (*callback)(void) = atomic_load(&fk_timestamp_callback);
    *now = callback != NULL ? callback() : fk_realtime_ns();
    return FK_SUCCESS;
}

int cuptiActivityPushExternalCorrelationId(uint32_t kind, uint64_t id) {
    FIRST_CALL("cuptiActivityPushExternalCorrelationId");
    return fk_push(kind, id);
}

int cuptiActivityPopExternalCorrelationId(uint32_t kind, uint64_t* last) {
    FIRST_CALL("cuptiActivityPopExternalCorrelationId");
    return fk_pop(kind, last);
}

int cuptiActivityGetNumDroppedRecords(void* context, uint32_t streamId, size_t* dropped) {
    FIRST_CALL("cuptiActivityGetNumDroppedRecords");
    (void) context;
    (void) streamId;
    return fk_dropped_records(dropped);
}

/* The size of a record of `kind` as this fake writes it; 0 for a kind it never writes. */
static size_t record_size(uint32_t kind) {
    switch (kind) {
        case FK_MEMCPY: return sizeof(fk_memcpy6);
        case FK_MEMSET: return sizeof(fk_memset4);
        case FK_KERNEL:
        case FK_CONCURRENT_KERNEL: return sizeof(fk_kernel10);
        case FK_DRIVER:
        case FK_RUNTIME: return sizeof(fk_api);
        case FK_EXTERNAL_CORRELATION: return sizeof(fk_external_correlation);
        default: return 0;
    }
}

/* CUPTI's buffer walk: *record NULL starts at the buffer; MAX_LIMIT_REACHED past the last record. */
int cuptiActivityGetNextRecord(uint8_t* buffer, size_t validSize, void** record) {
    FIRST_CALL("cuptiActivityGetNextRecord");
    if (buffer == NULL || record == NULL) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    size_t at = 0;
    if (*record != NULL) {
        uint8_t* current = (uint8_t*) *record;
        size_t n = record_size(*(uint32_t*) current);
        if (n == 0) {
            return FK_ERROR_INVALID_PARAMETER;
        }
        at = (size_t) (current - buffer) + n;
    }
    if (at + 4 > validSize || record_size(*(uint32_t*) (buffer + at)) == 0
            || at + record_size(*(uint32_t*) (buffer + at)) > validSize) {
        return FK_MAX_LIMIT_REACHED;
    }
    *record = buffer + at;
    return FK_SUCCESS;
}

int cuptiGetResultString(int result, const char** text) {
    FIRST_CALL("cuptiGetResultString");
    if (text == NULL) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    *text = result == 0 ? "CUPTI_SUCCESS" : "CUPTI_ERROR (fake)";
    return FK_SUCCESS;
}

/* A device runs one thing at a time on its one stream: work starts when it was launched or when the
 * stream's previous work ended, whichever is later. One compare-and-swap, no lock: a real CUPTI's timestamps
 * come from the device, and threads launching at once must not wait on each other here. */
static _Atomic uint64_t stream_free;

static uint64_t stream_slot(uint64_t earliest, uint64_t duration) {
    uint64_t free_at = atomic_load(&stream_free);
    uint64_t start;
    do {
        start = earliest > free_at ? earliest : free_at + 50;
    } while (!atomic_compare_exchange_weak(&stream_free, &free_at, start + duration));
    return start;
}

/* How long a kernel runs on the fake device: 1.5 us, or FAKE_CUPTI_KERNEL_NS (a device still busy with a kernel
 * long after its launch returned, as a real one is with a long kernel). */
static uint64_t kernel_ns(void) {
    static uint64_t ns;
    if (ns == 0) {
        const char* set = getenv("FAKE_CUPTI_KERNEL_NS");
        uint64_t value = set != NULL ? strtoull(set, NULL, 10) : 0;
        ns = value > 0 ? value : 1500;
    }
    return ns;
}

/* One API call of the program (`kind` RUNTIME or DRIVER): its API record (with the binding of the thread's innermost
 * pushed External id) and the device work it launched. `name` is the kernel's name, a pointer that stays valid for
 * the process's life, as the real one's does. The first call makes the CUDA context. */
static void api_call(int kind, uint32_t cbid, int work, uint64_t bytes, const char* name, uint32_t gridX, uint32_t blockX) {
    if (!atomic_load(&fk_context_made)) { /* written once: a store per call would bounce its cache line between threads */
        atomic_store(&fk_context_made, 1);
    }
    pthread_once(&log_once, read_log_path);
    if (work == WORK_KERNEL && log_path != NULL) { /* counted for the log only: an atomic add per launch otherwise */
        atomic_fetch_add(&kernels_launched, 1);
    }
    if (atomic_load(&dead_registration)) {
        return;
    }
    uint32_t correlation = atomic_fetch_add(&fk_next_correlation, 1);
    uint64_t start = fk_realtime_ns();
    fk_external_record(correlation);
    while (fk_realtime_ns() < start + 500) {
    }
    uint64_t end = fk_realtime_ns();
    fk_api_record(kind, cbid, correlation, start, end);
    if (work == WORK_KERNEL && fk_is_enabled(FK_CONCURRENT_KERNEL)) {
        fk_kernel10 r;
        memset(&r, 0, sizeof r);
        r.k.kind = FK_CONCURRENT_KERNEL;
        r.k.registersPerThread = 32;
        r.k.start = stream_slot(end + 200, kernel_ns());
        r.k.end = r.k.start + kernel_ns();
        r.k.completed = r.k.end;
        r.k.contextId = 1;
        r.k.streamId = 7;
        r.k.gridX = (int32_t) gridX;
        r.k.gridY = 1;
        r.k.gridZ = 1;
        r.k.blockX = (int32_t) blockX;
        r.k.blockY = 1;
        r.k.blockZ = 1;
        r.k.correlationId = correlation;
        r.k.name = name;
        fk_append(&r, sizeof r);
        fk_log(FK_CONCURRENT_KERNEL, correlation, (int64_t) r.k.start, (int64_t) r.k.end, fk_external(), 0, 0, 0);
    } else if ((work == WORK_MEMCPY_HTOD || work == WORK_MEMCPY_DTOH) && fk_is_enabled(FK_MEMCPY)) {
        fk_memcpy6 r;
        memset(&r, 0, sizeof r);
        r.kind = FK_MEMCPY;
        r.copyKind = work == WORK_MEMCPY_HTOD ? 1 : 2;           /* HTOD, DTOH */
        r.srcKind = work == WORK_MEMCPY_HTOD ? 1 : 3;            /* pageable host, device */
        r.dstKind = work == WORK_MEMCPY_HTOD ? 3 : 1;
        r.bytes = bytes;
        r.start = stream_slot(end + 100, 800);
        r.end = r.start + 800;
        r.contextId = 1;
        r.streamId = 7;
        r.correlationId = correlation;
        r.copyCount = 1;
        fk_append(&r, sizeof r);
        fk_log(FK_MEMCPY, correlation, (int64_t) r.start, (int64_t) r.end, fk_external(), 0, 0, (int64_t) bytes);
    } else if (work == WORK_MEMSET && fk_is_enabled(FK_MEMSET)) {
        fk_memset4 r;
        memset(&r, 0, sizeof r);
        r.kind = FK_MEMSET;
        r.bytes = bytes;
        r.start = stream_slot(end + 100, 600);
        r.end = r.start + 600;
        r.contextId = 1;
        r.streamId = 7;
        r.correlationId = correlation;
        r.memoryKind = 3;
        fk_append(&r, sizeof r);
        fk_log(FK_MEMSET, correlation, (int64_t) r.start, (int64_t) r.end, fk_external(), 0, 0, (int64_t) bytes);
    }
}

/* One runtime call, reported by the fake runtime (fake_cudart.c). */
void fakeCuptiRuntimeCall(uint32_t cbid, int work, uint64_t bytes, const char* name, uint32_t gridX, uint32_t blockX) {
    api_call(FK_RUNTIME, cbid, work, bytes, name, gridX, blockX);
}

/* One driver call, reported by the fake driver (fake_cuda_driver.c): cuLaunchKernel with its kernel, as cuBLASLt's and
 * Triton's launches reach the driver, or a call without device work (cuProfilerStart). */
void fakeCuptiDriverApiCall(uint32_t cbid, int work, const char* name, uint32_t gridX, uint32_t blockX) {
    api_call(FK_DRIVER, cbid, work, 0, name, gridX, blockX);
}

int64_t fakeReset(int64_t unused) {
    (void) unused;
    fk_reset();
    return 0;
}

/* CUPTI's callback API. CUpti_CallbackData (cupti_callbacks.h), as a driver or runtime callback receives it. */
typedef struct {
    int callbackSite; /* CUpti_ApiCallbackSite: 0 enter, 1 exit */
    const char* functionName;
    const void* functionParams;
    void* functionReturnValue;
    const char* symbolName;
    void* context;
    uint32_t contextUid;
    uint64_t* correlationData;
    uint32_t correlationId;
} fake_callback_data;
typedef void (*fake_callback_fn)(void* userdata, int domain, uint32_t cbid, const void* cbdata);
enum { CB_DOMAIN_DRIVER_API = 1, DRIVER_CBIDS = 1024, FK_ERROR_MULTIPLE_SUBSCRIBERS = 39 };

static pthread_mutex_t subscriber_lock = PTHREAD_MUTEX_INITIALIZER;
static fake_callback_fn subscriber_callback; /* guarded by subscriber_lock, as are the two below */
static void* subscriber_userdata;
static uint8_t driver_enabled[DRIVER_CBIDS];
static int subscriber_handle; /* its address is the one subscriber's handle */

int cuptiSubscribe(void** subscriber, fake_callback_fn callback, void* userdata) {
    first_call("cuptiSubscribe", (const void*) callback, "");
    if (subscriber == NULL) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    pthread_mutex_lock(&subscriber_lock);
    int taken = subscriber_callback != NULL;
    if (!taken) {
        subscriber_callback = callback;
        subscriber_userdata = userdata;
        memset(driver_enabled, 0, sizeof driver_enabled);
        *subscriber = &subscriber_handle;
    }
    pthread_mutex_unlock(&subscriber_lock);
    return taken ? FK_ERROR_MULTIPLE_SUBSCRIBERS : FK_SUCCESS;
}

int cuptiUnsubscribe(void* subscriber) {
    FIRST_CALL("cuptiUnsubscribe");
    if (subscriber != &subscriber_handle) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    pthread_mutex_lock(&subscriber_lock);
    subscriber_callback = NULL;
    pthread_mutex_unlock(&subscriber_lock);
    return FK_SUCCESS;
}

int cuptiEnableCallback(uint32_t enable, void* subscriber, int domain, uint32_t cbid) {
    FIRST_CALL("cuptiEnableCallback");
    if (subscriber != &subscriber_handle || domain != CB_DOMAIN_DRIVER_API || cbid >= DRIVER_CBIDS) {
        return FK_ERROR_INVALID_PARAMETER; /* only the driver domain has callbacks in this fake */
    }
    pthread_mutex_lock(&subscriber_lock);
    driver_enabled[cbid] = enable != 0;
    pthread_mutex_unlock(&subscriber_lock);
    return FK_SUCCESS;
}

int cuptiEnableDomain(uint32_t enable, void* subscriber, int domain) {
    FIRST_CALL("cuptiEnableDomain");
    if (subscriber != &subscriber_handle || domain != CB_DOMAIN_DRIVER_API) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    pthread_mutex_lock(&subscriber_lock);
    memset(driver_enabled, enable != 0, sizeof driver_enabled);
    pthread_mutex_unlock(&subscriber_lock);
    return FK_SUCCESS;
}

/* A driver call with a callback, at its entry (site 0) or exit (1), reported by the fake driver: the subscriber's
 * callback runs on the calling thread, before the call goes on, when it enabled that call's id. */
void fakeCuptiDriverCall(uint32_t cbid, int site, const char* functionName) {
    pthread_mutex_lock(&subscriber_lock);
    fake_callback_fn callback = cbid < DRIVER_CBIDS && driver_enabled[cbid] ? subscriber_callback : NULL;
    void* userdata = subscriber_userdata;
    pthread_mutex_unlock(&subscriber_lock);
    if (callback != NULL) {
        fake_callback_data data;
        memset(&data, 0, sizeof data);
        data.callbackSite = site;
        data.functionName = functionName;
        data.correlationId = atomic_load(&fk_next_correlation);
        callback(userdata, CB_DOMAIN_DRIVER_API, cbid, &data);
    }
}
