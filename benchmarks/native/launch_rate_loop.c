/* A fake-GPU launch storm for benchmarks/run-handoff-rate.sh (issue 31 item 6: the hand-off keeps up with the
 * vendor's buffers at 1M launches/s): it knows nothing of flagtrace. THREADS threads each launch LAUNCHES kernels
 * as fast as the fake runtime lets them (each launch a runtime record, a kernel record and, inside the NVTX range
 * every thread opens per 1,000 launches, a binding), then the main thread synchronises. It prints on stdout:
 *
 *     launches=N seconds=S launches_per_s=R
 *
 * S runs from the first launch to the last thread's last launch. Built against scripts/fake-gpu-env cupti's fakes:
 *     cc -O2 -pthread launch_rate_loop.c -lcudart
 *     launch_rate_loop THREADS LAUNCHES */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "fake_cuda.h"

static void storm_stub(void) {}
static long per_thread;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

static void* storm(void* unused) {
    (void) unused;
    dim3 grid = {1, 1, 1};
    dim3 block = {32, 1, 1};
    for (long i = 0; i < per_thread; i++) {
        if (i % 1000 == 0) {
            nvtxRangePushA("burst");
        }
        cudaLaunchKernel((const void*) storm_stub, grid, block, NULL, 0, NULL);
        if (i % 1000 == 999 || i == per_thread - 1) {
            nvtxRangePop();
        }
    }
    return NULL;
}

int main(int argc, char** argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    per_thread = argc > 2 ? atol(argv[2]) : 250000;
    if (threads < 1 || threads > 256 || per_thread < 1) {
        fprintf(stderr, "usage: launch_rate_loop THREADS(1-256) LAUNCHES\n");
        return 2;
    }
    __cudaRegisterFunction(NULL, (const char*) storm_stub, (char*) "storm_kernel", "storm_kernel", -1, NULL, NULL, NULL,
                           NULL, NULL);
    cudaDeviceSynchronize(); /* CUDA initialised (the injected library loaded) before the clock starts */
    pthread_t ts[256];
    double t0 = now_s();
    for (int t = 0; t < threads; t++) {
        pthread_create(&ts[t], NULL, storm, NULL);
    }
    for (int t = 0; t < threads; t++) {
        pthread_join(ts[t], NULL);
    }
    double seconds = now_s() - t0;
    cudaDeviceSynchronize();
    long launches = (long) threads * per_thread;
    printf("launches=%ld seconds=%.3f launches_per_s=%.0f\n", launches, seconds, (double) launches / seconds);
    return 0;
}
