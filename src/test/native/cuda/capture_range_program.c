/* An unchanged CUDA program for capture ranges' tests (flagtrace run --capture-range): it knows nothing of
 * flagtrace. It launches kernels before, inside and after the spans a capture range should make windows of,
 * each span's kernel its own ("outside_kernel" outside every span, "w1_kernel" in the first, "w2_kernel" in
 * the second), and prints what it launched in each, so a test can hold each window's trace to the program's
 * own counts.
 *
 * Some launches go through the driver (cuLaunchKernel), as cuBLASLt's and Triton's do: CUPTI records those only when
 * a window arms them its way (a first per-call switch after the CUDA context exists records nothing).
 *
 *     capture_range_program nvtx EXIT_CODE
 *       outside: a range "setup" and a range "stepping" (not the name), 2 + 1 launches (one through the driver) and
 *                a memset;
 *       span 1: a range "step" holding 3 launches and a memset, a nested "step" (the same name: no window of
 *               its own) with 1 launch, a nested "inner" with 1 and a launch through the driver: 6 launches,
 *               3 ranges;
 *       outside: 2 launches;
 *       span 2: "step" on the main thread; a second thread opens "step" too and launches 2; the main thread
 *               closes its "step" while the other's is open, then launches 1 (inside the span: a range of the
 *               name is still open, on the other thread); the other thread closes its own: 3 launches, 2 ranges;
 *       outside: 1 launch.
 *     capture_range_program profiler EXIT_CODE
 *       outside: 2 launches; cudaProfilerStart; span 1: 3 launches, a memset, a range "inner" with 1 launch and
 *       1 through the driver; cudaProfilerStop; outside: 2 launches and a second cudaProfilerStop (stopped already: nothing);
 *       cudaProfilerStart twice (the second changes nothing); span 2: 2 launches; cudaProfilerStop; outside: 1.
 *
 * Each span's line: "span N: kernels=K memsets=M ranges=R driver=D" (D of the K through the driver); then
 * "outside: kernels=K". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fake_cuda.h"

static void outside_stub(void) {}
static void w1_stub(void) {}
static void w2_stub(void) {}

static const dim3 grid = {4, 1, 1};
static const dim3 block = {64, 1, 1};
static int outside_launches;

/* One launch through the driver of the kernel named `name`, as a library that loads its own module does. */
static void driver_launch(const char* name) {
    CUfunction function;
    cuModuleGetFunction(&function, NULL, name);
    cuLaunchKernel(function, grid.x, 1, 1, block.x, 1, 1, 0, NULL, NULL, NULL);
    if (strcmp(name, "outside_kernel") == 0) {
        outside_launches++;
    }
}

static void launch(void (*stub)(void), int n) {
    for (int i = 0; i < n; i++) {
        cudaLaunchKernel((const void*) stub, grid, block, NULL, 0, NULL);
    }
    if (stub == outside_stub) {
        outside_launches += n;
    }
}

/* Span 2's second thread: opens "step" once the main thread has, launches, and closes it once the main
 * thread has closed its own. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int stage;

static void await_stage(int at_least) {
    pthread_mutex_lock(&lock);
    while (stage < at_least) {
        pthread_cond_wait(&changed, &lock);
    }
    pthread_mutex_unlock(&lock);
}

static void set_stage(int s) {
    pthread_mutex_lock(&lock);
    stage = s;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static void* other_thread(void* unused) {
    (void) unused;
    nvtxRangePushA("step");
    launch(w2_stub, 2);
    set_stage(1);  /* open, launched */
    await_stage(2); /* the main thread closed its "step" and launched */
    nvtxRangePop();
    return NULL;
}

static void nvtx_spans(void* device, size_t bytes) {
    nvtxRangePushA("setup");
    launch(outside_stub, 2);
    cudaMemsetAsync(device, 0, bytes, NULL);
    nvtxRangePop();
    nvtxRangePushA("stepping");
    driver_launch("outside_kernel");
    nvtxRangePop();

    nvtxRangePushA("step");
    launch(w1_stub, 3);
    cudaMemsetAsync(device, 1, bytes, NULL);
    nvtxRangePushA("step");
    launch(w1_stub, 1);
    nvtxRangePop();
    nvtxRangePushA("inner");
    launch(w1_stub, 1);
    nvtxRangePop();
    driver_launch("w1_kernel");
    nvtxRangePop();
    cudaDeviceSynchronize();
    printf("span 1: kernels=6 memsets=1 ranges=3 driver=1\n");

    launch(outside_stub, 2);

    pthread_t other;
    nvtxRangePushA("step");
    pthread_create(&other, NULL, other_thread, NULL);
    await_stage(1);
    nvtxRangePop();
    launch(w2_stub, 1);
    set_stage(2);
    pthread_join(other, NULL);
    cudaDeviceSynchronize();
    printf("span 2: kernels=3 memsets=0 ranges=2 driver=0\n");

    launch(outside_stub, 1);
}

static void profiler_spans(void* device, size_t bytes) {
    launch(outside_stub, 2);
    cudaProfilerStart();
    launch(w1_stub, 3);
    cudaMemsetAsync(device, 1, bytes, NULL);
    nvtxRangePushA("inner");
    launch(w1_stub, 1);
    driver_launch("w1_kernel");
    nvtxRangePop();
    cudaDeviceSynchronize();
    cudaProfilerStop();
    printf("span 1: kernels=5 memsets=1 ranges=1 driver=1\n");
    launch(outside_stub, 2);
    cudaProfilerStop();
    cudaProfilerStart();
    cudaProfilerStart();
    launch(w2_stub, 2);
    cudaDeviceSynchronize();
    cudaProfilerStop();
    printf("span 2: kernels=2 memsets=0 ranges=0 driver=0\n");
    launch(outside_stub, 1);
}

int main(int argc, char** argv) {
    if (argc != 3 || (strcmp(argv[1], "nvtx") != 0 && strcmp(argv[1], "profiler") != 0)) {
        fprintf(stderr, "usage: capture_range_program nvtx|profiler EXIT_CODE\n");
        return 2;
    }
    __cudaRegisterFunction(NULL, (const char*) outside_stub, "outside_kernel", "outside_kernel", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(NULL, (const char*) w1_stub, "w1_kernel", "w1_kernel", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(NULL, (const char*) w2_stub, "w2_kernel", "w2_kernel", -1, NULL, NULL, NULL, NULL, NULL);
    size_t bytes = 1 << 12;
    float* host = calloc(bytes / sizeof(float), sizeof(float));
    void* device;
    cudaMalloc(&device, bytes);
    cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
    if (strcmp(argv[1], "nvtx") == 0) {
        nvtx_spans(device, bytes);
    } else {
        profiler_spans(device, bytes);
    }
    cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost);
    cudaFree(device);
    free(host);
    printf("outside: kernels=%d\n", outside_launches);
    return atoi(argv[2]);
}
