/* flagtrace's injected library: loaded into an unchanged program by the CUDA driver
 * (CUDA_INJECTION64_PATH, InitializeInjection) and by NVTX (NVTX_INJECTION64_PATH,
 * InitializeInjectionNvtx2), as `flagtrace run` sets them. It does only what must happen inside the
 * target:
 *  - loads libcupti (FLAGTRACE_CUPTI_LIBRARY, else libcupti.so from the library path), registers the
 *    buffer callbacks and enables the activity kinds flagtrace's in-process session enables;
 *  - turns NVTX push/pop into host ops: each push pushes a fresh External id
 *    (cuptiActivityPushExternalCorrelationId, CUSTOM0), so the device work launched inside is
 *    attributed to the innermost range, and each pop hands the op (name, id, thread, times) over;
 *  - hands each completed buffer, unchanged, to the flagtrace process as a `.fltrbuf` frame over the
 *    Unix socket named by FLAGTRACE_RUN_SOCKET, with the kernel names the records point to (once per
 *    pointer), the process's identity and clock anchors at the start, and a closing message.
 * The target never waits on flagtrace: messages go through a bounded queue to a sender thread; what
 * does not fit is dropped and counted, and the counts reach the trace. If the socket fails, the
 * tracer disarms and the target runs on.
 * On demand (FLAGTRACE_RUN_START=later): CUPTI is registered but no kind is enabled and NVTX ranges
 * are not handed over until flagtrace arms the process; a small reader thread takes flagtrace's
 * arm/disarm messages from the same socket, so no thread of the program ever waits on them. Each
 * armed window opens with MSG_WINDOW and closes with MSG_END (after a forced flush). Wire format: docs/run.md. No CUDA header is needed: the
 * few CUPTI entry points used are declared here and looked up by name. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* Message types: 1 is a CUPTI buffer, exactly a .fltrbuf frame of vendor 1; the rest are flagtrace's. */
enum {
    MSG_CUPTI_BUFFER = 1,
    MSG_HELLO = 0x10001, /* text: key=value lines (pid, rank variables, start anchor, window start) */
    MSG_NAME = 0x10002,  /* u64 pointer, then the name's bytes */
    MSG_OP = 0x10003,    /* u64 External id, u64 start, u64 end, u64 thread, then the name's bytes */
    MSG_TICK = 0x10004,  /* u64 CUPTI time at a buffer's completion, sent before it: its records ended earlier */
    MSG_END = 0x10005,   /* text: key=value lines (window end, stop anchor, counts) */
    MSG_DEVICES = 0x10006, /* text: the devices' properties as a JSON array (NAME.devices.json) */
    MSG_WINDOW = 0x10007,  /* text: a window opens (window, window_start_ns, start anchor): the answer to an arm */
    CONTROL_ARM = 0x20001,   /* from flagtrace: open a window (ignored while armed) */
    CONTROL_DISARM = 0x20002 /* from flagtrace: close the window: disable, flush, hand over, MSG_END */
};

/* CUPTI's activity kinds enabled, as flagtrace's in-process session (CuptiTracer) enables them by
 * default: CONCURRENT_KERNEL, MEMCPY, MEMSET, RUNTIME, EXTERNAL_CORRELATION, SYNCHRONIZATION,
 * OVERHEAD, MEMORY2, MEMCPY2. MARKER is not: NVTX comes here, as host ops. */
static const int KINDS[] = {10, 1, 2, 5, 39, 38, 17, 49, 22};
enum { KIND_KERNEL = 3, KIND_CONCURRENT_KERNEL = 10, EXTERNAL_CUSTOM0 = 3, KERNEL_NAME_OFFSET = 104 };

typedef void (*requested_fn)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
typedef void (*completed_fn)(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize);

static struct {
    int (*registerCallbacks)(requested_fn, completed_fn);
    int (*enable)(int kind);
    int (*disable)(int kind);
    int (*flushAll)(uint32_t flag);
    int (*timestamp)(uint64_t* now);
    int (*push)(uint32_t kind, uint64_t id);
    int (*pop)(uint32_t kind, uint64_t* last);
    int (*nextRecord)(uint8_t* buffer, size_t validSize, void** record);
    int (*dropped)(void* context, uint32_t streamId, size_t* dropped);
} cupti;

/* One queued message: header and payload in one block, or a CUPTI buffer sent from `buffer`. */
typedef struct message {
    struct message* next;
    uint32_t type;
    uint64_t length;
    uint8_t* buffer; /* a CUPTI buffer (freed once sent), or NULL: the payload follows */
    uint8_t payload[];
} message;

static atomic_int armed;        /* 1 while buffers and ops are handed over */
static atomic_uint window;      /* the number of the latest window armed (1, 2, ...); 0 before the first */
static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER; /* arm, disarm and exit, one at a time */
static int exiting;             /* finish() ran: arms are ignored */
static int fd = -1;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static message* head;
static message* tail;
static uint64_t queued_bytes;
static uint64_t queue_limit = 256ull << 20;
static int sender_done;   /* the sender ended: disarmed, or the end was sent */
static int closing;       /* the end message is queued: the sender stops after it */
static pthread_t sender;
static atomic_ullong buffers_sent, buffers_dropped, bytes_dropped, ops_dropped, names_dropped, next_external_id;
/* The records of the buffers dropped: all of them, and the device kinds' (kernel, memcpy, memset). */
static atomic_ullong records_dropped, kernels_dropped, memcpys_dropped, memsets_dropped;

typedef struct {
    uint64_t records, kernels, memcpys, memsets;
} record_counts;
static size_t buffer_bytes = 8u << 20;

/* Kernel names already handed over, by pointer (open addressing; a full table stops naming, counted). */
#define NAME_SLOTS 65536
static uintptr_t named[NAME_SLOTS];
static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static uint64_t cupti_now(void) {
    uint64_t now = 0;
    if (cupti.timestamp == NULL || cupti.timestamp(&now) != 0) {
        now = clock_ns(CLOCK_REALTIME);
    }
    return now;
}

/* Writes all of it, or fails (the socket is gone). */
static int write_all(const void* data, size_t n) {
    const uint8_t* p = data;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t) w;
    }
    return 0;
}

static void free_message(message* m) {
    free(m->buffer);
    free(m);
}

/* Queues m unless the sender ended, or (unless `always`, for the few control messages) disarmed or the
 * queue is over its bound; 1 when queued, else m is freed and 0 returned. Never waits on the socket. */
static int enqueue(message* m, int always) {
    pthread_mutex_lock(&queue_lock);
    int ok = !sender_done && (always || (atomic_load(&armed) && queued_bytes + m->length <= queue_limit));
    if (ok) {
        m->next = NULL;
        if (tail != NULL) {
            tail->next = m;
        } else {
            head = m;
        }
        tail = m;
        queued_bytes += m->length;
        pthread_cond_signal(&queue_cond);
    }
    pthread_mutex_unlock(&queue_lock);
    if (!ok) {
        free_message(m);
    }
    return ok;
}

static message* new_message(uint32_t type, const void* payload, size_t length) {
    message* m = malloc(sizeof(message) + length);
    if (m == NULL) {
        return NULL;
    }
    m->type = type;
    m->length = length;
    m->buffer = NULL;
    if (length > 0) {
        memcpy(m->payload, payload, length);
    }
    return m;
}

static void disarm(void) {
    if (atomic_exchange(&armed, 0) && cupti.disable != NULL) {
        for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
            cupti.disable(KINDS[i]);
        }
    }
}

static void* send_loop(void* unused) {
    (void) unused;
    for (;;) {
        pthread_mutex_lock(&queue_lock);
        while (head == NULL && !closing) {
            pthread_cond_wait(&queue_cond, &queue_lock);
        }
        message* m = head;
        if (m == NULL) { /* closing and drained */
            sender_done = 1;
            pthread_cond_broadcast(&queue_cond);
            pthread_mutex_unlock(&queue_lock);
            return NULL;
        }
        head = m->next;
        if (head == NULL) {
            tail = NULL;
        }
        queued_bytes -= m->length;
        pthread_mutex_unlock(&queue_lock);
        uint32_t header[4] = {m->type, 0, (uint32_t) m->length, (uint32_t) (m->length >> 32)};
        int failed = write_all(header, sizeof header) != 0
                || write_all(m->buffer != NULL ? m->buffer : m->payload, (size_t) m->length) != 0;
        if (!failed && m->type == MSG_CUPTI_BUFFER) {
            atomic_fetch_add(&buffers_sent, 1);
        }
        free_message(m);
        if (failed) { /* flagtrace is gone: disarm, drop what waits, let the target run on */
            disarm();
            pthread_mutex_lock(&queue_lock);
            while (head != NULL) {
                message* next = head->next;
                free_message(head);
                head = next;
            }
            tail = NULL;
            queued_bytes = 0;
            sender_done = 1;
            pthread_cond_broadcast(&queue_cond);
            pthread_mutex_unlock(&queue_lock);
            return NULL;
        }
    }
}

static void buffer_requested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *maxNumRecords = 0;
    *buffer = aligned_alloc(8, buffer_bytes);
    *size = *buffer == NULL ? 0 : buffer_bytes;
}

/* 1 when the pointer was not named before (and now is). */
static int first_time(uintptr_t pointer) {
    int fresh = 0;
    pthread_mutex_lock(&named_lock);
    size_t i = (size_t) ((pointer >> 3) * 0x9E3779B97F4A7C15ull >> 48) % NAME_SLOTS;
    for (size_t probe = 0; probe < NAME_SLOTS; probe++, i = (i + 1) % NAME_SLOTS) {
        if (named[i] == pointer) {
            break;
        }
        if (named[i] == 0) {
            named[i] = pointer;
            fresh = 1;
            break;
        }
    }
    pthread_mutex_unlock(&named_lock);
    return fresh;
}

/* Hands over the names of the buffer's kernels that were not handed over before; counts its records. */
static void hand_names(uint8_t* buffer, size_t validSize, record_counts* counts) {
    void* record = NULL;
    while (cupti.nextRecord(buffer, validSize, &record) == 0) {
        uint32_t kind;
        memcpy(&kind, record, 4);
        counts->records++;
        counts->memcpys += kind == 1;
        counts->memsets += kind == 2;
        if (kind != KIND_KERNEL && kind != KIND_CONCURRENT_KERNEL) {
            continue;
        }
        counts->kernels++;
        const char* name;
        memcpy(&name, (uint8_t*) record + KERNEL_NAME_OFFSET, sizeof name);
        if (name == NULL || !first_time((uintptr_t) name)) {
            continue;
        }
        size_t n = strnlen(name, 1 << 16);
        uint8_t* payload = malloc(8 + n);
        if (payload == NULL) {
            atomic_fetch_add(&names_dropped, 1);
            continue;
        }
        uint64_t pointer = (uint64_t) (uintptr_t) name;
        memcpy(payload, &pointer, 8);
        memcpy(payload + 8, name, n);
        message* m = new_message(MSG_NAME, payload, 8 + n);
        free(payload);
        if (m == NULL || !enqueue(m, 1)) {
            atomic_fetch_add(&names_dropped, 1);
        }
    }
}

/* The properties the trace's occupancy fields need, from the driver the program loaded (CUdevice_attribute
 * values of cuda.h), as one JSON array: sent once, with the first buffer (the driver is initialised by
 * then; asking inside InitializeInjection, during cuInit, would re-enter it). */
static void hand_devices(void) {
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (driver == NULL) {
        return;
    }
    int (*count)(int*) = (int (*)(int*)) dlsym(driver, "cuDeviceGetCount");
    int (*get)(int*, int, int) = (int (*)(int*, int, int)) dlsym(driver, "cuDeviceGetAttribute");
    int (*name)(char*, int, int) = (int (*)(char*, int, int)) dlsym(driver, "cuDeviceGetName");
    int (*memory)(size_t*, int) = (int (*)(size_t*, int)) dlsym(driver, "cuDeviceTotalMem_v2");
    int n = 0;
    if (count == NULL || get == NULL || name == NULL || memory == NULL || count(&n) != 0 || n <= 0) {
        return;
    }
    static const struct {
        const char* key;
        int attribute;
    } fields[] = {{"computeMajor", 75}, {"computeMinor", 76}, {"maxThreadsPerBlock", 1},
                  {"maxThreadsPerMultiprocessor", 39}, {"regsPerBlock", 12}, {"warpSize", 10},
                  {"sharedMemPerBlock", 8}, {"numSms", 16}, {"regsPerMultiprocessor", 82},
                  {"sharedMemPerBlockOptin", 97}, {"sharedMemPerMultiprocessor", 81}};
    size_t capacity = 1024 * (size_t) (n < 64 ? n : 64);
    char* json = malloc(capacity);
    if (json == NULL) {
        return;
    }
    size_t at = (size_t) snprintf(json, capacity, "[");
    for (int d = 0; d < n && d < 64; d++) {
        char text[256];
        size_t total = 0;
        if (name(text, (int) sizeof text, d) != 0 || memory(&total, d) != 0) {
            continue;
        }
        for (char* c = text; *c != '\0'; c++) {
            if (*c == '"' || *c == '\\' || (unsigned char) *c < 0x20) {
                *c = '_';
            }
        }
        at += (size_t) snprintf(json + at, capacity - at, "%s{\"id\":%d,\"name\":\"%s\",\"totalGlobalMem\":%zu",
                                at > 1 ? "," : "", d, text, total);
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
            int value = 0;
            get(&value, fields[f].attribute, d);
            at += (size_t) snprintf(json + at, capacity - at, ",\"%s\":%d", fields[f].key, value);
        }
        at += (size_t) snprintf(json + at, capacity - at, "}");
    }
    at += (size_t) snprintf(json + at, capacity - at, "]");
    message* m = at > 2 && at < capacity ? new_message(MSG_DEVICES, json, at) : NULL;
    free(json);
    if (m != NULL) {
        enqueue(m, 1);
    }
}

static pthread_once_t devices_once = PTHREAD_ONCE_INIT;

static void buffer_completed(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize) {
    (void) context;
    (void) streamId;
    (void) size;
    if (buffer == NULL) {
        return;
    }
    if (validSize == 0 || !atomic_load(&armed)) {
        free(buffer);
        return;
    }
    /* The tick goes first: every record of a completed buffer ended before now, so a stream cut right after
     * this buffer (kill -9) still has a window end that holds all of it. */
    uint64_t now = cupti_now();
    message* tick = new_message(MSG_TICK, &now, 8);
    if (tick != NULL) {
        enqueue(tick, 1);
    }
    pthread_once(&devices_once, hand_devices);
    record_counts counts = {0, 0, 0, 0};
    hand_names(buffer, validSize, &counts);
    message* m = malloc(sizeof(message));
    if (m != NULL) {
        m->type = MSG_CUPTI_BUFFER;
        m->length = validSize;
        m->buffer = buffer;
    } else {
        free(buffer);
    }
    if (m == NULL || !enqueue(m, 0)) { /* the hand-off is full (or memory is): dropped, counted */
        atomic_fetch_add(&buffers_dropped, 1);
        atomic_fetch_add(&bytes_dropped, validSize);
        atomic_fetch_add(&records_dropped, counts.records);
        atomic_fetch_add(&kernels_dropped, counts.kernels);
        atomic_fetch_add(&memcpys_dropped, counts.memcpys);
        atomic_fetch_add(&memsets_dropped, counts.memsets);
        return;
    }
}

/* A clock anchor: the CUPTI clock read between two monotonic readings, the tightest of 64 tries,
 * with the real-time clock read in the same gap. */
static void anchor(char* out, size_t n, const char* prefix) {
    uint64_t best = UINT64_MAX, mono = 0, real = 0, trace = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t m1 = clock_ns(CLOCK_MONOTONIC);
        uint64_t t = cupti_now();
        uint64_t r = clock_ns(CLOCK_REALTIME);
        uint64_t m2 = clock_ns(CLOCK_MONOTONIC);
        if (m2 - m1 < best) {
            best = m2 - m1;
            mono = m1 + (m2 - m1) / 2;
            real = r;
            trace = t;
        }
    }
    snprintf(out, n, "%s_realtime_ns=%llu\n%s_monotonic_ns=%llu\n%s_trace_ns=%llu\n%s_bound_ns=%llu\n", prefix,
             (unsigned long long) real, prefix, (unsigned long long) mono, prefix, (unsigned long long) trace, prefix,
             (unsigned long long) (best / 2 + 1));
}

/* NVTX ranges, per thread. */
#define DEPTH 128
typedef struct {
    uint64_t id;
    uint64_t start;
    char* name;
    int pushed;      /* its id went to CUPTI (the tracer was armed at the push) */
    unsigned window; /* the window armed at the push, or 0: only a range pushed and popped in one window is an op */
} range;
static __thread range ranges[DEPTH];
static __thread int depth;
static __thread int overflow; /* pushes past DEPTH, popped without an op */

static int range_push(const char* message_text) {
    if (depth >= DEPTH) {
        overflow++;
        atomic_fetch_add(&ops_dropped, 1);
        return depth + overflow - 1;
    }
    range* r = &ranges[depth];
    r->window = atomic_load(&armed) ? atomic_load(&window) : 0;
    if (r->window == 0) { /* disarmed: nothing to hand over at the pop */
        r->name = NULL;
        r->pushed = 0;
        return depth++;
    }
    r->id = atomic_fetch_add(&next_external_id, 1) + 1;
    r->name = strdup(message_text == NULL ? "" : message_text);
    r->pushed = cupti.push(EXTERNAL_CUSTOM0, r->id) == 0;
    r->start = cupti_now();
    return depth++;
}

static int range_pop(void) {
    if (overflow > 0) {
        overflow--;
        return depth + overflow;
    }
    if (depth == 0) {
        return -1;
    }
    range* r = &ranges[--depth];
    if (r->window == 0) {
        return depth;
    }
    uint64_t end = cupti_now();
    uint64_t last;
    if (r->pushed) {
        cupti.pop(EXTERNAL_CUSTOM0, &last);
    }
    if (atomic_load(&armed) && atomic_load(&window) == r->window) {
        size_t n = r->name == NULL ? 0 : strnlen(r->name, 1 << 16);
        uint8_t* payload = malloc(32 + n);
        if (payload != NULL) {
            uint64_t head4[4] = {r->id, r->start, end, (uint64_t) syscall(SYS_gettid)};
            memcpy(payload, head4, 32);
            if (n > 0) {
                memcpy(payload + 32, r->name, n);
            }
            message* m = new_message(MSG_OP, payload, 32 + n);
            free(payload);
            if (m == NULL || !enqueue(m, 0)) {
                atomic_fetch_add(&ops_dropped, 1);
            }
        } else {
            atomic_fetch_add(&ops_dropped, 1);
        }
    }
    free(r->name);
    r->name = NULL;
    return depth;
}

/* Opens a window (control_lock held): the window's message (its number, start and clock anchor) is queued
 * first, then the kinds are enabled, so everything recorded in it began after its start. */
static void arm_locked(void) {
    if (fd < 0 || exiting || atomic_load(&armed)) {
        return;
    }
    char text[1024];
    unsigned w = atomic_load(&window) + 1;
    int n = snprintf(text, sizeof text, "window=%u\nwindow_start_ns=%llu\n", w, (unsigned long long) cupti_now());
    anchor(text + n, sizeof text - (size_t) n, "start");
    message* m = new_message(MSG_WINDOW, text, strlen(text));
    if (m == NULL || !enqueue(m, 1)) {
        return;
    }
    atomic_store(&window, w);
    atomic_store(&armed, 1);
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
        cupti.enable(KINDS[i]); /* a kind this CUPTI or device refuses is simply not recorded */
    }
}

/* Closes the window (control_lock held): disables the kinds, flushes CUPTI (its buffers are handed over
 * while still armed), then queues the window's end: its end, a stop anchor and what it dropped (the
 * counts start again at 0 for the next window). */
static void disarm_locked(void) {
    if (!atomic_load(&armed)) {
        return;
    }
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
        cupti.disable(KINDS[i]);
    }
    cupti.flushAll(1);
    atomic_store(&armed, 0);
    size_t cuptiDropped = 0;
    if (cupti.dropped != NULL) {
        cupti.dropped(NULL, 0, &cuptiDropped);
    }
    char text[1024];
    int n = snprintf(text, sizeof text, "window_end_ns=%llu\n", (unsigned long long) cupti_now());
    anchor(text + n, sizeof text - (size_t) n, "stop");
    n = (int) strlen(text);
    snprintf(text + n, sizeof text - (size_t) n,
             "buffers_dropped=%llu\nbytes_dropped=%llu\nrecords_dropped=%llu\nkernels_dropped=%llu\nmemcpys_dropped=%llu\n"
             "memsets_dropped=%llu\nops_dropped=%llu\nnames_dropped=%llu\ncupti_records_dropped=%llu\n",
             (unsigned long long) atomic_exchange(&buffers_dropped, 0), (unsigned long long) atomic_exchange(&bytes_dropped, 0),
             (unsigned long long) atomic_exchange(&records_dropped, 0), (unsigned long long) atomic_exchange(&kernels_dropped, 0),
             (unsigned long long) atomic_exchange(&memcpys_dropped, 0), (unsigned long long) atomic_exchange(&memsets_dropped, 0),
             (unsigned long long) atomic_exchange(&ops_dropped, 0), (unsigned long long) atomic_exchange(&names_dropped, 0),
             (unsigned long long) cuptiDropped);
    message* end = new_message(MSG_END, text, strlen(text));
    if (end != NULL) {
        enqueue(end, 1);
    }
}

/* Reads flagtrace's arm/disarm messages (frames as the stream's, header and payload) from the socket and
 * applies them; no thread of the program waits on it. The socket closed or broken: flagtrace is gone,
 * disarm (the sender finds it too on its next write). */
static void* control_loop(void* unused) {
    (void) unused;
    for (;;) {
        uint32_t header[4];
        uint8_t* p = (uint8_t*) header;
        size_t got = 0;
        while (got < sizeof header) {
            ssize_t r = recv(fd, p + got, sizeof header - got, 0);
            if (r < 0 && errno == EINTR) {
                continue;
            }
            if (r <= 0) {
                goto gone;
            }
            got += (size_t) r;
        }
        uint64_t length = (uint64_t) header[2] | (uint64_t) header[3] << 32;
        if (length > 4096) {
            goto gone; /* not a message flagtrace writes */
        }
        uint8_t skip[4096];
        for (uint64_t left = length; left > 0;) {
            ssize_t r = recv(fd, skip, (size_t) left, 0);
            if (r < 0 && errno == EINTR) {
                continue;
            }
            if (r <= 0) {
                goto gone;
            }
            left -= (uint64_t) r;
        }
        pthread_mutex_lock(&control_lock);
        if (header[0] == CONTROL_ARM) {
            arm_locked();
        } else if (header[0] == CONTROL_DISARM) {
            disarm_locked();
        } /* a later flagtrace's message: skipped */
        pthread_mutex_unlock(&control_lock);
    }
gone:
    pthread_mutex_lock(&control_lock);
    if (!exiting) {
        disarm();
    }
    pthread_mutex_unlock(&control_lock);
    return NULL;
}

/* At exit: close the window still armed (flush, hand over its end), then the stream, and wait (10 s at
 * most) until everything queued is sent. */
static void finish(void) {
    if (fd < 0) {
        return;
    }
    pthread_mutex_lock(&control_lock);
    exiting = 1;
    disarm_locked();
    pthread_mutex_unlock(&control_lock);
    pthread_mutex_lock(&queue_lock);
    closing = 1;
    pthread_cond_broadcast(&queue_cond);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    while (!sender_done) {
        if (pthread_cond_timedwait(&queue_cond, &queue_lock, &deadline) == ETIMEDOUT) {
            break;
        }
    }
    pthread_mutex_unlock(&queue_lock);
    atomic_store(&armed, 0);
}

/* In a child forked after arming: no sender thread runs here, and the stream is the parent's. The child
 * is not traced (CUDA is not usable across fork either); its exit must not wait for a sender. */
static void forked(void) {
    atomic_store(&armed, 0);
    if (fd >= 0) {
        close(fd);
        fd = -1;
    }
}

static int lookup(void* library, const char* name, void** slot) {
    *slot = dlsym(library, name);
    if (*slot == NULL) {
        fprintf(stderr, "flagtrace: %s has no %s; the program runs untraced\n", "libcupti", name);
        return -1;
    }
    return 0;
}

static void* load_cupti(void) {
    const char* chosen = getenv("FLAGTRACE_CUPTI_LIBRARY");
    const char* names[] = {chosen, "libcupti.so", "libcupti.so.13", "libcupti.so.12"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i] != NULL && names[i][0] != '\0') {
            void* library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
            if (library != NULL || i == 0) {
                if (library == NULL) {
                    fprintf(stderr, "flagtrace: cannot load FLAGTRACE_CUPTI_LIBRARY %s: %s\n", names[i], dlerror());
                }
                return library;
            }
        }
    }
    fprintf(stderr, "flagtrace: cannot load libcupti (put CUPTI's lib64 on LD_LIBRARY_PATH or set"
                    " FLAGTRACE_CUPTI_LIBRARY); the program runs untraced\n");
    return NULL;
}

/* A JVM: libjvm's entry point is visible (the java launcher loads it RTLD_GLOBAL), or the executable is
 * a `java`. */
static int in_jvm(void) {
    if (dlsym(RTLD_DEFAULT, "JNI_CreateJavaVM") != NULL) {
        return 1;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        return 0;
    }
    exe[n] = '\0';
    const char* base = strrchr(exe, '/');
    return strcmp(base != NULL ? base + 1 : exe, "java") == 0;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int initialized; /* 1 once connected and registered */

static void initialize(void) {
    const char* path = getenv("FLAGTRACE_RUN_SOCKET");
    if (path == NULL || path[0] == '\0') {
        return; /* not under flagtrace run (a child that kept the variable but not the socket goes below) */
    }
    if (in_jvm()) {
        return; /* a JVM: flagtrace run traces it through its agent (JAVA_TOOL_OPTIONS), in-process */
    }
    const char* limit = getenv("FLAGTRACE_RUN_QUEUE_BYTES");
    if (limit != NULL && strtoull(limit, NULL, 10) > 0) {
        queue_limit = strtoull(limit, NULL, 10);
    }
    void* library = load_cupti();
    if (library == NULL || lookup(library, "cuptiActivityRegisterCallbacks", (void**) &cupti.registerCallbacks)
            || lookup(library, "cuptiActivityEnable", (void**) &cupti.enable)
            || lookup(library, "cuptiActivityDisable", (void**) &cupti.disable)
            || lookup(library, "cuptiActivityFlushAll", (void**) &cupti.flushAll)
            || lookup(library, "cuptiGetTimestamp", (void**) &cupti.timestamp)
            || lookup(library, "cuptiActivityPushExternalCorrelationId", (void**) &cupti.push)
            || lookup(library, "cuptiActivityPopExternalCorrelationId", (void**) &cupti.pop)
            || lookup(library, "cuptiActivityGetNextRecord", (void**) &cupti.nextRecord)) {
        return;
    }
    cupti.dropped = dlsym(library, "cuptiActivityGetNumDroppedRecords");
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address.sun_path) {
        fprintf(stderr, "flagtrace: FLAGTRACE_RUN_SOCKET is too long; the program runs untraced\n");
        return;
    }
    strcpy(address.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr*) &address, sizeof address) != 0) {
        fprintf(stderr, "flagtrace: cannot reach flagtrace run at %s (%s); the program runs untraced\n", path,
                strerror(errno));
        if (fd >= 0) {
            close(fd);
            fd = -1;
        }
        return;
    }
    char hello[2048];
    /* Armed from the start, unless `flagtrace run --start-later` (or --delay) asked for a disarmed start:
     * then the hello has no window_start_ns, and each window opens at flagtrace's arm (MSG_WINDOW). */
    const char* start = getenv("FLAGTRACE_RUN_START");
    int later = start != NULL && strcmp(start, "later") == 0;
    int n = later ? snprintf(hello, sizeof hello, "pid=%ld\n", (long) getpid())
                  : snprintf(hello, sizeof hello, "pid=%ld\nwindow_start_ns=%llu\n", (long) getpid(),
                             (unsigned long long) cupti_now());
    const char* variables[] = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
                               "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
                               "PMI_RANK", "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"};
    for (size_t i = 0; i < sizeof variables / sizeof variables[0] && n < (int) sizeof hello - 200; i++) {
        const char* value = getenv(variables[i]);
        if (value != NULL && strlen(value) < 32 && strchr(value, '\n') == NULL) {
            n += snprintf(hello + n, sizeof hello - (size_t) n, "env.%s=%s\n", variables[i], value);
        }
    }
    anchor(hello + n, sizeof hello - (size_t) n, "start");
    message* m = new_message(MSG_HELLO, hello, strlen(hello));
    if (m == NULL || pthread_create(&sender, NULL, send_loop, NULL) != 0) {
        return;
    }
    enqueue(m, 1);
    if (cupti.registerCallbacks(buffer_requested, buffer_completed) != 0) {
        fprintf(stderr, "flagtrace: cuptiActivityRegisterCallbacks failed; the program runs untraced\n");
        return;
    }
    if (!later) { /* window 1 opened with the hello */
        atomic_store(&window, 1);
        atomic_store(&armed, 1);
        for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
            cupti.enable(KINDS[i]); /* a kind this CUPTI or device refuses is simply not recorded */
        }
    }
    pthread_t reader;
    if (pthread_create(&reader, NULL, control_loop, NULL) == 0) {
        pthread_detach(reader);
    }
    initialized = 1;
    pthread_atfork(NULL, NULL, forked);
    atexit(finish);
}

/* The CUDA driver's hook: called once, at the driver's initialisation. */
EXPORT int InitializeInjection(void) {
    pthread_once(&once, initialize);
    return 1;
}

/* NVTX's hook (version 2): this library's push and pop go into the CORE module's table. */
typedef void (*NvtxFunctionPointer)(void);
typedef NvtxFunctionPointer** NvtxFunctionTable;
typedef struct {
    size_t struct_size;
    int (*GetModuleFunctionTable)(int module, NvtxFunctionTable* out_table, unsigned int* out_size);
} NvtxExportTableCallbacks;
enum { NVTX_ETID_CALLBACKS = 1, NVTX_CB_MODULE_CORE = 1, NVTX_CBID_CORE_RangePushA = 9, NVTX_CBID_CORE_RangePop = 11 };

EXPORT int InitializeInjectionNvtx2(const void* (*getExportTable)(uint32_t)) {
    const NvtxExportTableCallbacks* callbacks = getExportTable == NULL ? NULL : getExportTable(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;
    if (callbacks == NULL || callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) == 0
            || table == NULL || size <= NVTX_CBID_CORE_RangePop) {
        return 0;
    }
    *table[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer) range_push;
    *table[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer) range_pop;
    return 1;
}
