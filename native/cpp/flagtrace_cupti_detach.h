// Detaching NVIDIA's CUPTI from a process that keeps running (cuptiFinalize), from inside the exit
// callsite of a runtime API call, as cupti_activity.h recommends. The callback is C, not Java:
// flagtrace's first detach took it through a JavaCPP upcall, and a thread still inside CUPTI's
// callback dispatch while another finalized died in libcupti (TeardownStress on the H200). Here the
// callback runs a few instructions and never leaves native code.
//
// CUPTI's entry points are looked up in the libcupti the process has already loaded (the tracer
// loaded it first), so nothing here links against CUDA.
//
// Bound by JavaCPP (org.flagos.trace.natives.CuptiDetachLibrary); compiled into the jar's JNI
// library by the build.
#ifndef FLAGTRACE_CUPTI_DETACH_H
#define FLAGTRACE_CUPTI_DETACH_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <chrono>
#include <condition_variable>
#include <mutex>

// From cupti_callbacks.h (CUDA 13.0): CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_API_EXIT, and
// CUpti_CallbackData's first field, the callsite.
static const int FT_DETACH_DOMAIN_RUNTIME = 2;
static const int FT_DETACH_SITE_EXIT = 1;

typedef void (*ft_detach_callback_fn)(void* userdata, int domain, uint32_t cbid, const void* cbdata);

struct ft_detach_state {
    int (*subscribe)(void** subscriber, ft_detach_callback_fn callback, void* userdata);
    int (*enableDomain)(uint32_t enable, void* subscriber, int domain);
    int (*unsubscribe)(void* subscriber);
    int (*finalize)(void);
    void* subscriber;
    int pending;  // 1 while a detach waits for its exit callsite
    int finished;
    int status;
    std::mutex lock;
    std::condition_variable done;
};

static ft_detach_state ft_detach;

static void ft_detach_callback(void* /*userdata*/, int domain, uint32_t /*cbid*/, const void* cbdata) {
    if (domain != FT_DETACH_DOMAIN_RUNTIME || cbdata == NULL || *(const int*) cbdata != FT_DETACH_SITE_EXIT) {
        return;
    }
    int expected = 1;
    if (!__atomic_compare_exchange_n(&ft_detach.pending, &expected, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        return;
    }
    int status = ft_detach.finalize();
    std::lock_guard<std::mutex> guard(ft_detach.lock);
    ft_detach.status = status;
    ft_detach.finished = 1;
    ft_detach.done.notify_all();
}

static void* ft_detach_symbol(void* library, const char* name) {
    void* entry = library != NULL ? dlsym(library, name) : NULL;
    return entry != NULL ? entry : dlsym(RTLD_DEFAULT, name);
}

/**
 * Subscribes the C callback to the runtime API domain of the CUPTI already loaded from {@code path}
 * (null or empty: looked up among the process's loaded libraries). 0 when armed: the next runtime
 * API call's exit, on any thread, finalizes CUPTI. Otherwise nonzero with the reason in {@code error}.
 */
static int ft_cupti_detach_arm(const char* path, char* error, int errorLength) {
    void* library = path != NULL && path[0] != '\0' ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    ft_detach.subscribe = (int (*)(void**, ft_detach_callback_fn, void*)) ft_detach_symbol(library, "cuptiSubscribe");
    ft_detach.enableDomain = (int (*)(uint32_t, void*, int)) ft_detach_symbol(library, "cuptiEnableDomain");
    ft_detach.unsubscribe = (int (*)(void*)) ft_detach_symbol(library, "cuptiUnsubscribe");
    ft_detach.finalize = (int (*)(void)) ft_detach_symbol(library, "cuptiFinalize");
    if (ft_detach.subscribe == NULL || ft_detach.enableDomain == NULL || ft_detach.unsubscribe == NULL
            || ft_detach.finalize == NULL) {
        snprintf(error, (size_t) errorLength, "no loaded CUPTI has cuptiSubscribe, cuptiEnableDomain, cuptiUnsubscribe and cuptiFinalize");
        return -1;
    }
    {
        std::lock_guard<std::mutex> guard(ft_detach.lock);
        ft_detach.finished = 0;
        ft_detach.status = 0;
    }
    void* subscriber = NULL;
    int status = ft_detach.subscribe(&subscriber, ft_detach_callback, NULL);
    ft_detach.subscriber = subscriber;
    if (status != 0) {
        snprintf(error, (size_t) errorLength, "cuptiSubscribe failed (%d): another CUPTI subscriber owns the process", status);
        return status;
    }
    __atomic_store_n(&ft_detach.pending, 1, __ATOMIC_RELEASE);
    status = ft_detach.enableDomain(1, subscriber, FT_DETACH_DOMAIN_RUNTIME);
    if (status != 0) {
        __atomic_store_n(&ft_detach.pending, 0, __ATOMIC_RELEASE);
        ft_detach.unsubscribe(subscriber);
        snprintf(error, (size_t) errorLength, "cuptiEnableDomain(RUNTIME_API) failed (%d)", status);
        return status;
    }
    return 0;
}

/**
 * Waits up to {@code timeoutMs} for the armed detach: cuptiFinalize's status when it ran (0: CUPTI
 * detached), or -2 when no runtime API call exited in time. A detach that timed out is disarmed
 * (no later call finalizes behind the next session's back) and its subscriber removed; one that
 * had already begun is waited for.
 */
static int ft_cupti_detach_await(int64_t timeoutMs) {
    std::unique_lock<std::mutex> guard(ft_detach.lock);
    if (ft_detach.done.wait_for(guard, std::chrono::milliseconds(timeoutMs), [] { return ft_detach.finished != 0; })) {
        return ft_detach.status;
    }
    int expected = 1;
    if (__atomic_compare_exchange_n(&ft_detach.pending, &expected, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        guard.unlock();
        ft_detach.unsubscribe(ft_detach.subscriber);
        return -2;
    }
    ft_detach.done.wait(guard, [] { return ft_detach.finished != 0; });  // finalizing now: it ends
    return ft_detach.status;
}

#endif
