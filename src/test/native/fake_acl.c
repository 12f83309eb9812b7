/* A fake ACL runtime, libascendcl.so: the calls a real Ascend program makes, under their real names
 * and signatures (ascend/fake_acl.h): aclInit, aclFinalize, aclrtSetDevice, aclrtResetDevice,
 * aclrtCreateStream, aclrtDestroyStream, aclrtMalloc, aclrtFree, aclrtMemcpy(Async),
 * aclrtMemset(Async), aclrtBinaryGetFunction, aclrtLaunchKernel, aclrtSynchronizeStream,
 * aclrtSynchronizeDevice. Memory is host memory. Each call that CANN records (copies, sets,
 * launches, synchronizations) reports itself to a loaded libmspti, the fake MSPTI engine
 * (fake_mspti.c, fakeMsptiAclCall), which writes MSPTI-layout records of it: as on CANN, a process
 * without libmspti loaded records nothing. A call lasts as long as its ACL_API record says (4 us), and
 * a synchronization returns once the device work reported before it has ended. Built by
 * scripts/fake-gpu-env mspti. */
#define _GNU_SOURCE
#include "ascend/fake_acl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { KIND_NONE = 0, KIND_KERNEL = 2, KIND_MEMSET = 6, KIND_MEMCPY = 7 };
/* msptiActivityMemcpyKind: HTOH 1, HTOD 2, DTOH 3, DTOD 4. */
static const int COPY_KINDS[] = {1, 2, 3, 4};

typedef int64_t (*call_fn)(const char* acl, const char* rt, int kind, const char* kernel, uint64_t bytes, int copyKind,
                           uint32_t value, uint32_t device, uint32_t stream);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static call_fn report;
static int32_t device;
static _Atomic uint64_t device_busy_until; /* the latest end of the device work reported, epoch ns */
static atomic_uint next_stream = 1;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static void wait_until(uint64_t when) {
    while (now_ns() < when) {
    }
}

static void initialize(void) {
    /* MSPTI's records of a call exist only when a tool loaded libmspti (the preloaded library did, or not). */
    void* mspti = dlopen("libmspti.so", RTLD_NOW | RTLD_NOLOAD);
    if (mspti != NULL) {
        report = (call_fn) dlsym(mspti, "fakeMsptiAclCall");
    }
}

/* The physical id of logical device `logical`, through ASCEND_RT_VISIBLE_DEVICES as CANN reads it
 * ("3,0": logical 0 is physical 3); MSPTI's records carry physical ids. */
static int32_t physical(int32_t logical) {
    const char* list = getenv("ASCEND_RT_VISIBLE_DEVICES");
    for (int32_t i = 0; list != NULL && *list != '\0'; i++) {
        char* end;
        long id = strtol(list, &end, 10);
        if (end == list) {
            break;
        }
        if (i == logical) {
            return (int32_t) id;
        }
        list = *end == ',' ? end + 1 : end;
    }
    return logical;
}

static uint32_t stream_id(aclrtStream stream) {
    return stream == NULL ? 0 : (uint32_t) (uintptr_t) stream;
}

/* Reports the call; returns when the call's recorded span has passed. */
static void call(const char* acl, const char* rt, int kind, const char* kernel, uint64_t bytes, int copyKind,
                 uint32_t value, aclrtStream stream) {
    pthread_once(&once, initialize);
    if (report == NULL) {
        return;
    }
    uint64_t end = (uint64_t) report(acl, rt, kind, kernel, bytes, copyKind, value, (uint32_t) device, stream_id(stream));
    if (kind != KIND_NONE) {
        uint64_t done = end + 5000; /* the device work ends at most 4 us after the call */
        uint64_t busy = atomic_load(&device_busy_until);
        while (busy < done && !atomic_compare_exchange_weak(&device_busy_until, &busy, done)) {
        }
    }
    wait_until(end);
}

aclError aclInit(const char* configPath) {
    (void) configPath;
    pthread_once(&once, initialize);
    return ACL_SUCCESS;
}

aclError aclFinalize(void) {
    return aclrtSynchronizeDevice();
}

aclError aclrtSetDevice(int32_t deviceId) {
    if (deviceId < 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    device = physical(deviceId);
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
    (void) deviceId;
    return aclrtSynchronizeDevice();
}

aclError aclrtCreateStream(aclrtStream* stream) {
    if (stream == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *stream = (aclrtStream) (uintptr_t) atomic_fetch_add(&next_stream, 1);
    return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
    return aclrtSynchronizeStream(stream);
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
    (void) policy;
    if (devPtr == NULL || size == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *devPtr = malloc(size);
    return *devPtr == NULL ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS;
}

aclError aclrtFree(void* devPtr) {
    free(devPtr);
    return ACL_SUCCESS;
}

static aclError copy(const char* acl, const char* rt, void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind, aclrtStream stream) {
    if (dst == NULL || src == NULL || count > destMax || (int) kind < 0 || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
        return ACL_ERROR_INVALID_PARAM;
    }
    memmove(dst, src, count);
    call(acl, rt, KIND_MEMCPY, NULL, count, COPY_KINDS[kind], 0, stream);
    return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
    return copy("aclrtMemcpy", "rtMemcpy", dst, destMax, src, count, kind, NULL);
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
    return copy("aclrtMemcpyAsync", "rtMemcpyAsync", dst, destMax, src, count, kind, stream);
}

static aclError set(const char* acl, const char* rt, void* devPtr, size_t maxCount, int32_t value, size_t count,
                    aclrtStream stream) {
    if (devPtr == NULL || count > maxCount) {
        return ACL_ERROR_INVALID_PARAM;
    }
    memset(devPtr, value, count);
    call(acl, rt, KIND_MEMSET, NULL, count, 0, (uint32_t) value & 0xff, stream);
    return ACL_SUCCESS;
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
    return set("aclrtMemset", "rtMemset", devPtr, maxCount, value, count, NULL);
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
    return set("aclrtMemsetAsync", "rtMemsetAsync", devPtr, maxCount, value, count, stream);
}

/* A function handle is its kernel's name, kept for the process's life: MSPTI's kernel records point to it. */
aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char* kernelName, aclrtFuncHandle* funcHandle) {
    (void) binHandle;
    if (kernelName == NULL || funcHandle == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *funcHandle = strdup(kernelName);
    return *funcHandle == NULL ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS;
}

aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t blockDim, const void* argsData, size_t argsSize,
                           aclrtStream stream) {
    (void) argsData;
    (void) argsSize;
    if (funcHandle == NULL || blockDim == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    call("aclrtLaunchKernel", "rtKernelLaunch", KIND_KERNEL, (const char*) funcHandle, 0, 0, 0, stream);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
    call("aclrtSynchronizeStream", "rtStreamSynchronize", KIND_NONE, NULL, 0, 0, 0, stream);
    wait_until(atomic_load(&device_busy_until));
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
    call("aclrtSynchronizeDevice", "rtDeviceSynchronize", KIND_NONE, NULL, 0, 0, 0, NULL);
    wait_until(atomic_load(&device_busy_until));
    return ACL_SUCCESS;
}
