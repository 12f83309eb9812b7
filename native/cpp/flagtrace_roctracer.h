// Native side of flagtrace's ROCtracer binding (AMD ROCm, Hygon DCU): libroctracer64 is dlopen()ed
// by path and only the entry points every public release exports are bound: the "_expl" pool calls
// (the plain ones were static inline in the header up to rocm-5.2), domain enable/disable, the
// external-correlation push/pop, roctracer_op_string and roctracer_get_timestamp.
//
// One job beyond the binding: a HIP_OPS dispatch record's kernel_name points into the tail of the
// pool buffer that holds it (roctracer >= rocm-5.3), valid only while the buffer callback runs and
// reused for another name by a later buffer. The shim copies each buffer's records, interns every
// kernel name into strings it keeps for the process's life, and points the copy's kernel_name at
// them. Java then sees what CUPTI gives: one stable pointer per distinct kernel name, readable at
// any time, the same value in every buffer. Nothing else in the records is touched.
//
// Bound by JavaCPP (org.flagos.trace.natives.RoctracerLibrary); compiled into the jar's JNI library
// by the build.
#ifndef FLAGTRACE_ROCTRACER_H
#define FLAGTRACE_ROCTRACER_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>
#include "flagtrace_shim.h"

// roctracer_properties_t (roctracer.h, identical in the 4.0 and 4.1 APIs): 48 bytes on LP64.
struct ft_roc_properties {
    uint32_t mode;
    size_t buffer_size;
    void (*alloc_fun)(char** ptr, size_t size, void* arg);
    void* alloc_arg;
    void (*buffer_callback_fun)(const char* begin, const char* end, void* arg);
    void* buffer_callback_arg;
};
static_assert(sizeof(ft_roc_properties) == 48, "roctracer_properties_t is 48 bytes");
static_assert(offsetof(ft_roc_properties, buffer_size) == 8, "buffer_size at 8");
static_assert(offsetof(ft_roc_properties, buffer_callback_fun) == 32, "buffer_callback_fun at 32");
static_assert(offsetof(ft_roc_properties, buffer_callback_arg) == 40, "buffer_callback_arg at 40");

// activity_record_t: 64 bytes in every release; the offsets this file reads.
static const size_t FT_ROC_RECORD = 64;
static const size_t FT_ROC_DOMAIN_AT = 0;
static const size_t FT_ROC_OP_AT = 8;
static const size_t FT_ROC_NAME_AT = 56;
static const uint32_t FT_ROC_DOMAIN_HIP_OPS = 2;
static const uint32_t FT_ROC_OP_DISPATCH = 0;
// A kernel name longer than this is cut: no HIP kernel name comes near it.
static const size_t FT_ROC_MAX_NAME = 1 << 16;

/** Where a completed buffer goes: implemented in Java (RoctracerLibrary.BufferSink). */
typedef void (*ft_roc_sink_fn)(int64_t library, uint8_t* records, int64_t size);

struct ft_roc {
    void* handle;
    int (*open_pool_expl)(const ft_roc_properties* properties, void** pool);
    int (*close_pool_expl)(void* pool);
    int (*enable_domain_activity_expl)(uint32_t domain, void* pool);
    int (*disable_domain_activity)(uint32_t domain);
    int (*flush_activity_expl)(void* pool);
    int (*push)(uint64_t id);
    int (*pop)(uint64_t* last);
    const char* (*op_string)(uint32_t domain, uint32_t op, uint32_t kind);
    int (*get_timestamp)(uint64_t* now);
    uint32_t (*version_major)(void);
    uint32_t (*version_minor)(void);
    void* pool;
    ft_roc_sink_fn sink;
    std::mutex lock; // one buffer at a time: the scratch copy and the sink (held while Java decodes)
    std::mutex namesLock; // the name sets: never held while Java runs
    std::vector<uint8_t> scratch;
    std::unordered_set<std::string> names; // node-based: an element's c_str() never moves
    std::unordered_set<uintptr_t> interned; // the c_str() of every element of names
    int namesInRecords;
    uint64_t buffers;
    uint64_t unreadNames;
};

static void* ft_roc_sym(void* handle, const char* name) {
    return dlsym(handle, name);
}

/**
 * Opens libroctracer at {@code path} (a name the dynamic linker searches for, or a path) and binds
 * its entry points; null with the reason in {@code error} when the library or a required entry
 * point is missing.
 */
static ft_roc* ft_roc_open(const char* path, char* error, int errorLength) {
    void* handle = ft_shim_open(path, error, errorLength);
    if (handle == NULL) {
        return NULL;
    }
    ft_roc* r = new ft_roc();
    r->handle = handle;
    r->open_pool_expl = (int (*)(const ft_roc_properties*, void**)) ft_roc_sym(handle, "roctracer_open_pool_expl");
    r->close_pool_expl = (int (*)(void*)) ft_roc_sym(handle, "roctracer_close_pool_expl");
    r->enable_domain_activity_expl = (int (*)(uint32_t, void*)) ft_roc_sym(handle, "roctracer_enable_domain_activity_expl");
    r->disable_domain_activity = (int (*)(uint32_t)) ft_roc_sym(handle, "roctracer_disable_domain_activity");
    r->flush_activity_expl = (int (*)(void*)) ft_roc_sym(handle, "roctracer_flush_activity_expl");
    r->push = (int (*)(uint64_t)) ft_roc_sym(handle, "roctracer_activity_push_external_correlation_id");
    r->pop = (int (*)(uint64_t*)) ft_roc_sym(handle, "roctracer_activity_pop_external_correlation_id");
    r->op_string = (const char* (*)(uint32_t, uint32_t, uint32_t)) ft_roc_sym(handle, "roctracer_op_string");
    r->get_timestamp = (int (*)(uint64_t*)) ft_roc_sym(handle, "roctracer_get_timestamp");
    r->version_major = (uint32_t (*)(void)) ft_roc_sym(handle, "roctracer_version_major");
    r->version_minor = (uint32_t (*)(void)) ft_roc_sym(handle, "roctracer_version_minor");
    const char* missing = r->open_pool_expl == NULL ? "roctracer_open_pool_expl"
            : r->close_pool_expl == NULL ? "roctracer_close_pool_expl"
            : r->enable_domain_activity_expl == NULL ? "roctracer_enable_domain_activity_expl"
            : r->disable_domain_activity == NULL ? "roctracer_disable_domain_activity"
            : r->flush_activity_expl == NULL ? "roctracer_flush_activity_expl"
            : r->push == NULL ? "roctracer_activity_push_external_correlation_id"
            : r->pop == NULL ? "roctracer_activity_pop_external_correlation_id"
            : r->op_string == NULL ? "roctracer_op_string"
            : r->get_timestamp == NULL ? "roctracer_get_timestamp" : NULL;
    if (ft_shim_refuse(handle, path, "", missing, error, errorLength)) {
        delete r;
        return NULL;
    }
    // kernel_name shares its union with bytes only from the 4.1 API (rocm-5.3) on; before it, the
    // field is a byte count and is never followed as a pointer.
    uint32_t major = r->version_major != NULL ? r->version_major() : 0;
    uint32_t minor = r->version_minor != NULL ? r->version_minor() : 0;
    r->namesInRecords = major > 4 || (major == 4 && minor >= 1);
    return r;
}

/** The library's API version as major * 1000 + minor; -1 when it does not say. */
static int ft_roc_version(ft_roc* r) {
    if (r->version_major == NULL || r->version_minor == NULL) {
        return -1;
    }
    return (int) (r->version_major() * 1000 + r->version_minor());
}

static const char* ft_roc_intern(ft_roc* r, const char* name) {
    size_t length = strnlen(name, FT_ROC_MAX_NAME);
    std::lock_guard<std::mutex> guard(r->namesLock);
    const char* stable = r->names.emplace(name, length).first->c_str();
    r->interned.insert((uintptr_t) stable);
    return stable;
}

/**
 * The kernel name at {@code handle} when it is one the shim interned (a dispatch record's
 * kernel_name as Java sees it), else null: Java never follows any other value as a pointer.
 */
static const char* ft_roc_kernel_name(ft_roc* r, int64_t handle) {
    std::lock_guard<std::mutex> guard(r->namesLock);
    return r->interned.count((uintptr_t) handle) != 0 ? (const char*) (uintptr_t) handle : NULL;
}

// The pool's buffer callback, on roctracer's consumer thread: [begin, end) holds whole records.
static void ft_roc_completed(const char* begin, const char* end, void* arg) {
    ft_roc* r = (ft_roc*) arg;
    if (r == NULL || begin == NULL || end < begin) {
        return;
    }
    std::lock_guard<std::mutex> guard(r->lock);
    size_t size = (size_t) (end - begin);
    __atomic_add_fetch(&r->buffers, 1, __ATOMIC_RELAXED);
    if (r->sink == NULL) {
        return;
    }
    if (r->scratch.size() < size) {
        r->scratch.resize(size);
    }
    uint8_t* copy = r->scratch.data();
    memcpy(copy, begin, size);
    for (size_t at = 0; r->namesInRecords && at + FT_ROC_RECORD <= size; at += FT_ROC_RECORD) {
        uint32_t domain;
        uint32_t op;
        uint64_t name;
        memcpy(&domain, copy + at + FT_ROC_DOMAIN_AT, sizeof domain);
        memcpy(&op, copy + at + FT_ROC_OP_AT, sizeof op);
        memcpy(&name, copy + at + FT_ROC_NAME_AT, sizeof name);
        if (domain != FT_ROC_DOMAIN_HIP_OPS || op != FT_ROC_OP_DISPATCH) {
            continue;
        }
        if (name == 0) {
            __atomic_add_fetch(&r->unreadNames, 1, __ATOMIC_RELAXED); // an older HIP runtime leaves it null
            continue;
        }
        uint64_t stable = (uint64_t) (uintptr_t) ft_roc_intern(r, (const char*) (uintptr_t) name);
        memcpy(copy + at + FT_ROC_NAME_AT, &stable, sizeof stable);
    }
    r->sink(ft_shim_key(r), copy, (int64_t) size);
}

/**
 * Opens the session's pool ({@code bufferBytes} per buffer) with buffers routed to {@code sink};
 * roctracer's status (any non-zero value is an error: positive codes up to rocm-5.2, negative
 * since).
 */
static int ft_roc_open_pool(ft_roc* r, int64_t bufferBytes, ft_roc_sink_fn sink) {
    if (sink == NULL) {
        return FT_SHIM_NO_SINK; // no pool: every buffer would be dropped unread
    }
    {
        std::lock_guard<std::mutex> guard(r->lock);
        r->sink = sink;
    }
    ft_roc_properties properties;
    memset(&properties, 0, sizeof properties);
    properties.buffer_size = (size_t) bufferBytes;
    properties.buffer_callback_fun = ft_roc_completed;
    properties.buffer_callback_arg = r;
    void* pool = NULL;
    int status = r->open_pool_expl(&properties, &pool);
    r->pool = status == 0 ? pool : NULL;
    return status;
}

static int ft_roc_enable(ft_roc* r, int domain) {
    return r->enable_domain_activity_expl((uint32_t) domain, r->pool);
}

static int ft_roc_disable(ft_roc* r, int domain) {
    return r->disable_domain_activity((uint32_t) domain);
}

/** Delivers every buffered record; roctracer returns once the callbacks ran. */
static int ft_roc_flush(ft_roc* r) {
    return r->flush_activity_expl(r->pool);
}

/** Closes the session's pool (flushing what is left) and stops routing buffers to Java. */
static int ft_roc_close_pool(ft_roc* r) {
    int status = r->pool != NULL ? r->close_pool_expl(r->pool) : 0;
    r->pool = NULL;
    std::lock_guard<std::mutex> guard(r->lock);
    r->sink = NULL;
    return status;
}

static int ft_roc_push(ft_roc* r, int64_t id) {
    return r->push((uint64_t) id);
}

/** Pops with a real out-parameter; {@code last} receives the popped id (0 when the stack was empty). */
static int ft_roc_pop(ft_roc* r, int64_t* last) {
    uint64_t popped = 0;
    int status = r->pop(&popped);
    *last = (int64_t) popped;
    return status;
}

/** roctracer_op_string: the name of {@code op} in {@code domain} (HIP_OPS names by {@code kind}), or null. */
static const char* ft_roc_op_string(ft_roc* r, int domain, int op, int kind) {
    return r->op_string((uint32_t) domain, (uint32_t) op, (uint32_t) kind);
}

/** roctracer's clock in ns (the HSA system clock), or -1 when it failed or is not running yet (0). */
static int64_t ft_roc_timestamp(ft_roc* r) {
    uint64_t now = 0;
    if (r->get_timestamp(&now) != 0 || now == 0) {
        return -1;
    }
    return (int64_t) now;
}

/** CLOCK_BOOTTIME in ns: the clock the HSA system timestamp reads on Linux, for when roctracer's is not running. */
static int64_t ft_roc_boottime() {
    struct timespec now;
    if (clock_gettime(CLOCK_BOOTTIME, &now) != 0) {
        return -1;
    }
    return (int64_t) now.tv_sec * 1000000000LL + now.tv_nsec;
}

/** Buffers roctracer completed since the library was opened. */
static int64_t ft_roc_buffers(ft_roc* r) {
    return ft_shim_count(&r->buffers);
}

/** Dispatch records whose kernel_name was null. */
static int64_t ft_roc_unread_names(ft_roc* r) {
    return ft_shim_count(&r->unreadNames);
}

/** Distinct kernel names interned so far. */
static int64_t ft_roc_interned_names(ft_roc* r) {
    std::lock_guard<std::mutex> guard(r->namesLock);
    return (int64_t) r->names.size();
}

/**
 * Calls {@code int64_t symbol(int64_t)} in the library: how a workload drives a library's own entry
 * points (the fake library's scripted HIP calls); -1 with nothing called when it is absent.
 */
static int64_t ft_roc_invoke(ft_roc* r, const char* symbol, int64_t argument) {
    return ft_shim_invoke(r->handle, symbol, argument);
}

#endif
