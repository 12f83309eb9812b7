/* flagtrace's injected library: loaded into an unchanged program by the CUDA driver
 * (CUDA_INJECTION64_PATH, InitializeInjection) and by NVTX (NVTX_INJECTION64_PATH,
 * InitializeInjectionNvtx2), as `flagtrace run` sets them. It does only what must happen inside the
 * target:
 *  - loads libcupti (the copy the program already loaded, else FLAGTRACE_CUPTI_LIBRARY, else
 *    libcupti.so from the library path), registers the buffer callbacks (at the first arm when it starts disarmed, on
 *    CUDA 13) and enables the activity kinds flagtrace's in-process session enables;
 *  - turns NVTX ranges into host ops (flagtrace_nvtx.c, NVTX's hook): each range's start pushes a fresh
 *    External id (cuptiActivityPushExternalCorrelationId, CUSTOM0), so the device work launched inside is
 *    attributed to the innermost range, and its end hands the op (name, id, thread, times) over;
 *  - hands each completed buffer, unchanged, to the flagtrace process as a `.fltrbuf` frame over the
 *    Unix socket named by FLAGTRACE_RUN_SOCKET, with the kernel names the records point to (once per
 *    pointer), the process's identity and clock anchors at the start, and a closing message.
 * On demand (FLAGTRACE_RUN_START=later): no kind is enabled and NVTX ranges are not handed over until flagtrace arms
 * the process, and on CUDA 13 drivers CUPTI is not even registered until then (register_at_arm); a small reader thread takes flagtrace's
 * arm/disarm messages from the same socket, so no thread of the program ever waits on them. Each
 * armed window opens with MSG_WINDOW and closes with MSG_END (after a forced flush).
 * The hand-off itself (queue, sender and reader threads, frames, anchors, ranges, windows, ends) is
 * flagtrace_handoff.c, which
 * the MSPTI library (flagtrace_mspti.c) shares; NVTX's side is flagtrace_nvtx.c; this file holds CUPTI's and CUDA's symbols. No
 * CUDA header is needed: the few CUPTI entry points used are declared here and looked up by name. */
#define _GNU_SOURCE
#include "flagtrace_handoff.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A CUPTI buffer is exactly a .fltrbuf frame of vendor 1. */
enum { CUPTI_VENDOR = 1, CUPTI_THREAD_ID_SYSTEM = 1 /* CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM: gettid on Linux */ };

/* CUPTI's activity kinds enabled, as flagtrace's in-process session (CuptiTracer) enables them by
 * default: CONCURRENT_KERNEL, MEMCPY, MEMSET, RUNTIME, EXTERNAL_CORRELATION, SYNCHRONIZATION,
 * OVERHEAD, MEMORY2, MEMCPY2. MARKER is not: NVTX comes here, as host ops. */
static const int KINDS[] = {10, 1, 2, 5, 39, 38, 17, 49, 22};
/* Driver API calls recorded: the launches only (cuLaunch, cuLaunchGrid, cuLaunchGridAsync, cuLaunchKernel,
 * cuLaunchKernel_ptsz, cuLaunchCooperativeKernel and _ptsz, cuGraphLaunch and _ptsz, cuLaunchKernelEx and
 * _ptsz). Libraries that launch through the driver (cuBLASLt's cutlass kernels, Triton) then get the runtime-call
 * record, External id and flow arrow a cudaLaunchKernel gets, as torch's trace shows them (cuda_driver).
 * They are armed kineto's way: the DRIVER kind on and every other driver call switched off by id. Switching the
 * launches on by id alone is cheaper to write but records nothing when first done after the CUDA context exists, as
 * in a window opened later (measured on an H100, 21,000 launches per mode: benchmarks/device/driver-arm); the
 * DRIVER kind way records them at any time, at the same cost per launch. Ids up to DRIVER_CBID_LIMIT are switched
 * off (CUDA 13.0 has 806; ids a CUPTI does not know it refuses, harmlessly). */
static const int DRIVER_LAUNCHES[] = {115, 116, 117, 307, 442, 477, 478, 514, 515, 652, 653};
enum { KIND_DRIVER = 4, DRIVER_CBID_LIMIT = 1024 };
/* Runtime calls left unrecorded, the six torch's profiler leaves out of its trace: cudaSetDevice, cudaGetDevice,
 * cudaGetLastError, cudaEventCreate, cudaEventCreateWithFlags, cudaEventDestroy. torch calls cudaGetDevice several
 * times per op, and each record costs the calling thread (docs/vendors/cupti.md). The same list as
 * vendors/.../cupti/CuptiUnrecordedCalls.java, held equal by a test. */
static const int RUNTIME_CALLS_OFF[] = {16, 17, 10, 133, 134, 136};
enum { KIND_KERNEL = 3, KIND_CONCURRENT_KERNEL = 10, KIND_MEMCPY2 = 22, EXTERNAL_CUSTOM0 = 3, KERNEL_NAME_OFFSET = 104,
       DEVICE_END_OFFSET = 24 /* end, in Kernel10, Memcpy6, Memset4 and MemcpyPtoP4 alike */ };

typedef void (*requested_fn)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
typedef void (*completed_fn)(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize);

static struct {
    int (*registerCallbacks)(requested_fn, completed_fn);
    int (*enable)(int kind);
    int (*disable)(int kind);
    int (*flushAll)(uint32_t flag);
    int (*timestamp)(uint64_t* now);
    int (*push)(uint32_t kind, uint64_t id);
    int (*pop)(uint32_t kind, uint64_t* last);
    int (*nextRecord)(uint8_t* buffer, size_t validSize, void** record);
    int (*dropped)(void* context, uint32_t streamId, size_t* dropped);
    int (*enableDriverApi)(uint32_t cbid, uint8_t enable); /* NULL before CUPTI 12: no driver launches then */
    int (*enableRuntimeApi)(uint32_t cbid, uint8_t enable); /* NULL before CUPTI 12: every runtime call recorded then */
    int (*subscribe)(void** subscriber, void (*callback)(void*, int, uint32_t, const void*), void* userdata);
    int (*enableCallback)(uint32_t enable, void* subscriber, int domain, uint32_t cbid);
} cupti;

/* CUPTI's callback API, for --capture-range cudaProfilerApi: the driver domain's cuProfilerStart and cuProfilerStop
 * (cupti_driver_cbid.h, CUDA 13.0), which cudaProfilerStart/Stop call too; a callback's data begins with its site
 * (CUpti_CallbackData.callbackSite: 0 enter, 1 exit). */
enum { CB_DOMAIN_DRIVER_API = 1, CBID_cuProfilerStart = 308, CBID_cuProfilerStop = 309, API_ENTER = 0, API_EXIT = 1 };

/* 1 once flagtrace may call CUPTI: at CUDA's initialisation when it registers there, else at the first arm
 * (cupti_attach). Until then CUPTI's clock is not read: any CUPTI call initialises CUPTI (below). */
static atomic_int cupti_touched;

static uint64_t cupti_now(void) {
    uint64_t now = 0;
    if (!atomic_load(&cupti_touched) || cupti.timestamp == NULL || cupti.timestamp(&now) != 0) {
        now = handoff_clock_ns(CLOCK_REALTIME);
    }
    return now;
}

static int is_driver_launch(uint32_t cbid) {
    for (size_t i = 0; i < sizeof DRIVER_LAUNCHES / sizeof DRIVER_LAUNCHES[0]; i++) {
        if ((uint32_t) DRIVER_LAUNCHES[i] == cbid) {
            return 1;
        }
    }
    return 0;
}

/* The DRIVER kind with the launches only; without cuptiActivityEnableDriverApi (before CUPTI 12) no driver records:
 * the kind alone would record every driver call. */
static void driver_launches_enable(void) {
    if (cupti.enableDriverApi == NULL || cupti.enable(KIND_DRIVER) != 0) {
        return;
    }
    for (uint32_t cbid = 1; cbid < DRIVER_CBID_LIMIT; cbid++) {
        cupti.enableDriverApi(cbid, (uint8_t) is_driver_launch(cbid));
    }
}

static void cupti_enable(void) {
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
        cupti.enable(KINDS[i]); /* a kind this CUPTI or device refuses is simply not recorded */
    }
    driver_launches_enable();
    for (size_t i = 0; cupti.enableRuntimeApi != NULL && i < sizeof RUNTIME_CALLS_OFF / sizeof RUNTIME_CALLS_OFF[0]; i++) {
        cupti.enableRuntimeApi((uint32_t) RUNTIME_CALLS_OFF[i], 0);
    }
}

static void cupti_disable(void) {
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
        cupti.disable(KINDS[i]);
    }
    if (cupti.enableDriverApi != NULL) {
        cupti.disable(KIND_DRIVER);
    }
}

/* The pause between disabling the kinds and the forced flush at a stop: flushing at once, while other threads still
 * launch, crashes CUPTI itself now and then (H200, CUDA 13.0, benchmarks/native/cupti_teardown_repro.cu with the cores
 * saturated: 19 of 849 runs at once, 2 of 482 with the flush 5 ms later). The in-process session pauses the same
 * (vendors/.../cupti/CuptiStopPause.java), held equal by a test. */
enum { STOP_PAUSE_NS = 5000000 };

static void cupti_flush(void) {
    struct timespec pause = {0, STOP_PAUSE_NS};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
    cupti.flushAll(1);
}

/* CUPTI's own count of the records it dropped, in each window's end. */
static void cupti_end_lines(char* out, size_t n) {
    size_t cuptiDropped = 0;
    if (cupti.dropped != NULL) {
        cupti.dropped(NULL, 0, &cuptiDropped);
    }
    snprintf(out, n, "cupti_records_dropped=%llu\n", (unsigned long long) cuptiDropped);
}

static int cupti_push(uint64_t id) {
    return cupti.push(EXTERNAL_CUSTOM0, id);
}

static void cupti_pop(void) {
    uint64_t last;
    cupti.pop(EXTERNAL_CUSTOM0, &last);
}

static int cupti_attach(void);

static const handoff_vendor CUPTI = {"cupti", CUPTI_VENDOR, cupti_now, cupti_enable, cupti_disable, cupti_flush,
                                     cupti_end_lines, cupti_push, cupti_pop, "nvtx", cupti_attach};

/* Hands over the names of the buffer's kernels that were not handed over before; counts its records. */
static void hand_names(uint8_t* buffer, size_t validSize, record_counts* counts) {
    void* record = NULL;
    while (cupti.nextRecord(buffer, validSize, &record) == 0) {
        uint32_t kind;
        memcpy(&kind, record, 4);
        counts->records++;
        counts->memcpys += kind == 1 || kind == KIND_MEMCPY2; /* peer copies (MEMCPY2) are copies too */
        counts->memsets += kind == 2;
        if (kind == 1 || kind == 2 || kind == KIND_MEMCPY2 || kind == KIND_KERNEL || kind == KIND_CONCURRENT_KERNEL) {
            uint64_t end;
            memcpy(&end, (uint8_t*) record + DEVICE_END_OFFSET, sizeof end);
            counts->device_end = end > counts->device_end ? end : counts->device_end;
        }
        if (kind != KIND_KERNEL && kind != KIND_CONCURRENT_KERNEL) {
            continue;
        }
        counts->kernels++;
        const char* name;
        memcpy(&name, (uint8_t*) record + KERNEL_NAME_OFFSET, sizeof name);
        handoff_name(name);
    }
}

/* The properties the trace's occupancy fields need, from the driver the program loaded (CUdevice_attribute
 * values of cuda.h), as one JSON array: sent once, with the first buffer (the driver is initialised by
 * then; asking inside InitializeInjection, during cuInit, would re-enter it). */
static void hand_devices(void) {
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (driver == NULL) {
        return;
    }
    int (*count)(int*) = (int (*)(int*)) dlsym(driver, "cuDeviceGetCount");
    int (*get)(int*, int, int) = (int (*)(int*, int, int)) dlsym(driver, "cuDeviceGetAttribute");
    int (*name)(char*, int, int) = (int (*)(char*, int, int)) dlsym(driver, "cuDeviceGetName");
    int (*memory)(size_t*, int) = (int (*)(size_t*, int)) dlsym(driver, "cuDeviceTotalMem_v2");
    int n = 0;
    if (count == NULL || get == NULL || name == NULL || memory == NULL || count(&n) != 0 || n <= 0) {
        return;
    }
    static const struct {
        const char* key;
        int attribute;
    } fields[] = {{"computeMajor", 75}, {"computeMinor", 76}, {"maxThreadsPerBlock", 1},
                  {"maxThreadsPerMultiprocessor", 39}, {"regsPerBlock", 12}, {"warpSize", 10},
                  {"sharedMemPerBlock", 8}, {"numSms", 16}, {"regsPerMultiprocessor", 82},
                  {"sharedMemPerBlockOptin", 97}, {"sharedMemPerMultiprocessor", 81}};
    size_t capacity = 1024 * (size_t) (n < 64 ? n : 64);
    char* json = malloc(capacity);
    if (json == NULL) {
        return;
    }
    size_t at = (size_t) snprintf(json, capacity, "[");
    for (int d = 0; d < n && d < 64; d++) {
        char text[256];
        size_t total = 0;
        if (name(text, (int) sizeof text, d) != 0 || memory(&total, d) != 0) {
            continue;
        }
        for (char* c = text; *c != '\0'; c++) {
            if (*c == '"' || *c == '\\' || (unsigned char) *c < 0x20) {
                *c = '_';
            }
        }
        at += (size_t) snprintf(json + at, capacity - at, "%s{\"id\":%d,\"name\":\"%s\",\"totalGlobalMem\":%zu",
                                at > 1 ? "," : "", d, text, total);
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
            int value = 0;
            get(&value, fields[f].attribute, d);
            at += (size_t) snprintf(json + at, capacity - at, ",\"%s\":%d", fields[f].key, value);
        }
        at += (size_t) snprintf(json + at, capacity - at, "}");
    }
    at += (size_t) snprintf(json + at, capacity - at, "]");
    if (at > 2 && at < capacity) {
        handoff_devices(json, at);
    }
    free(json);
}

static pthread_once_t devices_once = PTHREAD_ONCE_INIT;

static void buffer_completed(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize) {
    (void) context;
    (void) streamId;
    (void) size;
    if (buffer == NULL) {
        return;
    }
    if (validSize == 0 || !handoff_armed()) {
        free(buffer);
        return;
    }
    handoff_tick();
    pthread_once(&devices_once, hand_devices);
    record_counts counts = {0, 0, 0, 0, 0};
    hand_names(buffer, validSize, &counts);
    handoff_buffer(buffer, validSize, counts);
}

/* A start opens the window as it returns (everything the program does after it is in), a stop closes it as it is
 * entered (nothing after it is). */
static void profiler_api(void* userdata, int domain, uint32_t cbid, const void* cbdata) {
    (void) userdata;
    if (domain != CB_DOMAIN_DRIVER_API || cbdata == NULL) {
        return;
    }
    int site;
    memcpy(&site, cbdata, sizeof site);
    if (cbid == CBID_cuProfilerStart && site == API_EXIT) {
        handoff_capture_start();
    } else if (cbid == CBID_cuProfilerStop && site == API_ENTER) {
        handoff_capture_stop();
    }
}

/* This library's subscriber of CUPTI's callback API (--capture-range cudaProfilerApi), or NULL. */
static void* _Atomic own_subscriber;

/* Subscribes to the profiler API's two calls (CUPTI allows one subscriber per process: a program that already has
 * one, or a CUPTI without the callback API, leaves the process disarmed, said in one line). */
static void subscribe_profiler_api(void* library) {
    void* subscriber = NULL;
    cupti.subscribe = dlsym(library, "cuptiSubscribe");
    cupti.enableCallback = dlsym(library, "cuptiEnableCallback");
    int status = cupti.subscribe == NULL || cupti.enableCallback == NULL ? -1
            : cupti.subscribe(&subscriber, profiler_api, NULL);
    if (status == 0) {
        status = cupti.enableCallback(1, subscriber, CB_DOMAIN_DRIVER_API, CBID_cuProfilerStart);
    }
    if (status == 0) {
        status = cupti.enableCallback(1, subscriber, CB_DOMAIN_DRIVER_API, CBID_cuProfilerStop);
    }
    if (status == 0) {
        atomic_store(&own_subscriber, subscriber);
    }
    if (status != 0) {
        fprintf(stderr, "flagtrace: cannot subscribe to cuProfilerStart/Stop (CUPTI's callback API, status %d: another"
                        " CUPTI subscriber?); --capture-range cudaProfilerApi never arms, the program runs untraced\n", status);
    }
}

static int lookup(void* library, const char* name, void** slot) {
    *slot = dlsym(library, name);
    if (*slot == NULL) {
        fprintf(stderr, "flagtrace: %s has no %s; the program runs untraced\n", "libcupti", name);
        return -1;
    }
    return 0;
}

/* The libcupti the program already loaded, or NULL. */
static void* loaded_cupti(void) {
    const char* sonames[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};
    for (size_t i = 0; i < sizeof sonames / sizeof sonames[0]; i++) {
        void* loaded = dlopen(sonames[i], RTLD_NOW | RTLD_NOLOAD);
        if (loaded != NULL) {
            return loaded;
        }
    }
    return NULL;
}

static void* load_cupti(void) {
    /* A process holds one CUPTI: when the program already loaded one (torch's wheels bring their own
     * libcupti, linked at import, before CUDA initialises), a second copy from another path would be a
     * second client of the driver's callbacks. Use the loaded one. */
    void* loaded = loaded_cupti();
    if (loaded != NULL) {
        return loaded;
    }
    const char* chosen = getenv("FLAGTRACE_CUPTI_LIBRARY");
    const char* names[] = {chosen, "libcupti.so", "libcupti.so.13", "libcupti.so.12"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i] != NULL && names[i][0] != '\0') {
            void* library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
            if (library != NULL || i == 0) {
                if (library == NULL) {
                    fprintf(stderr, "flagtrace: cannot load FLAGTRACE_CUPTI_LIBRARY %s: %s\n", names[i], dlerror());
                }
                return library;
            }
        }
    }
    fprintf(stderr, "flagtrace: cannot load libcupti (put CUPTI's lib64 on LD_LIBRARY_PATH or set"
                    " FLAGTRACE_CUPTI_LIBRARY); the program runs untraced\n");
    return NULL;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int _Atomic initialized; /* 1 once connected (and registered, unless registration waits for the first arm) */
/* The program's own CUPTI client registered before CUDA initialised: the call that did, or NULL. */
static const char* _Atomic taken_before_start;
/* 1 once flagtrace's buffer callbacks are registered with CUPTI; -1 when that failed (no window arms). */
static int _Atomic registered;
static void* cupti_library;

/* When flagtrace registers CUPTI's buffer callbacks. Registered and with nothing enabled, CUPTI costs torch's `x.add_(1)`
 * +0.33 to +0.77 us over plain (H100, CUDA 13.0, driver 580: benchmarks/results/2026-12-06-h100-d, 6 rounds), so a
 * process that starts disarmed registers at its first arm, where late registration is known to deliver: registered
 * after the context had launched, CUPTI 13 delivered 21,001 kernel records of 21,001 (the same results, section 2);
 * the seed found that older CUDAs delivered nothing so, so they keep registering at CUDA's initialisation. Nothing
 * else of CUPTI is called before then either: CUPTI initialises lazily at the first call of any of its functions
 * (CUPTI's guide, "CUPTI Initialization"), and that alone costs about what registering does (the same results: one
 * cuptiGetTimestamp, +0.55 us median, above plain in 5 of 6 rounds; libcupti merely loaded, nothing). So the
 * thread-id type is set, and CUPTI's clock read, at the first arm too (the hello's anchor is read on the real-time
 * clock then, CUPTI's fallback; a process started disarmed opens each window with its own anchor). A capture range
 * of the profiler API subscribes at start (its callbacks arm it) and arms inside CUPTI's callback, where registering
 * was never tried: it keeps registering at start. FLAGTRACE_RUN_REGISTER=start or =arm overrides (for measuring);
 * a process armed from its start always registers at start. */
enum { LATE_REGISTER_DRIVER = 13000 };

static int driver_version(void) {
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    int (*get)(int*) = driver == NULL ? NULL : (int (*)(int*)) dlsym(driver, "cuDriverGetVersion");
    int version = 0;
    if (get == NULL || get(&version) != 0) {
        version = 0;
    }
    if (driver != NULL) {
        dlclose(driver); /* the NOLOAD reference only */
    }
    return version;
}

static int register_at_arm(int later) {
    const char* chosen = getenv("FLAGTRACE_RUN_REGISTER");
    if (!later || (chosen != NULL && strcmp(chosen, "start") == 0)) {
        return 0;
    }
    if (chosen != NULL && strcmp(chosen, "arm") == 0) {
        return 1;
    }
    return handoff_capture_kind() != CAPTURE_PROFILER_API && driver_version() >= LATE_REGISTER_DRIVER;
}

/* CUPTI names a thread in its API records by a cut of pthread_self unless told otherwise (an H100 trace: thread
 * 607330304 = 0x24330700), while op and mark frames name it by the kernel's id, as torch's traces do: ask for the
 * kernel's id, so a thread's calls, ops and marks share one row. A CUPTI without the call keeps its default. Before
 * any record is kept: before the registration. */
static void touch_cupti(void) {
    int (*thread_id_type)(int) = (int (*)(int)) dlsym(cupti_library, "cuptiSetThreadIdType");
    if (thread_id_type != NULL) {
        thread_id_type(CUPTI_THREAD_ID_SYSTEM);
    }
    atomic_store(&cupti_touched, 1);
}

static int register_buffers(void) {
    if (cupti.registerCallbacks(handoff_buffer_requested, buffer_completed) != 0) {
        atomic_store(&registered, -1);
        return -1;
    }
    atomic_store(&registered, 1);
    return 0;
}

/* The vendor's attach (handoff_vendor.attach, called under the hand-off's control lock at each arm): registers at the
 * first one when registration waited for it. */
static int cupti_attach(void) {
    if (atomic_load(&registered) != 0) {
        return atomic_load(&registered) == 1 ? 0 : -1;
    }
    touch_cupti();
    if (register_buffers() != 0) {
        fprintf(stderr, "flagtrace: cuptiActivityRegisterCallbacks failed at the first window; the program runs untraced\n");
        return -1;
    }
    return 0;
}

static void initialize(void) {
    const char* path = handoff_socket();
    if (path == NULL) {
        return; /* not under flagtrace run, or a JVM (traced through its agent, in-process) */
    }
    if (atomic_load(&taken_before_start) != NULL) {
        fprintf(stderr, "flagtrace: the program's own CUPTI client (%s) took CUPTI before CUDA initialised; the"
                        " program runs untraced\n", atomic_load(&taken_before_start));
        return;
    }
    void* library = load_cupti();
    if (library == NULL || lookup(library, "cuptiActivityRegisterCallbacks", (void**) &cupti.registerCallbacks)
            || lookup(library, "cuptiActivityEnable", (void**) &cupti.enable)
            || lookup(library, "cuptiActivityDisable", (void**) &cupti.disable)
            || lookup(library, "cuptiActivityFlushAll", (void**) &cupti.flushAll)
            || lookup(library, "cuptiGetTimestamp", (void**) &cupti.timestamp)
            || lookup(library, "cuptiActivityPushExternalCorrelationId", (void**) &cupti.push)
            || lookup(library, "cuptiActivityPopExternalCorrelationId", (void**) &cupti.pop)
            || lookup(library, "cuptiActivityGetNextRecord", (void**) &cupti.nextRecord)) {
        return;
    }
    cupti_library = library;
    cupti.dropped = dlsym(library, "cuptiActivityGetNumDroppedRecords");
    cupti.enableDriverApi = dlsym(library, "cuptiActivityEnableDriverApi");
    cupti.enableRuntimeApi = dlsym(library, "cuptiActivityEnableRuntimeApi");
    int at_arm = register_at_arm(handoff_configure(&CUPTI));
    if (!at_arm) {
        touch_cupti(); /* the hello's anchor reads CUPTI's clock */
    }
    if (handoff_start(&CUPTI, path) != 0) {
        return;
    }
    if (!at_arm && register_buffers() != 0) {
        fprintf(stderr, "flagtrace: cuptiActivityRegisterCallbacks failed; the program runs untraced\n");
        return;
    }
    if (handoff_capture_kind() == CAPTURE_PROFILER_API) {
        subscribe_profiler_api(library);
    }
    atomic_store(&initialized, 1); /* before the reader can arm: a program's client from here on is arbitrated */
    handoff_begin();
}

/* The program's own CUPTI client (torch.profiler's kineto, an nsys-like tool): CUPTI has one set of buffer callbacks
 * and one timestamp source per process, so its registration would take flagtrace's buffers (kineto says "bufferCompleted
 * called with unknown buffer", and neither trace holds the kernels) and switch the clock under the window open (H100,
 * torch 2.11: the window's end before its start). `flagtrace run` preloads this library, so these two calls of the
 * program come here first: flagtrace closes its window (flushed to it, on the old clock) and steps aside for the rest of
 * the process (handoff_yield), then the call goes on to CUPTI unchanged. flagtrace's own registration goes to CUPTI
 * directly (through the handle, never through these). */
static void* cupti_symbol(const char* name) {
    void* next = dlsym(RTLD_NEXT, name);
    if (next == NULL) { /* a libcupti loaded into a library's own scope, not the global one */
        void* loaded = loaded_cupti();
        next = loaded == NULL ? NULL : dlsym(loaded, name);
    }
    return next;
}

static void program_client(const char* call) {
    if (!atomic_load(&initialized)) {
        atomic_store(&taken_before_start, call);
        return;
    }
    int did = handoff_yield(call); /* a window open: its end says so, and run does */
    if (did == YIELD_BEFORE_WINDOWS || did == YIELD_BETWEEN_WINDOWS) {
        fprintf(stderr, "flagtrace: the program's own CUPTI client (%s) took CUPTI %s; the program runs untraced from"
                        " here\n", call, did == YIELD_BEFORE_WINDOWS ? "before flagtrace's first window" : "between flagtrace's windows");
    }
}

enum { CUPTI_ERROR_NOT_INITIALIZED = 15 };

EXPORT int cuptiActivityRegisterCallbacks(requested_fn requested, completed_fn completed) {
    int (*real)(requested_fn, completed_fn) = (int (*)(requested_fn, completed_fn)) cupti_symbol("cuptiActivityRegisterCallbacks");
    if (requested != handoff_buffer_requested) {
        program_client("cuptiActivityRegisterCallbacks");
    }
    return real == NULL ? CUPTI_ERROR_NOT_INITIALIZED : real(requested, completed);
}

EXPORT int cuptiActivityRegisterTimestampCallback(uint64_t (*timestamp)(void)) {
    int (*real)(uint64_t (*)(void)) = (int (*)(uint64_t (*)(void))) cupti_symbol("cuptiActivityRegisterTimestampCallback");
    program_client("cuptiActivityRegisterTimestampCallback");
    return real == NULL ? CUPTI_ERROR_NOT_INITIALIZED : real(timestamp);
}

/* The program's own subscriber of CUPTI's callback API, which allows one per process: when this library holds it
 * (--capture-range cudaProfilerApi), it closes its window, steps aside and unsubscribes, so the program's subscribes. */
EXPORT int cuptiSubscribe(void** subscriber, void (*callback)(void*, int, uint32_t, const void*), void* userdata) {
    int (*real)(void**, void (*)(void*, int, uint32_t, const void*), void*) =
            (int (*)(void**, void (*)(void*, int, uint32_t, const void*), void*)) cupti_symbol("cuptiSubscribe");
    if (callback != profiler_api) {
        void* ours = atomic_exchange(&own_subscriber, NULL);
        if (ours != NULL) {
            program_client("cuptiSubscribe");
            int (*unsubscribe)(void*) = (int (*)(void*)) cupti_symbol("cuptiUnsubscribe");
            if (unsubscribe != NULL) {
                unsubscribe(ours);
            }
        }
    }
    return real == NULL ? CUPTI_ERROR_NOT_INITIALIZED : real(subscriber, callback, userdata);
}

/* The CUDA driver's hook: called once, at the driver's initialisation. */
EXPORT int InitializeInjection(void) {
    pthread_once(&once, initialize);
    return 1;
}
