/* A fake CUDA runtime, libcudart.so: the calls a real program makes, under their real names and
 * signatures (cudaMalloc, cudaFree, cudaMemcpy, cudaMemsetAsync, cudaLaunchKernel,
 * cudaDeviceSynchronize, cudaGetDevice, cudaGetLastError, cudaProfilerStart and cudaProfilerStop, which call the driver's cuProfilerStart/Stop,
 * __cudaRegisterFunction as nvcc's generated code calls it), and NVTX's
 * ranges and marks (nvtxRangePushA / nvtxRangePop, nvtxMarkA ...) with NVTX's own tool hook: the library named by
 * NVTX_INJECTION64_PATH gets InitializeInjectionNvtx2 and fills the CORE module's function table.
 * Memory is host memory; every call first initialises the fake driver (cuInit), which loads the
 * CUDA_INJECTION64_PATH tool, then reports itself to a loaded libcupti (fake_cupti_inject.c).
 * Built by scripts/fake-gpu-env, linked against the fake libcuda. */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/fake_cuda.h" /* the declarations this library defines, as programs see them */

int cuInit(unsigned int flags);
int cuProfilerStart(void);
int cuProfilerStop(void);

enum { cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
enum { RT_GET_LAST_ERROR = 10, RT_GET_DEVICE = 17, RT_MALLOC = 20, RT_FREE = 22, RT_MEMCPY = 31, RT_MEMSET_ASYNC = 51, RT_DEVICE_SYNCHRONIZE = 165, RT_PROFILER_START = 171,
       RT_PROFILER_STOP = 172, RT_LAUNCH_KERNEL = 211 };
enum { WORK_NONE = 0, WORK_KERNEL = 1, WORK_MEMCPY_HTOD = 2, WORK_MEMCPY_DTOH = 3, WORK_MEMSET = 4 };

typedef void (*report_fn)(uint32_t cbid, int work, uint64_t bytes, const char* name, uint32_t gridX, uint32_t blockX);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static report_fn report;

static void initialize(void) {
    cuInit(0);
    /* CUPTI's records of a call exist only when a tool loaded CUPTI (the injected library did, or not). */
    void* cupti = dlopen("libcupti.so", RTLD_NOW | RTLD_NOLOAD);
    if (cupti != NULL) {
        report = (report_fn) dlsym(cupti, "fakeCuptiRuntimeCall");
    }
}

static void call(uint32_t cbid, int work, uint64_t bytes, const char* name, uint32_t gridX, uint32_t blockX) {
    pthread_once(&once, initialize);
    if (report != NULL) {
        report(cbid, work, bytes, name, gridX, blockX);
    }
}

/* Kernel names by host stub, as __cudaRegisterFunction registers them. */
#define MAX_KERNELS 256
static struct {
    const void* stub;
    const char* name;
} kernels[MAX_KERNELS];
static int kernel_count;
static pthread_mutex_t kernels_lock = PTHREAD_MUTEX_INITIALIZER;

void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun, const char* deviceName,
                            int threadLimit, void* tid, void* bid, dim3* bDim, dim3* gDim, int* wSize) {
    (void) fatCubinHandle; (void) deviceFun; (void) threadLimit; (void) tid; (void) bid; (void) bDim; (void) gDim;
    (void) wSize;
    pthread_mutex_lock(&kernels_lock);
    if (kernel_count < MAX_KERNELS) {
        kernels[kernel_count].stub = hostFun;
        kernels[kernel_count].name = strdup(deviceName);
        __atomic_store_n(&kernel_count, kernel_count + 1, __ATOMIC_RELEASE); /* the entry is whole before it counts */
    }
    pthread_mutex_unlock(&kernels_lock);
}

/* Read without the lock (entries are only appended, each complete before it is counted): a launch takes no lock
 * that other threads' launches take. */
static const char* kernel_name(const void* stub) {
    const char* name = "unregistered_kernel";
    int n = __atomic_load_n(&kernel_count, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        if (kernels[i].stub == stub) {
            name = kernels[i].name;
        }
    }
    return name;
}

int cudaMalloc(void** pointer, size_t size) {
    call(RT_MALLOC, WORK_NONE, 0, NULL, 0, 0);
    if (pointer == NULL) {
        return cudaErrorInvalidValue;
    }
    *pointer = malloc(size == 0 ? 1 : size);
    return *pointer == NULL ? cudaErrorMemoryAllocation : cudaSuccess;
}

int cudaFree(void* pointer) {
    call(RT_FREE, WORK_NONE, 0, NULL, 0, 0);
    free(pointer);
    return cudaSuccess;
}

int cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
    if (dst == NULL || src == NULL || kind < cudaMemcpyHostToHost || kind > cudaMemcpyDeviceToDevice) {
        return cudaErrorInvalidValue;
    }
    call(RT_MEMCPY, kind == cudaMemcpyDeviceToHost ? WORK_MEMCPY_DTOH : WORK_MEMCPY_HTOD, count, NULL, 0, 0);
    memmove(dst, src, count);
    return cudaSuccess;
}

int cudaMemsetAsync(void* dst, int value, size_t count, cudaStream_t stream) {
    (void) stream;
    if (dst == NULL) {
        return cudaErrorInvalidValue;
    }
    call(RT_MEMSET_ASYNC, WORK_MEMSET, count, NULL, 0, 0);
    memset(dst, value, count);
    return cudaSuccess;
}

int cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem, cudaStream_t stream) {
    (void) args; (void) sharedMem; (void) stream;
    if (func == NULL) {
        return cudaErrorInvalidValue;
    }
    call(RT_LAUNCH_KERNEL, WORK_KERNEL, 0, kernel_name(func), gridDim.x, blockDim.x);
    return cudaSuccess;
}

int cudaGetDevice(int* device) {
    call(RT_GET_DEVICE, WORK_NONE, 0, NULL, 0, 0);
    if (device == NULL) {
        return cudaErrorInvalidValue;
    }
    *device = 0;
    return cudaSuccess;
}

int cudaGetLastError(void) {
    call(RT_GET_LAST_ERROR, WORK_NONE, 0, NULL, 0, 0);
    return cudaSuccess;
}

int cudaDeviceSynchronize(void) {
    call(RT_DEVICE_SYNCHRONIZE, WORK_NONE, 0, NULL, 0, 0);
    return cudaSuccess;
}

/* The profiler API: the runtime's call, then the driver's (its callbacks reach CUPTI's subscriber). */
int cudaProfilerStart(void) {
    call(RT_PROFILER_START, WORK_NONE, 0, NULL, 0, 0);
    return cuProfilerStart() == 0 ? cudaSuccess : cudaErrorInvalidValue;
}

int cudaProfilerStop(void) {
    call(RT_PROFILER_STOP, WORK_NONE, 0, NULL, 0, 0);
    return cuProfilerStop() == 0 ? cudaSuccess : cudaErrorInvalidValue;
}

/* NVTX: the client side of NVTX's tool hook (version 2). The tool gets the CORE and CORE2 modules' tables,
 * arrays of pointers to this library's function slots, and writes its functions into the slots; a slot the
 * tool leaves empty is NVTX's no-op (a push returns -1, a start 0, a registered string NULL). */
typedef void (*NvtxFunctionPointer)(void);
typedef NvtxFunctionPointer** NvtxFunctionTable;
typedef struct {
    size_t struct_size;
    int (*GetModuleFunctionTable)(int module, NvtxFunctionTable* out_table, unsigned int* out_size);
} NvtxExportTableCallbacks;
enum { NVTX_ETID_CALLBACKS = 1, NVTX_CB_MODULE_CORE = 1, NVTX_CB_MODULE_CORE2 = 5, NVTX_CBID_CORE_MarkEx = 1,
       NVTX_CBID_CORE_MarkA = 2, NVTX_CBID_CORE_MarkW = 3, NVTX_CBID_CORE_RangeStartEx = 4,
       NVTX_CBID_CORE_RangeStartA = 5, NVTX_CBID_CORE_RangeEnd = 7, NVTX_CBID_CORE_RangePushEx = 8,
       NVTX_CBID_CORE_RangePushA = 9, NVTX_CBID_CORE_RangePushW = 10, NVTX_CBID_CORE_RangePop = 11,
       NVTX_CBID_CORE_SIZE = 16, NVTX_CBID_CORE2_DomainMarkEx = 1, NVTX_CBID_CORE2_DomainRangeStartEx = 2, NVTX_CBID_CORE2_DomainRangeEnd = 3,
       NVTX_CBID_CORE2_DomainRangePushEx = 4, NVTX_CBID_CORE2_DomainRangePop = 5,
       NVTX_CBID_CORE2_DomainRegisterStringA = 10, NVTX_CBID_CORE2_DomainCreateA = 12, NVTX_CBID_CORE2_SIZE = 16 };

static NvtxFunctionPointer core_slots[NVTX_CBID_CORE_SIZE];
static NvtxFunctionPointer* core_table[NVTX_CBID_CORE_SIZE];
static NvtxFunctionPointer core2_slots[NVTX_CBID_CORE2_SIZE];
static NvtxFunctionPointer* core2_table[NVTX_CBID_CORE2_SIZE];
static pthread_once_t nvtx_once = PTHREAD_ONCE_INIT;

static int module_table(int module, NvtxFunctionTable* out_table, unsigned int* out_size) {
    if ((module != NVTX_CB_MODULE_CORE && module != NVTX_CB_MODULE_CORE2) || out_table == NULL || out_size == NULL) {
        return 0;
    }
    *out_table = module == NVTX_CB_MODULE_CORE ? core_table : core2_table;
    *out_size = module == NVTX_CB_MODULE_CORE ? NVTX_CBID_CORE_SIZE : NVTX_CBID_CORE2_SIZE;
    return 1;
}

static const NvtxExportTableCallbacks callbacks = {sizeof(NvtxExportTableCallbacks), module_table};

static const void* export_table(uint32_t id) {
    return id == NVTX_ETID_CALLBACKS ? &callbacks : NULL;
}

static void nvtx_initialize(void) {
    for (int i = 0; i < NVTX_CBID_CORE_SIZE; i++) {
        core_table[i] = &core_slots[i];
    }
    for (int i = 0; i < NVTX_CBID_CORE2_SIZE; i++) {
        core2_table[i] = &core2_slots[i];
    }
    const char* path = getenv("NVTX_INJECTION64_PATH");
    if (path == NULL || path[0] == '\0') {
        return;
    }
    void* tool = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    int (*init)(const void* (*)(uint32_t)) = tool == NULL ? NULL
            : (int (*)(const void* (*)(uint32_t))) dlsym(tool, "InitializeInjectionNvtx2");
    if (init == NULL || init(export_table) == 0) {
        memset(core_slots, 0, sizeof core_slots); /* a tool that failed leaves no function behind */
        memset(core2_slots, 0, sizeof core2_slots);
    }
}

/* The slot's function once NVTX is initialised, NULL when the tool left it empty. */
static NvtxFunctionPointer nvtx_slot(NvtxFunctionPointer* slots, int id) {
    pthread_once(&nvtx_once, nvtx_initialize);
    return __atomic_load_n(&slots[id], __ATOMIC_ACQUIRE);
}

/* Marks: NVTX's no-op (nothing) when the tool left the slot empty. */
void nvtxMarkA(const char* message) {
    NvtxFunctionPointer f = nvtx_slot(core_slots, NVTX_CBID_CORE_MarkA);
    if (f != NULL) {
        ((void (*)(const char*)) f)(message);
    }
}

void nvtxMarkW(const wchar_t* message) {
    NvtxFunctionPointer f = nvtx_slot(core_slots, NVTX_CBID_CORE_MarkW);
    if (f != NULL) {
        ((void (*)(const wchar_t*)) f)(message);
    }
}

void nvtxMarkEx(const nvtxEventAttributes_t* attributes) {
    NvtxFunctionPointer f = nvtx_slot(core_slots, NVTX_CBID_CORE_MarkEx);
    if (f != NULL) {
        ((void (*)(const nvtxEventAttributes_t*)) f)(attributes);
    }
}

void nvtxDomainMarkEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
    NvtxFunctionPointer f = nvtx_slot(core2_slots, NVTX_CBID_CORE2_DomainMarkEx);
    if (f != NULL) {
        ((void (*)(nvtxDomainHandle_t, const nvtxEventAttributes_t*)) f)(domain, attributes);
    }
}

int nvtxRangePushA(const char* message) {
    NvtxFunctionPointer f = nvtx_slot(core_slots, NVTX_CBID_CORE_RangePushA);
    return f == NULL ? -1 : ((int (*)(const char*)) f)(message);
}

int nvtxRangePushW(const wchar_t* message) {
    NvtxFunctionPointer f = nvtx_slot(core_slots, NVTX_CBID_CORE_RangePushW);
    return f == NULL ? -1 : ((int (*)(const wchar_t*)) f)(message);
}

int nvtxRangePushEx(const nvtxEventAttributes_t* attributes) {
    NvtxFunctionPointer f = nvtx_slot(core_slots, NVTX_CBID_CORE_RangePushEx);
    return f == NULL ? -1 : ((int (*)(const nvtxEventAttributes_t*)) f)(attributes);
}

int nvtxRangePop(void) {
    NvtxFunctionPointer f = nvtx_slot(core_slots, NVTX_CBID_CORE_RangePop);
    return f == NULL ? -1 : ((int (*)(void)) f)();
}

uint64_t nvtxRangeStartA(const char* message) {
    NvtxFunctionPointer f = nvtx_slot(core_slots, NVTX_CBID_CORE_RangeStartA);
    return f == NULL ? 0 : ((uint64_t (*)(const char*)) f)(message);
}

uint64_t nvtxRangeStartEx(const nvtxEventAttributes_t* attributes) {
    NvtxFunctionPointer f = nvtx_slot(core_slots, NVTX_CBID_CORE_RangeStartEx);
    return f == NULL ? 0 : ((uint64_t (*)(const nvtxEventAttributes_t*)) f)(attributes);
}

void nvtxRangeEnd(uint64_t id) {
    NvtxFunctionPointer f = nvtx_slot(core_slots, NVTX_CBID_CORE_RangeEnd);
    if (f != NULL) {
        ((void (*)(uint64_t)) f)(id);
    }
}

nvtxDomainHandle_t nvtxDomainCreateA(const char* name) {
    NvtxFunctionPointer f = nvtx_slot(core2_slots, NVTX_CBID_CORE2_DomainCreateA);
    return f == NULL ? NULL : ((nvtxDomainHandle_t (*)(const char*)) f)(name);
}

nvtxStringHandle_t nvtxDomainRegisterStringA(nvtxDomainHandle_t domain, const char* text) {
    NvtxFunctionPointer f = nvtx_slot(core2_slots, NVTX_CBID_CORE2_DomainRegisterStringA);
    return f == NULL ? NULL : ((nvtxStringHandle_t (*)(nvtxDomainHandle_t, const char*)) f)(domain, text);
}

int nvtxDomainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
    NvtxFunctionPointer f = nvtx_slot(core2_slots, NVTX_CBID_CORE2_DomainRangePushEx);
    return f == NULL ? -1 : ((int (*)(nvtxDomainHandle_t, const nvtxEventAttributes_t*)) f)(domain, attributes);
}

int nvtxDomainRangePop(nvtxDomainHandle_t domain) {
    NvtxFunctionPointer f = nvtx_slot(core2_slots, NVTX_CBID_CORE2_DomainRangePop);
    return f == NULL ? -1 : ((int (*)(nvtxDomainHandle_t)) f)(domain);
}

uint64_t nvtxDomainRangeStartEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
    NvtxFunctionPointer f = nvtx_slot(core2_slots, NVTX_CBID_CORE2_DomainRangeStartEx);
    return f == NULL ? 0 : ((uint64_t (*)(nvtxDomainHandle_t, const nvtxEventAttributes_t*)) f)(domain, attributes);
}

void nvtxDomainRangeEnd(nvtxDomainHandle_t domain, uint64_t id) {
    NvtxFunctionPointer f = nvtx_slot(core2_slots, NVTX_CBID_CORE2_DomainRangeEnd);
    if (f != NULL) {
        ((void (*)(nvtxDomainHandle_t, uint64_t)) f)(domain, id);
    }
}
