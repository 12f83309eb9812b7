/* An unchanged CUDA program for on-demand tracing's tests: it knows nothing of flagtrace. It copies a
 * buffer in, prints "ready PID", then runs PHASES phases; before each it reads one line from its
 * standard input (the handshake that tells it to go on: whoever drives it arms or disarms the tracer
 * between phases). Phase N is an NVTX range "phase N" holding N+1 launches of the kernel "phaseN_kernel"
 * and N memsets; after it the program prints what it launched in it. After the last phase it reads one
 * more line (or the end of its input), copies the buffer out and exits with EXIT_CODE. Standard input
 * closed early: it ends there.
 *
 *     phased_program PHASES EXIT_CODE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fake_cuda.h"

static void k1(void) {}
static void k2(void) {}
static void k3(void) {}
static void k4(void) {}
static void k5(void) {}

int main(int argc, char** argv) {
    int phases = argc > 1 ? atoi(argv[1]) : 3;
    int code = argc > 2 ? atoi(argv[2]) : 0;
    void (*stubs[])(void) = {k1, k2, k3, k4, k5};
    if (phases < 1 || phases > 5) {
        fprintf(stderr, "phased_program: 1 to 5 phases\n");
        return 2;
    }
    for (int p = 0; p < phases; p++) {
        char name[32];
        snprintf(name, sizeof name, "phase%d_kernel", p + 1);
        __cudaRegisterFunction(NULL, (const char*) stubs[p], strdup(name), strdup(name), -1, NULL, NULL, NULL, NULL, NULL);
    }
    size_t bytes = 1 << 12;
    float* host = calloc(bytes / sizeof(float), sizeof(float));
    void* device;
    cudaMalloc(&device, bytes);
    cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
    printf("ready %ld\n", (long) getpid());
    fflush(stdout);
    dim3 grid = {8, 1, 1};
    dim3 block = {128, 1, 1};
    char line[64];
    int p = 1;
    for (; p <= phases && fgets(line, sizeof line, stdin) != NULL; p++) {
        char range[32];
        snprintf(range, sizeof range, "phase %d", p);
        nvtxRangePushA(range);
        for (int k = 0; k < p + 1; k++) {
            cudaLaunchKernel((const void*) stubs[p - 1], grid, block, NULL, 0, NULL);
        }
        for (int m = 0; m < p; m++) {
            cudaMemsetAsync(device, 0, bytes, NULL);
        }
        nvtxRangePop();
        cudaDeviceSynchronize();
        printf("phase %d: kernels=%d memsets=%d ranges=1\n", p, p + 1, p);
        fflush(stdout);
    }
    if (p > phases && fgets(line, sizeof line, stdin) == NULL) {
        /* the end of the input: go on to the end as well */
    }
    cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost);
    cudaFree(device);
    free(host);
    return code;
}
