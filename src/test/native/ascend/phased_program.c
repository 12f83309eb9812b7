/* The Ascend twin of cuda/phased_program.c, for on-demand tracing's tests on the MSPTI fakes: an unchanged
 * program that copies a buffer in, prints "ready PID", then runs PHASES phases; before each it reads one line
 * from its standard input. Phase N is an mstx range "phase N" holding N+1 launches of the kernel
 * "phaseN_kernel" and N asynchronous memsets; after it the program prints what it launched in it. After the
 * last phase it reads one more line (or the end of its input), copies the buffer out and exits with EXIT_CODE.
 *
 *     phased_program PHASES EXIT_CODE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fake_acl.h"

#define CHECK(call)                                                    \
    do {                                                               \
        aclError status_ = (call);                                     \
        if (status_ != ACL_SUCCESS) {                                  \
            fprintf(stderr, "%s failed: %d\n", #call, (int) status_);  \
            return 1;                                                  \
        }                                                              \
    } while (0)

int main(int argc, char** argv) {
    int phases = argc > 1 ? atoi(argv[1]) : 3;
    int code = argc > 2 ? atoi(argv[2]) : 0;
    if (phases < 1 || phases > 5) {
        fprintf(stderr, "phased_program: 1 to 5 phases\n");
        return 2;
    }
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream));
    aclrtFuncHandle kernels[5];
    for (int p = 0; p < phases; p++) {
        char name[32];
        snprintf(name, sizeof name, "phase%d_kernel", p + 1);
        CHECK(aclrtBinaryGetFunction(NULL, strdup(name), &kernels[p]));
    }
    size_t bytes = 1 << 12;
    char* host = calloc(bytes, 1);
    void* device;
    CHECK(aclrtMalloc(&device, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(device, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    printf("ready %ld\n", (long) getpid());
    fflush(stdout);
    char line[64];
    for (int p = 1; p <= phases && fgets(line, sizeof line, stdin) != NULL; p++) {
        char range[32];
        snprintf(range, sizeof range, "phase %d", p);
        mstxRangeId id = mstxRangeStartA(range, stream);
        for (int k = 0; k < p + 1; k++) {
            CHECK(aclrtLaunchKernel(kernels[p - 1], 8, NULL, 0, stream));
        }
        for (int m = 0; m < p; m++) {
            CHECK(aclrtMemsetAsync(device, bytes, 0, bytes, stream));
        }
        mstxRangeEnd(id);
        CHECK(aclrtSynchronizeStream(stream));
        printf("phase %d: kernels=%d memsets=%d ranges=1\n", p, p + 1, p);
        fflush(stdout);
    }
    if (fgets(line, sizeof line, stdin) == NULL) {
        /* the end of the input: go on */
    }
    CHECK(aclrtMemcpy(host, bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(aclrtFree(device));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    free(host);
    return code;
}
