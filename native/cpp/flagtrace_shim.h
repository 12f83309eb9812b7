// What every vendor shim header (flagtrace_cupti_family.h, flagtrace_mspti.h,
// flagtrace_roctracer.h) does the same way: open a vendor library by path, refuse one that lacks a
// required entry point, call a workload's symbol in it, read a relaxed counter, and unhook the
// library that receives buffers. Each shim keeps its own struct and its own JNI-facing functions;
// these helpers are their bodies.

#ifndef FLAGTRACE_SHIM_H
#define FLAGTRACE_SHIM_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <mutex>

/**
 * What a shim's register call returns, instead of calling the vendor, when the buffer sink it was
 * given is a null function pointer (JavaCPP hands out a null one, silently, once its 10 native
 * slots per callback class are taken): not any vendor's status. Without this refusal every buffer
 * of the session was freed unread.
 */
static const int FT_SHIM_NO_SINK = -1000001;

/**
 * dlopen()s {@code path} (a name the dynamic linker searches for, or a path) with RTLD_NOW |
 * RTLD_LOCAL; null with dlerror()'s reason in {@code error} when it cannot.
 */
static void* ft_shim_open(const char* path, char* error, int errorLength) {
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(error, (size_t) errorLength, "%s", dlerror());
    }
    return handle;
}

/**
 * False when {@code missing} is null. Otherwise the library at {@code handle} lacks the required
 * entry point {@code prefix + missing}: "PATH has no ENTRY" goes to {@code error}, the library is
 * closed, and true comes back (the caller frees what it allocated and returns null).
 */
static bool ft_shim_refuse(void* handle, const char* path, const char* prefix, const char* missing, char* error,
        int errorLength) {
    if (missing == NULL) {
        return false;
    }
    snprintf(error, (size_t) errorLength, "%s has no %s%s", path, prefix, missing);
    dlclose(handle);
    return true;
}

/**
 * Calls {@code int64_t symbol(int64_t)} in the library at {@code handle}: how a workload drives a
 * library's own entry points (the fake vendor libraries' scripted calls); -1 with nothing called
 * when it is absent.
 */
static int64_t ft_shim_invoke(void* handle, const char* symbol, int64_t argument) {
    int64_t (*entry)(int64_t) = (int64_t (*)(int64_t)) dlsym(handle, symbol);
    return entry == NULL ? -1 : entry(argument);
}

/** The counter's current value, read without ordering (the shims count with relaxed atomics). */
static int64_t ft_shim_count(uint64_t* counter) {
    return (int64_t) __atomic_load_n(counter, __ATOMIC_RELAXED);
}

/**
 * The key a shim passes its one buffer sink with each buffer: the address of the shim's library
 * struct that completed it, by which Java finds the tracer (vendors/activity/BufferRoutes).
 */
template <typename Library>
static int64_t ft_shim_key(Library* library) {
    return (int64_t) (intptr_t) library;
}

/**
 * Stops routing {@code library}'s buffers to Java: its sink cleared and, when it is the {@code
 * active} one, no library active, both under {@code lock}. The library stays loaded: a vendor may
 * keep interposed function pointers for the life of the process.
 */
template <typename Library>
static void ft_shim_detach(Library* library, Library*& active, std::mutex& lock) {
    std::lock_guard<std::mutex> guard(lock);
    library->sink = NULL;
    if (active == library) {
        active = NULL;
    }
}

#endif
