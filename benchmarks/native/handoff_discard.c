/* Two halves of benchmarks/run-handoff-rate.sh's floors (issue 31 item 6), built from this one file:
 *
 *   cc -shared -fPIC -DDISCARD_TOOL handoff_discard.c -ldl -o discard_tool.so
 *       A CUPTI tool for CUDA_INJECTION64_PATH that registers 8 MB buffers and enables the kinds the injected library
 *       enables, and frees each completed buffer unread: what the fake CUPTI's own recording costs a launch, with
 *       no hand-off at all (the "fake_records" floor).
 *   cc handoff_discard.c -o sink; sink PATH
 *       A Unix socket at PATH that accepts one connection and reads it to its end, discarding: the injected library
 *       (flagtrace_inject.c) runs as under `flagtrace run`, with no flagtrace process behind it (the "sink" rate);
 *       prints the bytes read on stderr. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef DISCARD_TOOL
#include <dlfcn.h>

enum { BUFFER_BYTES = 8 << 20 };
static const int KINDS[] = {10, 1, 2, 5, 39, 38, 17, 49, 22}; /* flagtrace_inject.c's KINDS */

static void requested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *maxNumRecords = 0;
    *buffer = aligned_alloc(8, BUFFER_BYTES);
    *size = *buffer == NULL ? 0 : BUFFER_BYTES;
}

static void completed(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize) {
    (void) context; (void) streamId; (void) size; (void) validSize;
    free(buffer);
}

__attribute__((visibility("default"))) int InitializeInjection(void) {
    void* cupti = dlopen("libcupti.so", RTLD_NOW);
    int (*registerCallbacks)(void (*)(uint8_t**, size_t*, size_t*), void (*)(void*, uint32_t, uint8_t*, size_t, size_t))
            = cupti == NULL ? NULL : dlsym(cupti, "cuptiActivityRegisterCallbacks");
    int (*enable)(int) = cupti == NULL ? NULL : dlsym(cupti, "cuptiActivityEnable");
    if (registerCallbacks == NULL || enable == NULL || registerCallbacks(requested, completed) != 0) {
        fprintf(stderr, "discard tool: no usable libcupti.so\n");
        return 0;
    }
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
        enable(KINDS[i]);
    }
    return 1;
}
#else
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char** argv) {
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    if (argc != 2 || strlen(argv[1]) >= sizeof address.sun_path) {
        fprintf(stderr, "usage: sink PATH (shorter than %zu bytes)\n", sizeof address.sun_path);
        return 2;
    }
    strcpy(address.sun_path, argv[1]);
    int server = socket(AF_UNIX, SOCK_STREAM, 0);
    if (server < 0 || bind(server, (struct sockaddr*) &address, sizeof address) != 0 || listen(server, 1) != 0) {
        perror("sink");
        return 1;
    }
    int client = accept(server, NULL, NULL);
    static char chunk[1 << 20];
    long long total = 0;
    ssize_t n;
    while (client >= 0 && (n = read(client, chunk, sizeof chunk)) > 0) {
        total += n;
    }
    fprintf(stderr, "sink: %lld bytes\n", total);
    unlink(argv[1]);
    return 0;
}
#endif
