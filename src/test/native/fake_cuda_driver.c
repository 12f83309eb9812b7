/* A fake NVIDIA driver, libcuda.so.1: what flagtrace run relies on of the real one. Its
 * initialisation (cuInit, which the runtime calls first) loads the library named by
 * CUDA_INJECTION64_PATH and calls its InitializeInjection, once per process, as the real driver
 * does for CUPTI-based tools. cuProfilerStart and cuProfilerStop (which the runtime's cudaProfilerStart/Stop call)
 * report their entry and exit to a loaded libcupti (fakeCuptiDriverCall, fake_cupti_inject.c), whose callback API
 * passes them on to a subscriber, as the real driver's callbacks reach CUPTI's. cuLaunchKernel launches a kernel
 * through the driver, as cuBLASLt and Triton do, of a function cuModuleGetFunction named (the fake's CUfunction is its
 * kernel's name); each driver call is reported to a loaded libcupti (fakeCuptiDriverApiCall), which keeps its record as
 * CUDA 13's CUPTI does. cuDriverGetVersion says 13.0, or FAKE_CUDA_DRIVER_VERSION. Built by scripts/fake-gpu-env. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1 };

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void initialize(void) {
    const char* path = getenv("CUDA_INJECTION64_PATH");
    if (path == NULL || path[0] == '\0') {
        return;
    }
    void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "fake libcuda: cannot load CUDA_INJECTION64_PATH %s: %s\n", path, dlerror());
        return;
    }
    int (*init)(void) = (int (*)(void)) dlsym(library, "InitializeInjection");
    if (init == NULL) {
        fprintf(stderr, "fake libcuda: %s has no InitializeInjection\n", path);
        return;
    }
    init();
}

int cuInit(unsigned int flags) {
    if (flags != 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_once(&once, initialize);
    return CUDA_SUCCESS;
}

/* One device, an H200's properties (as resources/org/flagos/trace/devices/nvidia-h200.json holds them). */
int cuDeviceGetCount(int* count) {
    if (count == NULL) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *count = 1;
    return CUDA_SUCCESS;
}

int cuDeviceGetName(char* name, int length, int device) {
    if (name == NULL || length <= 0 || device != 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    snprintf(name, (size_t) length, "%s", "Fake NVIDIA H200");
    return CUDA_SUCCESS;
}

int cuDeviceTotalMem_v2(size_t* bytes, int device) {
    if (bytes == NULL || device != 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *bytes = 150109880320ULL;
    return CUDA_SUCCESS;
}

/* CUdevice_attribute values of cuda.h. */
int cuDeviceGetAttribute(int* value, int attribute, int device) {
    if (value == NULL || device != 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    switch (attribute) {
        case 1: *value = 1024; break;    /* MAX_THREADS_PER_BLOCK */
        case 8: *value = 49152; break;   /* MAX_SHARED_MEMORY_PER_BLOCK */
        case 10: *value = 32; break;     /* WARP_SIZE */
        case 12: *value = 65536; break;  /* MAX_REGISTERS_PER_BLOCK */
        case 16: *value = 132; break;    /* MULTIPROCESSOR_COUNT */
        case 39: *value = 2048; break;   /* MAX_THREADS_PER_MULTIPROCESSOR */
        case 75: *value = 9; break;      /* COMPUTE_CAPABILITY_MAJOR */
        case 76: *value = 0; break;      /* COMPUTE_CAPABILITY_MINOR */
        case 81: *value = 233472; break; /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */
        case 82: *value = 65536; break;  /* MAX_REGISTERS_PER_MULTIPROCESSOR */
        case 97: *value = 232448; break; /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
        default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* CUDA 13.0's driver, or the version FAKE_CUDA_DRIVER_VERSION names (12080: CUDA 12.8's), as an older one. */
int cuDriverGetVersion(int* version) {
    if (version == NULL) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const char* set = getenv("FAKE_CUDA_DRIVER_VERSION");
    *version = set != NULL && atoi(set) > 0 ? atoi(set) : 13000;
    return CUDA_SUCCESS;
}

/* cupti_driver_cbid.h (CUDA 13.0) ids of the driver calls this fake reports to CUPTI. */
enum { CBID_cuLaunchKernel = 307, CBID_cuProfilerStart = 308, CBID_cuProfilerStop = 309 };
enum { WORK_NONE = 0, WORK_KERNEL = 1 };

/* The call's record, to a loaded libcupti's activity API; without one nothing is reported. */
static void driver_record(uint32_t cbid, int work, const char* name, uint32_t gridX, uint32_t blockX) {
    void* cupti = dlopen("libcupti.so", RTLD_NOW | RTLD_NOLOAD);
    void (*report)(uint32_t, int, const char*, uint32_t, uint32_t) = cupti == NULL ? NULL
            : (void (*)(uint32_t, int, const char*, uint32_t, uint32_t)) dlsym(cupti, "fakeCuptiDriverApiCall");
    if (report != NULL) {
        report(cbid, work, name, gridX, blockX);
    }
    if (cupti != NULL) {
        dlclose(cupti); /* the NOLOAD reference only */
    }
}

/* At the call's entry (0) and exit (1): to a loaded libcupti's callback API; without one nothing is reported. */
static void driver_callback(uint32_t cbid, int site, const char* name) {
    void* cupti = dlopen("libcupti.so", RTLD_NOW | RTLD_NOLOAD);
    void (*report)(uint32_t, int, const char*) = cupti == NULL ? NULL
            : (void (*)(uint32_t, int, const char*)) dlsym(cupti, "fakeCuptiDriverCall");
    if (report != NULL) {
        report(cbid, site, name);
    }
    if (cupti != NULL) {
        dlclose(cupti); /* the NOLOAD reference only */
    }
}

int cuProfilerStart(void) {
    pthread_once(&once, initialize);
    driver_callback(CBID_cuProfilerStart, 0, "cuProfilerStart");
    driver_record(CBID_cuProfilerStart, WORK_NONE, NULL, 0, 0);
    driver_callback(CBID_cuProfilerStart, 1, "cuProfilerStart");
    return CUDA_SUCCESS;
}

int cuProfilerStop(void) {
    pthread_once(&once, initialize);
    driver_callback(CBID_cuProfilerStop, 0, "cuProfilerStop");
    driver_record(CBID_cuProfilerStop, WORK_NONE, NULL, 0, 0);
    driver_callback(CBID_cuProfilerStop, 1, "cuProfilerStop");
    return CUDA_SUCCESS;
}

/* Any module, any name: the function handle is the kernel's name, kept for the process's life. */
int cuModuleGetFunction(void** function, void* module, const char* name) {
    (void) module;
    if (function == NULL || name == NULL) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    char* copy = strdup(name);
    if (copy == NULL) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *function = copy;
    return CUDA_SUCCESS;
}

int cuLaunchKernel(void* function, unsigned int gridX, unsigned int gridY, unsigned int gridZ, unsigned int blockX,
                   unsigned int blockY, unsigned int blockZ, unsigned int sharedMemBytes, void* stream, void** params,
                   void** extra) {
    (void) gridY; (void) gridZ; (void) blockY; (void) blockZ; (void) sharedMemBytes; (void) stream; (void) params; (void) extra;
    if (function == NULL) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_once(&once, initialize);
    driver_record(CBID_cuLaunchKernel, WORK_KERNEL, (const char*) function, gridX, blockX);
    return CUDA_SUCCESS;
}
