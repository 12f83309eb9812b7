/* A fake-GPU launch loop for benchmarks/run-stop-to-trace.sh (issue 31 item 6, "stop to trace"): it knows
 * nothing of flagtrace. It launches LAUNCHES kernels (each a kernel record and a runtime record on the fake
 * CUPTI), an NVTX range "step" around every 100 of them, synchronises, and prints on stderr, from an atexit
 * handler registered before CUDA starts (so it runs after the injected library's own exit flush, which CUDA's
 * initialisation registers later), the moment it ends and the CPU time then of its nearest ancestor named
 * "java" (flagtrace run's JVM, also when a shell of the tree started this process; 0 if none):
 *
 *     exited realtime_ns=N parent_cpu_ticks=T ticks_per_s=HZ
 *
 * Built against scripts/fake-gpu-env cupti's fakes: cc stop_to_trace_loop.c -lcudart.
 *     stop_to_trace_loop LAUNCHES */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fake_cuda.h"

static void step_stub(void) {}

/* Reads process PID's name, parent and CPU ticks from /proc/PID/stat; 0 on failure. */
static int stat_of(long pid, char* name, size_t room, long* ppid, unsigned long* ticks) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE* f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    char* open = strchr(buf, '(');
    char* close = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (open == NULL || close == NULL || close < open) {
        return 0;
    }
    size_t len = (size_t) (close - open - 1) < room - 1 ? (size_t) (close - open - 1) : room - 1;
    memcpy(name, open + 1, len);
    name[len] = 0;
    unsigned long utime = 0, stime = 0;
    /* after ")": state(3) ppid(4) ... utime(14) stime(15) */
    if (sscanf(close + 2, "%*c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", ppid, &utime, &stime) != 3) {
        return 0;
    }
    *ticks = utime + stime;
    return 1;
}

static void exited(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    unsigned long ticks = 0;
    char name[256];
    long pid = (long) getppid();
    for (int up = 0; up < 16 && pid > 1; up++) {
        long ppid = 0;
        unsigned long t = 0;
        if (!stat_of(pid, name, sizeof name, &ppid, &t)) {
            break;
        }
        if (strcmp(name, "java") == 0) {
            ticks = t;
            break;
        }
        pid = ppid;
    }
    unsigned long utime = ticks, stime = 0;
    fprintf(stderr, "exited realtime_ns=%lld parent_cpu_ticks=%lu ticks_per_s=%ld\n",
            (long long) now.tv_sec * 1000000000LL + now.tv_nsec, utime + stime, sysconf(_SC_CLK_TCK));
}

int main(int argc, char** argv) {
    long launches = argc > 1 ? atol(argv[1]) : 375000;
    atexit(exited);
    __cudaRegisterFunction(NULL, (const char*) step_stub, (char*) "_Z4stepPfi", "_Z4stepPfi", -1, NULL, NULL, NULL, NULL,
                           NULL);
    dim3 grid = {1, 1, 1};
    dim3 block = {32, 1, 1};
    for (long i = 0; i < launches; i++) {
        if (i % 100 == 0) {
            nvtxRangePushA("step");
        }
        cudaLaunchKernel((const void*) step_stub, grid, block, NULL, 0, NULL);
        if (i % 100 == 99 || i == launches - 1) {
            nvtxRangePop();
        }
    }
    cudaDeviceSynchronize();
    printf("kernels=%ld\n", launches);
    return 0;
}
