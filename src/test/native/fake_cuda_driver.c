/* A fake NVIDIA driver, libcuda.so.1: what flagtrace run relies on of the real one. Its
 * initialisation (cuInit, which the runtime calls first) loads the library named by
 * CUDA_INJECTION64_PATH and calls its InitializeInjection, once per process, as the real driver
 * does for CUPTI-based tools. Built by scripts/fake-gpu-env. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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

int cuDriverGetVersion(int* version) {
    if (version == NULL) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *version = 13000;
    return CUDA_SUCCESS;
}
