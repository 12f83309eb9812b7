// Native side of flagtrace's CUPTI-shaped activity libraries (MUSA MUPTI, Enflame TOPSPTI, MetaX
// MCPTI, PPU's CUPTI): the vendor library is dlopen()ed by path and its entry points looked up by
// the vendor's prefix ("mupti" + "ActivityEnable", ...), so one shim serves every vendor whose API
// follows CUPTI's signatures. Nothing here decodes a record: buffers go to Java untouched.
//
// Bound by JavaCPP (org.flagos.trace.natives.CuptiFamilyLibrary); compiled into the jar's JNI
// library by the build.
#ifndef FLAGTRACE_CUPTI_FAMILY_H
#define FLAGTRACE_CUPTI_FAMILY_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mutex>
#include <string>
#include <vector>
#include "flagtrace_shim.h"

typedef void (*ft_buffer_requested_fn)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
typedef void (*ft_buffer_completed_fn)(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize);
typedef void (*ft_api_callback_fn)(void* userdata, int domain, uint32_t cbid, const void* cbdata);

/**
 * Where a completed buffer goes: implemented in Java (CuptiFamilyLibrary.BufferSink), one for the
 * whole process; {@code library} is the completing ft_family's key (ft_shim_key), by which Java
 * finds the tracer.
 */
typedef void (*ft_buffer_sink_fn)(int64_t library, uint8_t* buffer, int64_t validSize);

struct ft_family {
    void* handle;
    std::string prefix;
    int (*registerCallbacks)(ft_buffer_requested_fn, ft_buffer_completed_fn);
    int (*enable)(int kind);
    int (*disable)(int kind);
    int (*flushAll)(uint32_t flag);
    int (*timestamp)(uint64_t* now);
    int (*push)(int kind, uint64_t id);
    int (*pop)(int kind, uint64_t* last);
    int (*dropped)(void* context, uint32_t streamId, size_t* dropped);
    int (*subscribe)(void** subscriber, ft_api_callback_fn callback, void* userdata);
    int (*enableDomain)(uint32_t enable, void* subscriber, int domain);
    int (*unsubscribe)(void* subscriber);
    int (*callbackName)(int domain, uint32_t cbid, const char** name);
    int (*apiName)(int kind, uint32_t id, const char** name);
    void* subscriber;
    size_t bufferBytes;
    ft_buffer_sink_fn sink;
    std::mutex pairsLock;
    std::vector<uint64_t> pairs; // (vendor correlation, External id) captured at API enter
    uint64_t buffersInFlight;
    uint64_t allocationFailures;
};

// The vendor calls our buffer callbacks without a user pointer: one library is active at a time.
static ft_family* ft_active = NULL;
static std::mutex ft_active_lock;

// External ids for a vendor without push/pop (TOPSPTI): this thread's stack, read at API enter.
static thread_local uint64_t ft_external_stack[64];
static thread_local int ft_external_depth = 0;

static void* ft_sym(ft_family* f, const char* suffix) {
    std::string name = f->prefix + suffix;
    return dlsym(f->handle, name.c_str());
}

static void ft_requested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    ft_family* f = ft_active;
    size_t bytes = f != NULL ? f->bufferBytes : 0;
    void* p = NULL;
    if (bytes == 0 || posix_memalign(&p, 8, bytes) != 0) {
        if (f != NULL) {
            __atomic_add_fetch(&f->allocationFailures, 1, __ATOMIC_RELAXED);
        }
        *buffer = NULL;
        *size = 0;
    } else {
        *buffer = (uint8_t*) p;
        *size = bytes;
        if (f != NULL) {
            __atomic_add_fetch(&f->buffersInFlight, 1, __ATOMIC_RELAXED);
        }
    }
    *maxNumRecords = 0;
}

static void ft_completed(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize) {
    (void) context;
    (void) streamId;
    ft_family* f = ft_active;
    if (f != NULL && f->sink != NULL && buffer != NULL && validSize <= size) {
        f->sink(ft_shim_key(f), buffer, (int64_t) validSize);
    }
    if (f != NULL && buffer != NULL) {
        __atomic_sub_fetch(&f->buffersInFlight, 1, __ATOMIC_RELAXED);
    }
    free(buffer);
}

// CUpti_CallbackData's layout: callbackSite (0 = enter) at 0, correlationId (u32) at 64.
static void ft_api_enter(void* userdata, int domain, uint32_t cbid, const void* cbdata) {
    (void) domain;
    (void) cbid;
    ft_family* f = (ft_family*) userdata;
    if (f == NULL || cbdata == NULL || ft_external_depth <= 0) {
        return;
    }
    int32_t site;
    uint32_t correlation;
    memcpy(&site, cbdata, sizeof site);
    memcpy(&correlation, (const uint8_t*) cbdata + 64, sizeof correlation);
    if (site != 0 || correlation == 0) {
        return;
    }
    int depth = ft_external_depth > 64 ? 64 : ft_external_depth;
    std::lock_guard<std::mutex> guard(f->pairsLock);
    f->pairs.push_back(correlation);
    f->pairs.push_back(ft_external_stack[depth - 1]);
}

/**
 * Opens the vendor library at {@code path} (a name the dynamic linker searches for, or a path) and
 * binds its entry points by {@code prefix}; null with the reason in {@code error} when the library
 * or one of the required entry points is missing.
 */
static ft_family* ft_family_open(const char* path, const char* prefix, char* error, int errorLength) {
    void* handle = ft_shim_open(path, error, errorLength);
    if (handle == NULL) {
        return NULL;
    }
    ft_family* f = new ft_family();
    f->handle = handle;
    f->prefix = prefix;
    f->registerCallbacks = (int (*)(ft_buffer_requested_fn, ft_buffer_completed_fn)) ft_sym(f, "ActivityRegisterCallbacks");
    f->enable = (int (*)(int)) ft_sym(f, "ActivityEnable");
    f->disable = (int (*)(int)) ft_sym(f, "ActivityDisable");
    f->flushAll = (int (*)(uint32_t)) ft_sym(f, "ActivityFlushAll");
    f->timestamp = (int (*)(uint64_t*)) ft_sym(f, "GetTimestamp");
    f->push = (int (*)(int, uint64_t)) ft_sym(f, "ActivityPushExternalCorrelationId");
    f->pop = (int (*)(int, uint64_t*)) ft_sym(f, "ActivityPopExternalCorrelationId");
    f->dropped = (int (*)(void*, uint32_t, size_t*)) ft_sym(f, "ActivityGetNumDroppedRecords");
    f->subscribe = (int (*)(void**, ft_api_callback_fn, void*)) ft_sym(f, "Subscribe");
    f->enableDomain = (int (*)(uint32_t, void*, int)) ft_sym(f, "EnableDomain");
    f->unsubscribe = (int (*)(void*)) ft_sym(f, "Unsubscribe");
    f->callbackName = (int (*)(int, uint32_t, const char**)) ft_sym(f, "GetCallbackName");
    f->apiName = (int (*)(int, uint32_t, const char**)) ft_sym(f, "ActivityGetApiName");
    const char* missing = f->registerCallbacks == NULL ? "ActivityRegisterCallbacks"
            : f->enable == NULL ? "ActivityEnable"
            : f->disable == NULL ? "ActivityDisable"
            : f->flushAll == NULL ? "ActivityFlushAll" : NULL;
    if (ft_shim_refuse(handle, path, prefix, missing, error, errorLength)) {
        delete f;
        return NULL;
    }
    return f;
}

/** True when the library exports {@code prefix + suffix}. */
static int ft_family_has(ft_family* f, const char* suffix) {
    return ft_sym(f, suffix) != NULL ? 1 : 0;
}

/**
 * Makes {@code f} the active library and registers the buffer callbacks; the vendor's status, or
 * FT_SHIM_NO_SINK with nothing registered when {@code sink} is null.
 */
static int ft_family_register(ft_family* f, int64_t bufferBytes, ft_buffer_sink_fn sink) {
    if (sink == NULL) {
        return FT_SHIM_NO_SINK;
    }
    std::lock_guard<std::mutex> guard(ft_active_lock);
    f->bufferBytes = (size_t) bufferBytes;
    f->sink = sink;
    ft_active = f;
    return f->registerCallbacks(ft_requested, ft_completed);
}

/**
 * Makes {@code f}, registered before, the active library again: the vendors call the buffer
 * callbacks without a user pointer, so after another library's tracer registered, {@code f}'s
 * buffers would go to that library's sink. 0, or FT_SHIM_NO_SINK when {@code f} has no sink
 * (never registered, or detached).
 */
static int ft_family_activate(ft_family* f) {
    std::lock_guard<std::mutex> guard(ft_active_lock);
    if (f->sink == NULL) {
        return FT_SHIM_NO_SINK;
    }
    ft_active = f;
    return 0;
}

static int ft_family_enable(ft_family* f, int kind) {
    return f->enable(kind);
}

static int ft_family_disable(ft_family* f, int kind) {
    return f->disable(kind);
}

static int ft_family_flush_all(ft_family* f, int flag) {
    return f->flushAll((uint32_t) flag);
}

/** The vendor clock in ns, or -1 when the library has no GetTimestamp or it failed. */
static int64_t ft_family_timestamp(ft_family* f) {
    uint64_t now = 0;
    if (f->timestamp == NULL || f->timestamp(&now) != 0) {
        return -1;
    }
    return (int64_t) now;
}

/** Pushes {@code id}: through the vendor when it has push, else onto this thread's own stack. */
static int ft_family_push(ft_family* f, int kind, int64_t id) {
    if (f->push != NULL) {
        return f->push(kind, (uint64_t) id);
    }
    if (ft_external_depth < 64) {
        ft_external_stack[ft_external_depth] = (uint64_t) id;
    }
    ft_external_depth++;
    return 0;
}

/** Pops with a real out-parameter (a vendor may refuse a null one without unwinding). */
static int ft_family_pop(ft_family* f, int kind, int64_t* last) {
    uint64_t popped = 0;
    int status = 0;
    if (f->pop != NULL) {
        status = f->pop(kind, &popped);
    } else if (ft_external_depth > 0) {
        ft_external_depth--;
        popped = ft_external_depth < 64 ? ft_external_stack[ft_external_depth] : 0;
    } else {
        status = 1;
    }
    *last = (int64_t) popped;
    return status;
}

/** Records the vendor dropped, or -1 when it cannot say. */
static int64_t ft_family_dropped(ft_family* f) {
    size_t n = 0;
    if (f->dropped == NULL || f->dropped(NULL, 0, &n) != 0) {
        return -1;
    }
    return (int64_t) n;
}

/**
 * Subscribes to the runtime API domain ({@code domain}) so each API enter records the calling
 * thread's External id under the call's correlation id (for vendors without external-correlation
 * records); the vendor's status, or -1 when it has no callback API.
 */
static int ft_family_capture_api_enter(ft_family* f, int domain) {
    if (f->subscribe == NULL || f->enableDomain == NULL) {
        return -1;
    }
    int status = f->subscribe(&f->subscriber, ft_api_enter, f);
    if (status != 0) {
        return status;
    }
    return f->enableDomain(1, f->subscriber, domain);
}

/** Moves up to {@code maxPairs} captured (correlation, External id) pairs into {@code out}; how many. */
static int ft_family_take_pairs(ft_family* f, int64_t* out, int maxPairs) {
    std::lock_guard<std::mutex> guard(f->pairsLock);
    size_t available = f->pairs.size() / 2;
    size_t n = available < (size_t) maxPairs ? available : (size_t) maxPairs;
    memcpy(out, f->pairs.data(), n * 2 * sizeof(uint64_t));
    f->pairs.erase(f->pairs.begin(), f->pairs.begin() + (long) (n * 2));
    return (int) n;
}

static int ft_family_unsubscribe(ft_family* f) {
    if (f->subscriber == NULL || f->unsubscribe == NULL) {
        return 0;
    }
    int status = f->unsubscribe(f->subscriber);
    f->subscriber = NULL;
    return status;
}

/** The vendor's name for a callback id (GetCallbackName, then ActivityGetApiName), or null. */
static const char* ft_family_api_name(ft_family* f, int domainOrKind, int id) {
    const char* name = NULL;
    if (f->callbackName != NULL && f->callbackName(domainOrKind, (uint32_t) id, &name) == 0 && name != NULL) {
        return name;
    }
    if (f->apiName != NULL && f->apiName(domainOrKind, (uint32_t) id, &name) == 0 && name != NULL) {
        return name;
    }
    return NULL;
}

/**
 * The vendor's name for API id {@code id} of activity kind {@code kind} through ActivityGetApiName
 * alone (MCPTI's resolver, keyed by activity kind, not by callback domain), or null. The caller must
 * make sure no buffer callback is running: MCPTI's resolver can deadlock inside one.
 */
static const char* ft_family_activity_api_name(ft_family* f, int kind, int id) {
    const char* name = NULL;
    if (f->apiName != NULL && f->apiName(kind, (uint32_t) id, &name) == 0 && name != NULL) {
        return name;
    }
    return NULL;
}

/**
 * Calls {@code int64_t symbol(int64_t)} in the library: how a workload drives a library's own entry
 * points (the fake vendor libraries' scripted launches); -1 with nothing called when it is absent.
 */
static int64_t ft_family_invoke(ft_family* f, const char* symbol, int64_t argument) {
    return ft_shim_invoke(f->handle, symbol, argument);
}

/** Buffers handed to the vendor and not yet completed. */
static int64_t ft_family_buffers_in_flight(ft_family* f) {
    return ft_shim_count(&f->buffersInFlight);
}

/** Buffers the vendor asked for that could not be allocated. */
static int64_t ft_family_allocation_failures(ft_family* f) {
    return ft_shim_count(&f->allocationFailures);
}

/**
 * Stops routing buffers to Java. The library stays loaded: a vendor may keep interposed function
 * pointers for the life of the process.
 */
static void ft_family_detach(ft_family* f) {
    ft_shim_detach(f, ft_active, ft_active_lock);
}

#endif
