/* flagtrace's preloaded library for Ascend: `flagtrace run` puts it in LD_PRELOAD, as the original
 * system preloads MSPTI (Ascend has no injection hook like CUDA_INJECTION64_PATH). Its constructor,
 * in a process that is under `flagtrace run` (FLAGTRACE_RUN_SOCKET) and is not a JVM, arms once ACL's
 * runtime (libascendcl.so) is loaded: at start when the program links it, else at the dlopen that
 * brings it in (a Python program importing torch_npu; this library's dlopen passes every call on and
 * looks for ACL after each, until it arms):
 *  - loads libmspti (FLAGTRACE_MSPTI_LIBRARY, else libmspti.so from the library path, else
 *    $ASCEND_HOME_PATH/tools/mspti/lib64/libmspti.so or .../lib64/libmspti.so), subscribes, registers the buffer callbacks and enables the
 *    kinds flagtrace's in-process MspTracer enables (KERNEL, MEMCPY, MEMSET, EXTERNAL_CORRELATION,
 *    ACL_API, NODE_API, RUNTIME_API; API where RUNTIME_API is refused);
 *  - turns mstx ranges into host ops: it defines mstxRangeStartA and mstxRangeEnd, which the preload
 *    puts before libms_tools_ext.so's; a start pushes a fresh External id
 *    (msptiActivityPushExternalCorrelationId, CUSTOM0), so the device work launched inside is
 *    attributed to the innermost range, and an end pops it and hands the op over; it defines mstxMarkA too, whose
 *    mark becomes an instant of the calling thread (no External id, not an op);
 *  - hands each completed buffer, unchanged, as a .fltrbuf frame of MSPTI's vendor id (2), with the
 *    strings its records point to (API names, kernel names and types, once per pointer).
 * The hand-off (queue, sender thread, frames, anchors, ranges, end) is flagtrace_handoff.c, shared
 * with the CUPTI library. No CANN header is needed: the entry points used are declared here and
 * looked up by name. MSPTI's clock is CLOCK_REALTIME's epoch nanoseconds. */
#define _GNU_SOURCE
#include "flagtrace_handoff.h"
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* An MSPTI buffer is exactly a .fltrbuf frame of vendor 2 (MsptiTracer.DUMP_VENDOR). */
enum { MSPTI_VENDOR = 2 };

/* msptiActivityKind (mspti_activity.h), and the CUSTOM0 external kind flagtrace pushes op ids as. */
enum {
    KIND_MARKER = 1, KIND_KERNEL = 2, KIND_API = 3, KIND_HCCL = 4, KIND_MEMORY = 5, KIND_MEMSET = 6, KIND_MEMCPY = 7,
    KIND_EXTERNAL_CORRELATION = 8, KIND_COMMUNICATION = 9, KIND_ACL_API = 10, KIND_NODE_API = 11, KIND_RUNTIME_API = 12,
    EXTERNAL_CUSTOM0 = 2
};
/* As MsptiTracer.SESSION_KINDS: device work first, bindings before the calls they bind. */
static const int KINDS[] = {KIND_KERNEL, KIND_MEMCPY, KIND_MEMSET, KIND_EXTERNAL_CORRELATION, KIND_ACL_API,
                            KIND_NODE_API, KIND_RUNTIME_API};
/* Offsets of the string pointers in the packed records (msptiActivityApi, msptiActivityKernel). */
enum { API_NAME_OFFSET = 36, KERNEL_TYPE_OFFSET = 36, KERNEL_NAME_OFFSET = 44 };
/* Offsets of the device records' end (msptiActivityKernel; msptiActivityMemcpy and msptiActivityMemset). */
enum { KERNEL_END_OFFSET = 12, MEMORY_END_OFFSET = 24 };

typedef void (*requested_fn)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
typedef void (*completed_fn)(uint8_t* buffer, size_t size, size_t validSize);

static struct {
    int (*subscribe)(void** subscriber, void* callback, void* userdata);
    int (*unsubscribe)(void* subscriber);
    int (*registerCallbacks)(requested_fn, completed_fn);
    int (*enable)(int kind);
    int (*disable)(int kind);
    int (*flushAll)(uint32_t flag);
    int (*push)(int kind, uint64_t id);
    int (*pop)(int kind, uint64_t* last);
} mspti;
static void* subscriber;
static int legacy_api_kind; /* a CANN from before the ACL/NODE/RUNTIME split: its one API kind */
static int traced;          /* 1 once armed: mstx ranges are this library's from then on */
static atomic_ullong next_range_id;
/* 1 while a process under run has not loaded ACL yet: each dlopen then looks for it (arm_when_acl_loaded). */
static atomic_int waiting_for_acl;
/* The C library's dlopen: this library's own loads must not come back through its interposer. */
static void* (*real_dlopen)(const char*, int);

static uint64_t mspti_now(void) {
    return handoff_clock_ns(CLOCK_REALTIME);
}

static void mspti_enable(void) {
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
        if (mspti.enable(KINDS[i]) != 0 && KINDS[i] == KIND_RUNTIME_API && mspti.enable(KIND_API) == 0) {
            legacy_api_kind = 1; /* otherwise a kind this MSPTI refuses is simply not recorded */
        }
    }
}

static void mspti_disable(void) {
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
        mspti.disable(KINDS[i]);
    }
    if (legacy_api_kind) {
        mspti.disable(KIND_API);
    }
}

static void mspti_flush(void) {
    mspti.flushAll(1);
}

static int mspti_push(uint64_t id) {
    return mspti.push(EXTERNAL_CUSTOM0, id);
}

static void mspti_pop(void) {
    uint64_t last; /* always a real out-parameter: CANN 9.0 refuses a null one without unwinding */
    mspti.pop(EXTERNAL_CUSTOM0, &last);
}

static const handoff_vendor MSPTI = {"mspti", MSPTI_VENDOR, mspti_now, mspti_enable, mspti_disable, mspti_flush, NULL,
                                     mspti_push, mspti_pop, "mstx", NULL};

/* The bytes a record of `kind` occupies (packed structs, 8-byte alignment), or 0 for a kind the
 * header does not define: as MsptiActivityKind.recordSize. */
static size_t record_size(uint32_t kind) {
    switch (kind) {
        case KIND_MARKER: case KIND_KERNEL: case KIND_HCCL: case KIND_MEMSET: case KIND_MEMCPY: return 56;
        case KIND_API: case KIND_ACL_API: case KIND_NODE_API: case KIND_RUNTIME_API: return 48;
        case KIND_MEMORY: return 64;
        case KIND_EXTERNAL_CORRELATION: return 24;
        case KIND_COMMUNICATION: return 72;
        default: return 0;
    }
}

static const char* pointer_at(const uint8_t* record, size_t offset) {
    const char* p;
    memcpy(&p, record + offset, sizeof p);
    return p;
}

/* Hands over the strings the buffer's records point to, not handed over before; counts its records.
 * An unknown kind ends the walk, as it ends the decoder's. */
static void hand_names(const uint8_t* buffer, size_t validSize, record_counts* counts) {
    for (size_t at = 0; at + 4 <= validSize;) {
        uint32_t kind;
        memcpy(&kind, buffer + at, 4);
        size_t size = record_size(kind);
        if (size == 0 || at + size > validSize) {
            return;
        }
        const uint8_t* record = buffer + at;
        counts->records++;
        counts->memcpys += kind == KIND_MEMCPY;
        counts->memsets += kind == KIND_MEMSET;
        if (kind == KIND_KERNEL || kind == KIND_MEMCPY || kind == KIND_MEMSET) {
            uint64_t end;
            memcpy(&end, record + (kind == KIND_KERNEL ? KERNEL_END_OFFSET : MEMORY_END_OFFSET), sizeof end);
            counts->device_end = end > counts->device_end ? end : counts->device_end;
        }
        if (kind == KIND_KERNEL) {
            counts->kernels++;
            handoff_name(pointer_at(record, KERNEL_TYPE_OFFSET));
            handoff_name(pointer_at(record, KERNEL_NAME_OFFSET));
        } else if (kind == KIND_API || kind == KIND_ACL_API || kind == KIND_NODE_API || kind == KIND_RUNTIME_API) {
            handoff_name(pointer_at(record, API_NAME_OFFSET));
        }
        at += size;
    }
}

static void buffer_completed(uint8_t* buffer, size_t size, size_t validSize) {
    (void) size;
    if (buffer == NULL) {
        return;
    }
    if (validSize == 0 || !handoff_armed()) {
        free(buffer);
        return;
    }
    handoff_tick();
    record_counts counts = {0, 0, 0, 0, 0};
    hand_names(buffer, validSize, &counts);
    handoff_buffer(buffer, validSize, counts);
}

/* At exit: unsubscribe first, then close the window still armed (disable, flush: the order MsptiTracer
 * measured on CANN 9.0) and the stream, and wait (10 s at most) until everything is sent. */
static void finish(void) {
    mspti.unsubscribe(subscriber);
    handoff_exit();
}

static int lookup(void* library, const char* name, void** slot) {
    *slot = dlsym(library, name);
    if (*slot == NULL) {
        fprintf(stderr, "flagtrace: libmspti has no %s; the program runs untraced\n", name);
        return -1;
    }
    return 0;
}

static void* load_mspti(void) {
    const char* chosen = getenv("FLAGTRACE_MSPTI_LIBRARY");
    if (chosen != NULL && chosen[0] != '\0') {
        void* library = real_dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            fprintf(stderr, "flagtrace: cannot load FLAGTRACE_MSPTI_LIBRARY %s: %s\n", chosen, dlerror());
        }
        return library;
    }
    void* library = real_dlopen("libmspti.so", RTLD_NOW | RTLD_LOCAL);
    const char* home = getenv("ASCEND_HOME_PATH");
    /* Where CANN installs it (the toolkit's tools/mspti/lib64), then the toolkit's lib64; as MsptiTracer. */
    static const char* const UNDER_HOME[] = {"tools/mspti/lib64/libmspti.so", "lib64/libmspti.so"};
    for (size_t i = 0; library == NULL && home != NULL && home[0] != '\0' && i < sizeof UNDER_HOME / sizeof UNDER_HOME[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", home, UNDER_HOME[i]);
        library = real_dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        fprintf(stderr, "flagtrace: cannot load libmspti (put CANN's lib64 on LD_LIBRARY_PATH, set ASCEND_HOME_PATH or"
                        " FLAGTRACE_MSPTI_LIBRARY); the program runs untraced\n");
    }
    return library;
}

/* Loads MSPTI, subscribes and connects: the process is traced from here on. */
static void arm(const char* path) {
    void* library = load_mspti();
    if (library == NULL || lookup(library, "msptiSubscribe", (void**) &mspti.subscribe)
            || lookup(library, "msptiUnsubscribe", (void**) &mspti.unsubscribe)
            || lookup(library, "msptiActivityRegisterCallbacks", (void**) &mspti.registerCallbacks)
            || lookup(library, "msptiActivityEnable", (void**) &mspti.enable)
            || lookup(library, "msptiActivityDisable", (void**) &mspti.disable)
            || lookup(library, "msptiActivityFlushAll", (void**) &mspti.flushAll)
            || lookup(library, "msptiActivityPushExternalCorrelationId", (void**) &mspti.push)
            || lookup(library, "msptiActivityPopExternalCorrelationId", (void**) &mspti.pop)) {
        return;
    }
    int status = mspti.subscribe(&subscriber, NULL, NULL);
    if (status != 0) {
        fprintf(stderr, "flagtrace: msptiSubscribe returned %d (another MSPTI subscriber owns this process?); the"
                        " program runs untraced\n", status);
        return;
    }
    /* Registered before the connection: a buffer completed before the first window is freed, not handed over. */
    if (mspti.registerCallbacks(handoff_buffer_requested, buffer_completed) != 0
            || handoff_start(&MSPTI, path) != 0) {
        mspti.unsubscribe(subscriber);
        return;
    }
    traced = 1;
    handoff_begin();
    atexit(finish); /* after handoff_begin's: runs before it */
}

static int acl_loaded(void) {
    return real_dlopen("libascendcl.so", RTLD_LAZY | RTLD_NOLOAD) != NULL;
}

/* After a dlopen of the program's: arms, once, if that load brought ACL in. */
static void arm_when_acl_loaded(void) {
    int waiting = 1;
    if (acl_loaded() && atomic_compare_exchange_strong(&waiting_for_acl, &waiting, 0)) {
        const char* path = handoff_socket();
        if (path != NULL) {
            arm(path);
        }
    }
}

__attribute__((constructor)) static void initialize(void) {
    real_dlopen = (void* (*)(const char*, int)) dlsym(RTLD_NEXT, "dlopen");
    const char* path = handoff_socket();
    if (path == NULL || real_dlopen == NULL) {
        return; /* not under flagtrace run, or a JVM (traced through its agent, in-process) */
    }
    if (!acl_loaded()) {
        atomic_store(&waiting_for_acl, 1); /* not an Ascend program yet: a shell, a launcher, a CUDA program, or one that loads ACL later */
        return;
    }
    arm(path);
}

/* The program's dlopen, passed on unchanged; while ACL is not loaded, each one that succeeds is checked for it. */
EXPORT void* dlopen(const char* file, int mode) {
    if (real_dlopen == NULL) { /* a dlopen from another library's constructor, before this one's */
        real_dlopen = (void* (*)(const char*, int)) dlsym(RTLD_NEXT, "dlopen");
        if (real_dlopen == NULL) {
            return NULL;
        }
    }
    void* handle = real_dlopen(file, mode);
    if (handle != NULL && atomic_load(&waiting_for_acl)) {
        arm_when_acl_loaded();
    }
    return handle;
}

/* mstx (libms_tools_ext.so): a traced process's ranges are this library's, with ids of its own; an
 * untraced one's go on to the next definition, as if this library were not there. */
typedef uint64_t mstxRangeId;

EXPORT mstxRangeId mstxRangeStartA(const char* message, void* stream) {
    if (!traced) {
        mstxRangeId (*next)(const char*, void*) = (mstxRangeId (*)(const char*, void*)) dlsym(RTLD_NEXT, "mstxRangeStartA");
        return next != NULL ? next(message, stream) : 0;
    }
    mstxRangeId id = atomic_fetch_add(&next_range_id, 1) + 1;
    handoff_range_push(message, NULL, id);
    return id;
}

/* A mark: an instant of the calling thread (handoff_mark), its stream not kept (the trace draws it on the thread). */
EXPORT void mstxMarkA(const char* message, void* stream) {
    if (!traced) {
        void (*next)(const char*, void*) = (void (*)(const char*, void*)) dlsym(RTLD_NEXT, "mstxMarkA");
        if (next != NULL) {
            next(message, stream);
        }
        return;
    }
    handoff_mark(message, NULL);
}

EXPORT void mstxRangeEnd(mstxRangeId id) {
    if (!traced) {
        void (*next)(mstxRangeId) = (void (*)(mstxRangeId)) dlsym(RTLD_NEXT, "mstxRangeEnd");
        if (next != NULL) {
            next(id);
        }
        return;
    }
    handoff_range_end(id);
}
