/* An unchanged Ascend program for flagtrace run's tests: it knows nothing of flagtrace. It loads two
 * kernels' handles, then runs ITERATIONS steps, each an mstx range "step" holding a range "compute"
 * (two kernel launches and an asynchronous memset) and a kernel outside "compute"; copies in and out
 * inside a range "io" around them; once, two ranges that overlap without nesting ("early" ends
 * before "late", which holds a kernel launched after that end); prints its own counts on stdout and
 * exits with EXIT_CODE. With "hang" as third argument it prints "ready PID" after the steps and waits
 * to be killed.
 *
 *     unchanged_program ITERATIONS EXIT_CODE [hang] */
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
    int iterations = argc > 1 ? atoi(argv[1]) : 10;
    int code = argc > 2 ? atoi(argv[2]) : 0;
    int hang = argc > 3 && strcmp(argv[3], "hang") == 0;
    long kernels = 0, memcpys = 0, memsets = 0, ranges = 0;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream));
    aclrtFuncHandle matmul, relu;
    CHECK(aclrtBinaryGetFunction(NULL, "matmul_kernel", &matmul));
    CHECK(aclrtBinaryGetFunction(NULL, "relu_kernel", &relu));
    size_t bytes = 1 << 16;
    char* host = calloc(bytes, 1);
    void* device;
    CHECK(aclrtMalloc(&device, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    mstxRangeId io = mstxRangeStartA("io", NULL);
    CHECK(aclrtMemcpy(device, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    mstxRangeEnd(io);
    memcpys++;
    ranges++;
    for (int i = 0; i < iterations; i++) {
        mstxRangeId step = mstxRangeStartA("step", stream);
        mstxRangeId compute = mstxRangeStartA("compute", stream);
        CHECK(aclrtLaunchKernel(matmul, 8, NULL, 0, stream));
        CHECK(aclrtMemsetAsync(device, bytes, 0, bytes / 2, stream));
        CHECK(aclrtLaunchKernel(matmul, 8, NULL, 0, stream));
        mstxRangeEnd(compute);
        CHECK(aclrtLaunchKernel(relu, 8, NULL, 0, stream));
        mstxRangeEnd(step);
        kernels += 3;
        memsets += 1;
        ranges += 2;
    }
    mstxRangeId early = mstxRangeStartA("early", stream);
    mstxRangeId late = mstxRangeStartA("late", stream);
    mstxRangeEnd(early);
    CHECK(aclrtLaunchKernel(relu, 8, NULL, 0, stream));
    mstxRangeEnd(late);
    kernels++;
    ranges += 2;
    io = mstxRangeStartA("io", NULL);
    CHECK(aclrtMemcpy(host, bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    mstxRangeEnd(io);
    memcpys++;
    ranges++;
    CHECK(aclrtSynchronizeStream(stream));
    printf("kernels=%ld memcpys=%ld memsets=%ld ranges=%ld\n", kernels, memcpys, memsets, ranges);
    fflush(stdout);
    if (hang) {
        printf("ready %ld\n", (long) getpid());
        fflush(stdout);
        for (;;) {
            pause();
        }
    }
    CHECK(aclrtFree(device));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    free(host);
    return code;
}
