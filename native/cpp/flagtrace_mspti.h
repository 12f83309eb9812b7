// Native side of flagtrace's Ascend MSPTI binding. libmspti.so is dlopen()ed by path (never
// linked) and its entry points looked up by their public names (mspti.h of github.com/Ascend/mspti).
// MSPTI's API is not CUPTI-shaped where it matters here: its buffer-completed callback takes no
// context or stream, and the subscriber is needed only to own the process's single MSPTI session.
// Nothing here decodes a record: buffers go to Java untouched, then are freed.
//
// Bound by JavaCPP (org.flagos.trace.natives.MsptiLibrary); compiled into the jar's JNI library.
#ifndef FLAGTRACE_MSPTI_H
#define FLAGTRACE_MSPTI_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mutex>
#include "flagtrace_shim.h"

typedef void (*ftm_requested_fn)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
typedef void (*ftm_completed_fn)(uint8_t* buffer, size_t size, size_t validSize);
typedef void (*ftm_callback_fn)(void* userdata, int domain, uint32_t cbid, const void* cbdata);

/**
 * Where a completed buffer goes: implemented in Java (MsptiLibrary.BufferSink), one for the whole
 * process; {@code library} is the completing ftm_library's key (ft_shim_key).
 */
typedef void (*ftm_sink_fn)(int64_t library, uint8_t* buffer, int64_t validSize);

struct ftm_library {
    void* handle;
    int (*subscribe)(void** subscriber, ftm_callback_fn callback, void* userdata);
    int (*unsubscribe)(void* subscriber);
    int (*registerCallbacks)(ftm_requested_fn, ftm_completed_fn);
    int (*enable)(int kind);
    int (*disable)(int kind);
    int (*flushAll)(uint32_t flag);
    int (*push)(int kind, uint64_t id);
    int (*pop)(int kind, uint64_t* last);
    void* subscriber;
    size_t bufferBytes;
    ftm_sink_fn sink;
    uint64_t buffersInFlight;
    uint64_t allocationFailures;
};

// MSPTI calls the buffer callbacks without a user pointer: one library is active at a time.
static ftm_library* ftm_active = NULL;
static std::mutex ftm_active_lock;

static void ftm_requested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    ftm_library* m = ftm_active;
    size_t bytes = m != NULL ? m->bufferBytes : 0;
    void* p = NULL;
    if (bytes == 0 || posix_memalign(&p, 8, bytes) != 0) {
        if (m != NULL) {
            __atomic_add_fetch(&m->allocationFailures, 1, __ATOMIC_RELAXED);
        }
        *buffer = NULL;
        *size = 0;
    } else {
        *buffer = (uint8_t*) p;
        *size = bytes;
        __atomic_add_fetch(&m->buffersInFlight, 1, __ATOMIC_RELAXED);
    }
    *maxNumRecords = 0;
}

static void ftm_completed(uint8_t* buffer, size_t size, size_t validSize) {
    ftm_library* m = ftm_active;
    if (m != NULL && m->sink != NULL && buffer != NULL && validSize <= size) {
        m->sink(ft_shim_key(m), buffer, (int64_t) validSize);
    }
    if (m != NULL && buffer != NULL) {
        __atomic_sub_fetch(&m->buffersInFlight, 1, __ATOMIC_RELAXED);
    }
    free(buffer);
}

// The subscriber exists to own MSPTI's one session; no callback domain is enabled.
static void ftm_ignore(void* userdata, int domain, uint32_t cbid, const void* cbdata) {
    (void) userdata;
    (void) domain;
    (void) cbid;
    (void) cbdata;
}

/**
 * Opens libmspti at {@code path} (a name the dynamic linker searches for, or a path) and binds its
 * entry points; null with the reason in {@code error} when it or a required entry point is missing.
 */
static ftm_library* ftm_open(const char* path, char* error, int errorLength) {
    void* handle = ft_shim_open(path, error, errorLength);
    if (handle == NULL) {
        return NULL;
    }
    ftm_library* m = new ftm_library();
    m->handle = handle;
    m->subscribe = (int (*)(void**, ftm_callback_fn, void*)) dlsym(handle, "msptiSubscribe");
    m->unsubscribe = (int (*)(void*)) dlsym(handle, "msptiUnsubscribe");
    m->registerCallbacks = (int (*)(ftm_requested_fn, ftm_completed_fn)) dlsym(handle, "msptiActivityRegisterCallbacks");
    m->enable = (int (*)(int)) dlsym(handle, "msptiActivityEnable");
    m->disable = (int (*)(int)) dlsym(handle, "msptiActivityDisable");
    m->flushAll = (int (*)(uint32_t)) dlsym(handle, "msptiActivityFlushAll");
    m->push = (int (*)(int, uint64_t)) dlsym(handle, "msptiActivityPushExternalCorrelationId");
    m->pop = (int (*)(int, uint64_t*)) dlsym(handle, "msptiActivityPopExternalCorrelationId");
    const char* missing = m->subscribe == NULL ? "msptiSubscribe"
            : m->unsubscribe == NULL ? "msptiUnsubscribe"
            : m->registerCallbacks == NULL ? "msptiActivityRegisterCallbacks"
            : m->enable == NULL ? "msptiActivityEnable"
            : m->disable == NULL ? "msptiActivityDisable"
            : m->flushAll == NULL ? "msptiActivityFlushAll"
            : m->push == NULL ? "msptiActivityPushExternalCorrelationId"
            : m->pop == NULL ? "msptiActivityPopExternalCorrelationId" : NULL;
    if (ft_shim_refuse(handle, path, "", missing, error, errorLength)) {
        delete m;
        return NULL;
    }
    return m;
}

/** msptiSubscribe: takes MSPTI's single subscriber slot; MSPTI's status. */
static int ftm_subscribe(ftm_library* m) {
    return m->subscribe(&m->subscriber, ftm_ignore, NULL);
}

/** msptiUnsubscribe of the subscriber taken by ftm_subscribe; 0 when there is none. */
static int ftm_unsubscribe(ftm_library* m) {
    if (m->subscriber == NULL) {
        return 0;
    }
    int status = m->unsubscribe(m->subscriber);
    m->subscriber = NULL;
    return status;
}

/** Makes {@code m} the active library and registers the buffer callbacks; MSPTI's status. */
static int ftm_register(ftm_library* m, int64_t bufferBytes, ftm_sink_fn sink) {
    if (sink == NULL) {
        return FT_SHIM_NO_SINK; // nothing registered: every buffer would be freed unread
    }
    std::lock_guard<std::mutex> guard(ftm_active_lock);
    m->bufferBytes = (size_t) bufferBytes;
    m->sink = sink;
    ftm_active = m;
    return m->registerCallbacks(ftm_requested, ftm_completed);
}

static int ftm_enable(ftm_library* m, int kind) {
    return m->enable(kind);
}

static int ftm_disable(ftm_library* m, int kind) {
    return m->disable(kind);
}

static int ftm_flush_all(ftm_library* m, int flag) {
    return m->flushAll((uint32_t) flag);
}

static int ftm_push(ftm_library* m, int kind, int64_t id) {
    return m->push(kind, (uint64_t) id);
}

/**
 * Pops with a real out-parameter, always: CANN 9.0 refuses a null one with
 * MSPTI_ERROR_INVALID_PARAMETER and leaves its stack as it was.
 */
static int ftm_pop(ftm_library* m, int kind, int64_t* last) {
    uint64_t popped = 0;
    int status = m->pop(kind, &popped);
    *last = (int64_t) popped;
    return status;
}

/**
 * Calls {@code int64_t symbol(int64_t)} in the library: how a workload drives a library's own entry
 * points (the fake MSPTI's scripted launches); -1 with nothing called when it is absent.
 */
static int64_t ftm_invoke(ftm_library* m, const char* symbol, int64_t argument) {
    return ft_shim_invoke(m->handle, symbol, argument);
}

/** Buffers handed to MSPTI and not yet completed. */
static int64_t ftm_buffers_in_flight(ftm_library* m) {
    return ft_shim_count(&m->buffersInFlight);
}

/** Buffers MSPTI asked for that could not be allocated. */
static int64_t ftm_allocation_failures(ftm_library* m) {
    return ft_shim_count(&m->allocationFailures);
}

/**
 * Stops routing buffers to Java. The library stays loaded: CANN may keep interposed ACL function
 * pointers for the life of the process.
 */
static void ftm_detach(ftm_library* m) {
    ft_shim_detach(m, ftm_active, ftm_active_lock);
}

#endif
