/* A fake libroctracer64: the part of ROCtracer's C API flagtrace calls (the _expl pool calls,
 * domain enable/disable, external-correlation push/pop, roctracer_op_string,
 * roctracer_get_timestamp), emitting activity_record_t buffers laid out as roctracer's
 * inc/ext/prof_protocol.h defines them (64 bytes, rocm-5.3+ layout with kernel_name), from a
 * scripted HIP workload the test drives through int64_t fakeHip*(int64_t) entry points.
 *
 * What it does as roctracer does:
 *  - a launch writes its HIP_OPS record when the work completes and its HIP_API record at the call's
 *    exit, preceded directly, in the same buffer, by an EXT_API EXTERN_ID record carrying the top of
 *    the calling thread's pushed ids (none when nothing is pushed);
 *  - a dispatch record's kernel_name points into the tail of its own buffer (names grow down from
 *    the end, records up from the start), valid only during the buffer callback: the buffer is
 *    scribbled over and freed as soon as the callback returns;
 *  - pop of an empty stack returns ROCTRACER_STATUS_ERROR_MISMATCHED_EXTERNAL_CORRELATION_ID (-7)
 *    and sets *last to 0;
 *  - timestamps are CLOCK_BOOTTIME ns (the HSA system clock), not epoch.
 *  - roctracer_flush_activity_expl returns once every buffer filled before it was delivered, those
 *    a HIP call on another thread is delivering included (roctracer's Flush waits for its consumer
 *    thread, which runs the callbacks one buffer at a time).
 * What it does harder than roctracer: full buffers are held back and delivered newest first, so
 * device records and their bindings reach the decoder out of order.
 *
 * A truth log keeps every record emitted, for the test's exact assertions (fakeTruth*). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { DOMAIN_HIP_OPS = 2, DOMAIN_HIP_API = 3, DOMAIN_EXT_API = 5, DOMAIN_NUMBER = 8 };
enum { OP_DISPATCH = 0, OP_COPY = 1, OP_BARRIER = 2 };
enum { EXT_OP_EXTERN_ID = 1 };
enum { API_DEVICE_SYNCHRONIZE = 48, API_LAUNCH_KERNEL = 107, API_MEMCPY_ASYNC = 134, API_MEMSET_ASYNC = 159 };
enum { CMD_NDRANGE_KERNEL = 0x11F0, CMD_WRITE_BUFFER = 0x11F4, CMD_MARKER = 0x11FE, CMD_FILL_BUFFER = 0x1207 };
enum { STATUS_SUCCESS = 0, STATUS_INVALID_DOMAIN = -2, STATUS_INVALID_ARGUMENT = -3,
       STATUS_MISMATCHED_EXTERNAL_ID = -7 };

typedef struct activity_record_s {
    uint32_t domain;
    uint32_t kind;
    uint32_t op;
    union {
        struct {
            uint64_t correlation_id;
            uint64_t begin_ns;
            uint64_t end_ns;
        };
        struct {
            uint32_t se;
            uint64_t cycle;
            uint64_t pc;
        } pc_sample;
    };
    union {
        struct {
            int device_id;
            uint64_t queue_id;
        };
        struct {
            uint32_t process_id;
            uint32_t thread_id;
        };
        struct {
            uint64_t external_id;
        };
    };
    union {
        size_t bytes;
        const char* kernel_name;
        const char* mark_message;
    };
} activity_record_t;

_Static_assert(sizeof(activity_record_t) == 64, "activity_record_t is 64 bytes");
_Static_assert(offsetof(activity_record_t, op) == 8, "op at 8");
_Static_assert(offsetof(activity_record_t, correlation_id) == 16, "correlation_id at 16");
_Static_assert(offsetof(activity_record_t, begin_ns) == 24, "begin_ns at 24");
_Static_assert(offsetof(activity_record_t, end_ns) == 32, "end_ns at 32");
_Static_assert(offsetof(activity_record_t, device_id) == 40, "device_id at 40");
_Static_assert(offsetof(activity_record_t, queue_id) == 48, "queue_id at 48");
_Static_assert(offsetof(activity_record_t, thread_id) == 44, "thread_id at 44");
_Static_assert(offsetof(activity_record_t, external_id) == 40, "external_id at 40");
_Static_assert(offsetof(activity_record_t, kernel_name) == 56, "kernel_name at 56");

typedef void (*buffer_callback_t)(const char* begin, const char* end, void* arg);
typedef struct {
    uint32_t mode;
    size_t buffer_size;
    void (*alloc_fun)(char** ptr, size_t size, void* arg);
    void* alloc_arg;
    buffer_callback_t buffer_callback_fun;
    void* buffer_callback_arg;
} roctracer_properties_t;
_Static_assert(sizeof(roctracer_properties_t) == 48, "roctracer_properties_t is 48 bytes");

/* The device the fake's work runs on: a KFD node id (node 0 is the CPU), as the HIP runtime reports. */
#define FAKE_DEVICE 1
#define MAX_PENDING 3
#define MAX_TRUTH 4096
#define MAX_DEPTH 64

typedef struct {
    char* base;
    size_t size;
    size_t records; /* bytes of records from the start */
    size_t names;   /* bytes of names from the end */
} buffer_t;

typedef struct {
    int open;
    size_t buffer_size;
    buffer_callback_t callback;
    void* arg;
    buffer_t current;
    buffer_t pending[MAX_PENDING];
    int pending_count;
} pool_t;

/* One truth row per record emitted: what the test expects to find in the trace. */
enum { T_DOMAIN, T_OP, T_KIND, T_CORRELATION, T_BEGIN, T_END, T_EXTERNAL, T_THREAD, T_BYTES, T_NAME, T_FIELDS };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t delivery = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t delivered = PTHREAD_COND_INITIALIZER;
/* Buffers a HIP call took for delivery and has not delivered yet (under lock). */
static int in_flight;
static pool_t pool_state;
static int enabled[DOMAIN_NUMBER];
static uint64_t next_correlation = 1;
static int64_t truth[MAX_TRUTH][T_FIELDS];
static int truth_count;
static int64_t backdate_ns;
static __thread uint64_t external_stack[MAX_DEPTH];
static __thread int external_depth;

static const char* const KERNELS[] = {
    "_Z10vector_addPKfS0_Pfi",
    "_ZN2at6native18elementwise_kernelILi128ELi4EEEviPf",
    "_Z4gemmILi64ELi64EEvPKfS1_Pfiii",
};
#define KERNEL_COUNT ((int) (sizeof KERNELS / sizeof KERNELS[0]))

static uint64_t boottime(void) {
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    return (uint64_t) now.tv_sec * 1000000000ULL + (uint64_t) now.tv_nsec;
}

static void wait_until(uint64_t ns) {
    while (boottime() < ns) {
    }
}

static buffer_t fresh_buffer(size_t size) {
    buffer_t b;
    b.base = malloc(size);
    b.size = b.base == NULL ? 0 : size;
    b.records = 0;
    b.names = 0;
    return b;
}

/* Hands a buffer to the callback, then scribbles over it and frees it: a name pointer kept past the
 * callback reads garbage, as it would from roctracer's reused pool buffer. */
static void deliver(pool_t* p, buffer_t b) {
    if (b.base == NULL) {
        return;
    }
    if (b.records > 0 && p->callback != NULL) {
        pthread_mutex_lock(&delivery);
        p->callback(b.base, b.base + b.records, p->arg);
        pthread_mutex_unlock(&delivery);
    }
    memset(b.base, 0xA5, b.size);
    free(b.base);
}

/* Under lock: takes every held-back buffer (newest first) and, with {@code all}, the current one. */
static int take_pending(pool_t* p, buffer_t* out, int all) {
    int n = 0;
    if (all && p->current.records > 0) {
        out[n++] = p->current;
        p->current = fresh_buffer(p->buffer_size);
    }
    while (p->pending_count > 0) {
        out[n++] = p->pending[--p->pending_count];
    }
    return n;
}

/* Under lock: room for {@code records} records and {@code name_bytes} of names, or the current
 * buffer is held back as full and a fresh one started; buffers held back past MAX_PENDING are
 * appended to {@code overflow} for delivery once the lock is released. Null when a record cannot
 * fit even an empty buffer. */
static buffer_t* room(pool_t* p, size_t records, size_t name_bytes, buffer_t* overflow, int* overflow_count) {
    size_t need = records * sizeof(activity_record_t) + name_bytes;
    if (need > p->buffer_size) {
        return NULL;
    }
    buffer_t* b = &p->current;
    if (b->size - b->records - b->names < need) {
        p->pending[p->pending_count++] = *b;
        p->current = fresh_buffer(p->buffer_size);
        if (p->pending_count == MAX_PENDING) {
            *overflow_count += take_pending(p, overflow + *overflow_count, 0);
        }
    }
    return p->current.size >= need ? &p->current : NULL;
}

static void put(buffer_t* b, const activity_record_t* r) {
    memcpy(b->base + b->records, r, sizeof *r);
    b->records += sizeof *r;
}

static const char* put_name(buffer_t* b, const char* name) {
    size_t length = strlen(name) + 1;
    b->names += length;
    char* at = b->base + b->size - b->names;
    memcpy(at, name, length);
    return at;
}

static void remember(const activity_record_t* r, int64_t external, int64_t thread, int name) {
    if (truth_count == MAX_TRUTH) {
        return;
    }
    int64_t* t = truth[truth_count++];
    t[T_DOMAIN] = r->domain;
    t[T_OP] = r->op;
    t[T_KIND] = r->kind;
    t[T_CORRELATION] = (int64_t) r->correlation_id;
    t[T_BEGIN] = (int64_t) r->begin_ns;
    t[T_END] = (int64_t) r->end_ns;
    t[T_EXTERNAL] = external;
    t[T_THREAD] = thread;
    t[T_BYTES] = r->domain == DOMAIN_HIP_OPS && r->op == OP_COPY ? (int64_t) r->bytes : 0;
    t[T_NAME] = name;
}

/*
 * One HIP call: its device record (when {@code op} >= 0) written as the work completes, then the
 * EXT_API binding (when this thread pushed an id) and the API record together at the call's exit.
 */
static int64_t hip_call(uint32_t api, int op, uint32_t command, int kernel, uint64_t bytes, uint64_t device_ns) {
    uint64_t begin = boottime();
    uint64_t work_begin = begin + 1000;
    uint64_t work_end = work_begin + device_ns;
    if (op >= 0) {
        wait_until(work_end); /* the fake's work is synchronous: the call returns once it is done */
    }
    uint64_t end = boottime();
    if (backdate_ns > 0) {
        begin -= (uint64_t) backdate_ns;
        work_begin -= (uint64_t) backdate_ns;
        work_end -= (uint64_t) backdate_ns;
        end -= (uint64_t) backdate_ns;
    }
    int64_t thread = (int64_t) syscall(SYS_gettid);
    buffer_t overflow[2 * MAX_PENDING];
    int overflow_count = 0;
    pthread_mutex_lock(&lock);
    pool_t* p = &pool_state;
    if (!p->open || !enabled[DOMAIN_HIP_API]) {
        pthread_mutex_unlock(&lock);
        return 0;
    }
    uint64_t correlation = next_correlation++;
    int64_t external = external_depth > 0 ? (int64_t) external_stack[external_depth - 1] : -1;
    if (op >= 0 && enabled[DOMAIN_HIP_OPS]) {
        const char* name = kernel >= 0 ? KERNELS[kernel] : NULL;
        buffer_t* b = room(p, 1, name != NULL ? strlen(name) + 1 : 0, overflow, &overflow_count);
        if (b == NULL) {
            correlation = 0;
            goto done;
        }
        activity_record_t r;
        memset(&r, 0, sizeof r);
        r.domain = DOMAIN_HIP_OPS;
        r.kind = command;
        r.op = (uint32_t) op;
        r.correlation_id = correlation;
        r.begin_ns = work_begin;
        r.end_ns = work_end;
        r.device_id = FAKE_DEVICE;
        r.queue_id = (uint64_t) (thread % 2);
        if (name != NULL) {
            r.kernel_name = put_name(b, name);
        } else if (op == OP_COPY) {
            r.bytes = bytes;
        }
        put(b, &r);
        remember(&r, external, thread, kernel);
    }
    buffer_t* b = room(p, external >= 0 ? 2 : 1, 0, overflow, &overflow_count);
    if (b == NULL) {
        correlation = 0;
        goto done;
    }
    activity_record_t r;
    if (external >= 0) {
        memset(&r, 0, sizeof r);
        r.domain = DOMAIN_EXT_API;
        r.op = EXT_OP_EXTERN_ID;
        r.correlation_id = correlation;
        r.external_id = (uint64_t) external;
        put(b, &r);
        remember(&r, external, thread, -1);
    }
    memset(&r, 0, sizeof r);
    r.domain = DOMAIN_HIP_API;
    r.op = api;
    r.correlation_id = correlation;
    r.begin_ns = begin;
    r.end_ns = end;
    r.process_id = (uint32_t) getpid();
    r.thread_id = (uint32_t) thread;
    put(b, &r);
    remember(&r, external, thread, -1);
done:
    in_flight += overflow_count;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < overflow_count; i++) {
        deliver(p, overflow[i]);
    }
    if (overflow_count > 0) {
        pthread_mutex_lock(&lock);
        in_flight -= overflow_count;
        pthread_cond_broadcast(&delivered);
        pthread_mutex_unlock(&lock);
    }
    return (int64_t) correlation;
}

/* ---- the scripted workload's HIP calls ---- */

/** hipLaunchKernel of scripted kernel {@code kernel} (0..2); the call's correlation id. */
int64_t fakeHipLaunchKernel(int64_t kernel) {
    if (kernel < 0 || kernel >= KERNEL_COUNT) {
        return -1;
    }
    return hip_call(API_LAUNCH_KERNEL, OP_DISPATCH, CMD_NDRANGE_KERNEL, (int) kernel, 0, 3000 + 500 * (uint64_t) kernel);
}

/** hipMemcpyAsync host to device of {@code bytes}. */
int64_t fakeHipMemcpyAsync(int64_t bytes) {
    return hip_call(API_MEMCPY_ASYNC, OP_COPY, CMD_WRITE_BUFFER, -1, (uint64_t) bytes, 2000);
}

/** hipMemsetAsync of {@code bytes}: the HIP runtime reports it as a FILL_BUFFER command of the COPY op. */
int64_t fakeHipMemsetAsync(int64_t bytes) {
    return hip_call(API_MEMSET_ASYNC, OP_COPY, CMD_FILL_BUFFER, -1, (uint64_t) bytes, 1500);
}

/** hipDeviceSynchronize: the API record and a barrier (marker) record on the device. */
int64_t fakeHipDeviceSynchronize(int64_t unused) {
    (void) unused;
    return hip_call(API_DEVICE_SYNCHRONIZE, OP_BARRIER, CMD_MARKER, -1, 0, 500);
}

/** Timestamps the following calls {@code ns} in the past (work in flight before a session started). */
int64_t fakeBackdate(int64_t ns) {
    pthread_mutex_lock(&lock);
    backdate_ns = ns;
    pthread_mutex_unlock(&lock);
    return 0;
}

/** Forgets the truth log. */
int64_t fakeTruthReset(int64_t unused) {
    (void) unused;
    pthread_mutex_lock(&lock);
    truth_count = 0;
    pthread_mutex_unlock(&lock);
    return 0;
}

int64_t fakeTruthCount(int64_t unused) {
    (void) unused;
    pthread_mutex_lock(&lock);
    int64_t n = truth_count;
    pthread_mutex_unlock(&lock);
    return n;
}

/** Field {@code at % 16} of truth row {@code at / 16} (T_DOMAIN, T_OP, ...). */
int64_t fakeTruthField(int64_t at) {
    int64_t row = at / 16;
    int64_t field = at % 16;
    pthread_mutex_lock(&lock);
    int64_t value = row >= 0 && row < truth_count && field < T_FIELDS ? truth[row][field] : -1;
    pthread_mutex_unlock(&lock);
    return value;
}

/* ---- ROCtracer's API ---- */

uint32_t roctracer_version_major(void) {
    return 4;
}

uint32_t roctracer_version_minor(void) {
    return 1;
}

int roctracer_open_pool_expl(const roctracer_properties_t* properties, void** pool) {
    if (properties == NULL || properties->buffer_size < 2 * sizeof(activity_record_t)) {
        return STATUS_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&lock);
    pool_t* p = &pool_state;
    if (p->open) {
        pthread_mutex_unlock(&lock);
        return -5; /* ROCTRACER_STATUS_ERROR_DEFAULT_POOL_ALREADY_DEFINED */
    }
    memset(p, 0, sizeof *p);
    p->open = 1;
    p->buffer_size = properties->buffer_size;
    p->callback = properties->buffer_callback_fun;
    p->arg = properties->buffer_callback_arg;
    p->current = fresh_buffer(p->buffer_size);
    pthread_mutex_unlock(&lock);
    if (pool != NULL) {
        *pool = p;
    }
    return STATUS_SUCCESS;
}

int roctracer_enable_domain_activity_expl(uint32_t domain, void* pool) {
    if (domain >= DOMAIN_NUMBER) {
        return STATUS_INVALID_DOMAIN;
    }
    if (pool != NULL && pool != &pool_state) {
        return STATUS_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&lock);
    enabled[domain] = 1;
    pthread_mutex_unlock(&lock);
    return STATUS_SUCCESS;
}

int roctracer_disable_domain_activity(uint32_t domain) {
    if (domain >= DOMAIN_NUMBER) {
        return STATUS_INVALID_DOMAIN;
    }
    pthread_mutex_lock(&lock);
    enabled[domain] = 0;
    pthread_mutex_unlock(&lock);
    return STATUS_SUCCESS;
}

int roctracer_flush_activity_expl(void* pool) {
    (void) pool;
    buffer_t out[MAX_PENDING + 1];
    pthread_mutex_lock(&lock);
    int n = pool_state.open ? take_pending(&pool_state, out, 1) : 0;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < n; i++) {
        deliver(&pool_state, out[i]);
    }
    pthread_mutex_lock(&lock);
    while (in_flight > 0) {
        pthread_cond_wait(&delivered, &lock);
    }
    pthread_mutex_unlock(&lock);
    return STATUS_SUCCESS;
}

int roctracer_close_pool_expl(void* pool) {
    if (pool != NULL && pool != &pool_state) {
        return STATUS_INVALID_ARGUMENT;
    }
    roctracer_flush_activity_expl(pool);
    pthread_mutex_lock(&lock);
    free(pool_state.current.base);
    memset(&pool_state, 0, sizeof pool_state);
    pthread_mutex_unlock(&lock);
    return STATUS_SUCCESS;
}

int roctracer_activity_push_external_correlation_id(uint64_t id) {
    if (external_depth == MAX_DEPTH) {
        return -1;
    }
    external_stack[external_depth++] = id;
    return STATUS_SUCCESS;
}

int roctracer_activity_pop_external_correlation_id(uint64_t* last) {
    if (external_depth == 0) {
        if (last != NULL) {
            *last = 0;
        }
        return STATUS_MISMATCHED_EXTERNAL_ID;
    }
    uint64_t id = external_stack[--external_depth];
    if (last != NULL) {
        *last = id;
    }
    return STATUS_SUCCESS;
}

const char* roctracer_op_string(uint32_t domain, uint32_t op, uint32_t kind) {
    if (domain == DOMAIN_HIP_API) {
        switch (op) {
            case API_DEVICE_SYNCHRONIZE: return "hipDeviceSynchronize";
            case API_LAUNCH_KERNEL: return "hipLaunchKernel";
            case API_MEMCPY_ASYNC: return "hipMemcpyAsync";
            case API_MEMSET_ASYNC: return "hipMemsetAsync";
            default: return "unknown"; /* hip_api_name's answer for an id it does not know */
        }
    }
    if (domain == DOMAIN_HIP_OPS) {
        switch (kind) {
            case CMD_NDRANGE_KERNEL: return "KernelExecution";
            case CMD_WRITE_BUFFER: return "CopyHostToDevice";
            case CMD_MARKER: return "Marker";
            case CMD_FILL_BUFFER: return "FillBuffer";
            default: return "Unknown command kind";
        }
    }
    if (domain == DOMAIN_EXT_API) {
        return "EXT_API";
    }
    return NULL;
}

int roctracer_get_timestamp(uint64_t* timestamp) {
    if (timestamp == NULL) {
        return STATUS_INVALID_ARGUMENT;
    }
    *timestamp = boottime();
    return STATUS_SUCCESS;
}
