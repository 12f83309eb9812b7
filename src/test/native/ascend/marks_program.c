/* An unchanged Ascend program that puts mstx marks on its thread, ITERATIONS times: "tick" (mstxMarkA, no stream)
 * outside every range, then a range "step" holding "in step" (mstxMarkA on its stream) before a kernel launch.
 * Prints its own counts.
 *
 *     marks_program ITERATIONS */
#include <stdio.h>
#include <stdlib.h>
#include "fake_acl.h"

int main(int argc, char** argv) {
    int iterations = argc > 1 ? atoi(argv[1]) : 3;
    long kernels = 0, ranges = 0, marks = 0;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        return 1;
    }
    aclrtStream stream;
    aclrtFuncHandle matmul;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS || aclrtBinaryGetFunction(NULL, "matmul_kernel", &matmul) != ACL_SUCCESS) {
        return 1;
    }
    for (int i = 0; i < iterations; i++) {
        mstxMarkA("tick", NULL);
        mstxRangeId step = mstxRangeStartA("step", stream);
        mstxMarkA("in step", stream);
        if (aclrtLaunchKernel(matmul, 8, NULL, 0, stream) != ACL_SUCCESS) {
            return 1;
        }
        mstxRangeEnd(step);
        kernels++;
        ranges++;
        marks += 2;
    }
    aclrtSynchronizeStream(stream);
    printf("kernels=%ld ranges=%ld marks=%ld\n", kernels, ranges, marks);
    return 0;
}
