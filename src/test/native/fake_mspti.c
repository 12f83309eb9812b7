// A fake Ascend MSPTI (libmspti.so) for flagtrace's tests: the subset of the public API the tracer
// calls, emitting activity records laid out exactly as csrc/include/mspti_activity.h of
// github.com/Ascend/mspti declares them (packed members, 8-byte struct alignment: 8-byte fields at
// unaligned offsets), from a scripted workload the test drives through int64_t entry points.
//
// Behaviours copied from CANN as documented by flagtrace's seed and the public implementation:
//   - an API record made inside a pushed region is preceded by an external-correlation record;
//   - one launch is an ACL_API record and a RUNTIME_API record sharing the device record's
//     correlation id (64-bit; the script's ids are above 2^32);
//   - msptiActivityPopExternalCorrelationId(kind, NULL) returns MSPTI_ERROR_INVALID_PARAMETER and
//     leaves the stack as it was (CANN 9.0);
//   - buffers are completed out of order (pairs swapped during the run, reversed at FlushAll);
//   - FlushAll after Unsubscribe still delivers (the order the seed measured);
//   - FlushAll returns once every buffer filled before it was completed, those another thread is
//     completing included (MSPTI joins the threads completing the buffers its own thread took).
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MSPTI_SUCCESS 0
#define MSPTI_ERROR_INVALID_PARAMETER 1
#define MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED 2
#define MSPTI_ERROR_QUEUE_EMPTY 5

#define KIND_KERNEL 2
#define KIND_MEMSET 6
#define KIND_MEMCPY 7
#define KIND_EXTERNAL_CORRELATION 8
#define KIND_ACL_API 10
#define KIND_RUNTIME_API 12
#define KIND_COUNT 13
#define EXTERNAL_KIND_SIZE 5

#define PACKED_ALIGNMENT __attribute__((__packed__)) __attribute__((aligned(8)))

typedef struct PACKED_ALIGNMENT {
    int32_t kind;
    uint64_t start;
    uint64_t end;
    uint32_t processId;
    uint32_t threadId;
    uint64_t correlationId;
    const char* name;
} fake_api;

typedef struct PACKED_ALIGNMENT {
    int32_t kind;
    uint64_t start;
    uint64_t end;
    uint32_t deviceId;
    uint32_t streamId;
    uint64_t correlationId;
    const char* type;
    const char* name;
} fake_kernel;

typedef struct PACKED_ALIGNMENT {
    int32_t kind;
    uint32_t value;
    uint64_t bytes;
    uint64_t start;
    uint64_t end;
    uint32_t deviceId;
    uint32_t streamId;
    uint64_t correlationId;
    uint8_t isAsync;
} fake_memset;

typedef struct PACKED_ALIGNMENT {
    int32_t kind;
    int32_t copyKind;
    uint64_t bytes;
    uint64_t start;
    uint64_t end;
    uint32_t deviceId;
    uint32_t streamId;
    uint64_t correlationId;
    uint8_t isAsync;
} fake_memcpy;

typedef struct PACKED_ALIGNMENT {
    int32_t kind;
    int32_t externalKind;
    uint64_t externalId;
    uint64_t correlationId;
} fake_external;

// The header's layout, as gcc computes it from the real header (vendor facts): sizes and offsets.
_Static_assert(sizeof(fake_api) == 48 && offsetof(fake_api, start) == 4 && offsetof(fake_api, processId) == 20
        && offsetof(fake_api, correlationId) == 28 && offsetof(fake_api, name) == 36, "msptiActivityApi");
_Static_assert(sizeof(fake_kernel) == 56 && offsetof(fake_kernel, deviceId) == 20 && offsetof(fake_kernel, streamId) == 24
        && offsetof(fake_kernel, correlationId) == 28 && offsetof(fake_kernel, type) == 36
        && offsetof(fake_kernel, name) == 44, "msptiActivityKernel");
_Static_assert(sizeof(fake_memset) == 56 && offsetof(fake_memset, bytes) == 8 && offsetof(fake_memset, deviceId) == 32
        && offsetof(fake_memset, correlationId) == 40 && offsetof(fake_memset, isAsync) == 48, "msptiActivityMemset");
_Static_assert(sizeof(fake_memcpy) == 56 && offsetof(fake_memcpy, copyKind) == 4 && offsetof(fake_memcpy, start) == 16
        && offsetof(fake_memcpy, correlationId) == 40 && offsetof(fake_memcpy, isAsync) == 48, "msptiActivityMemcpy");
_Static_assert(sizeof(fake_external) == 24 && offsetof(fake_external, externalId) == 8
        && offsetof(fake_external, correlationId) == 16, "msptiActivityExternalCorrelation");

typedef void (*requested_fn)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
typedef void (*completed_fn)(uint8_t* buffer, size_t size, size_t validSize);
typedef void (*callback_fn)(void* userdata, int domain, uint32_t cbid, const void* cbdata);

/** Physical device the script runs on; the test maps it through ASCEND_RT_VISIBLE_DEVICES. */
#define PHYSICAL_DEVICE 2
/** Records per buffer: small, so one scripted run fills many buffers. */
#define RECORDS_PER_BUFFER 5
#define MAX_PENDING 4096
#define CORRELATION_BASE 0x100000000ULL

typedef struct {
    uint8_t* data;
    size_t size;
    size_t used;
} fake_buffer;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static requested_fn requested;
static completed_fn completed;
static int enabled[KIND_COUNT];
static int subscribed;
static int subscriber_token;
static fake_buffer current;
static int current_records;
static fake_buffer pending[MAX_PENDING];
static int pending_count;
static pthread_cond_t completed_cond = PTHREAD_COND_INITIALIZER;
// Buffers a recording thread took to complete and has not completed yet (under the lock).
static int in_flight;
static uint64_t base_ns;
static int64_t last_unsubscribe;
static int64_t last_flush;
static int64_t call_clock;

static __thread uint64_t external_stack[EXTERNAL_KIND_SIZE][64];
static __thread int external_depth[EXTERNAL_KIND_SIZE];

static const char* const KERNEL_NAMES[3] = {"fake_matmul_kernel", "fake_relu_kernel", "fake_add_kernel"};

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

/** Moves the current buffer to the pending list; called under the lock. */
static void close_current(void) {
    if (current.data != NULL && pending_count < MAX_PENDING) {
        pending[pending_count++] = current;
    }
    memset(&current, 0, sizeof current);
    current_records = 0;
}

/** Takes the pending list out (under the lock) so it can be completed outside it. */
static int take_pending(fake_buffer* out) {
    int n = pending_count;
    memcpy(out, pending, (size_t) n * sizeof(fake_buffer));
    pending_count = 0;
    return n;
}

static void complete(fake_buffer* b) {
    if (completed != NULL) {
        completed(b->data, b->size, b->used);
    } else {
        free(b->data);
    }
}

/** Appends one record to the current buffer (asking for one when needed); swaps pairs of full buffers. */
static void emit(int kind, const void* record, size_t size) {
    static fake_buffer ready[MAX_PENDING];
    int n = 0;
    pthread_mutex_lock(&lock);
    if (kind < KIND_COUNT && enabled[kind] && requested != NULL) {
        if (current.data == NULL || current.used + size > current.size || current_records == RECORDS_PER_BUFFER) {
            close_current();
            size_t max = 0;
            requested(&current.data, &current.size, &max);
            current.used = 0;
        }
        if (current.data != NULL && current.used + size <= current.size) {
            memcpy(current.data + current.used, record, size);
            current.used += size;
            current_records++;
        }
        if (pending_count >= 2) {
            n = take_pending(ready);
        }
    }
    // Completion happens outside the lock, as MSPTI's own thread would, and out of order: 1, 0.
    if (n == 2) {
        fake_buffer first = ready[0];
        fake_buffer second = ready[1];
        in_flight += 2;
        pthread_mutex_unlock(&lock);
        complete(&second);
        complete(&first);
        pthread_mutex_lock(&lock);
        in_flight -= 2;
        pthread_cond_broadcast(&completed_cond);
        pthread_mutex_unlock(&lock);
        return;
    }
    pthread_mutex_unlock(&lock);
}

static uint32_t thread_id(void) {
    return (uint32_t) syscall(SYS_gettid);
}

static void emit_external(uint64_t correlation) {
    int kind = 2; // MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0
    if (external_depth[kind] <= 0) {
        return;
    }
    fake_external x;
    memset(&x, 0, sizeof x);
    x.kind = KIND_EXTERNAL_CORRELATION;
    x.externalKind = kind;
    x.externalId = external_stack[kind][(external_depth[kind] > 64 ? 64 : external_depth[kind]) - 1];
    x.correlationId = correlation;
    emit(KIND_EXTERNAL_CORRELATION, &x, sizeof x);
}

static void emit_api(int kind, uint64_t start, uint64_t end, uint64_t correlation, const char* name) {
    emit_external(correlation);
    fake_api a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    a.start = start;
    a.end = end;
    a.processId = (uint32_t) getpid();
    a.threadId = thread_id();
    a.correlationId = correlation;
    a.name = name;
    emit(kind, &a, sizeof a);
}

// ---- the MSPTI API subset ----

int msptiSubscribe(void** subscriber, callback_fn callback, void* userdata) {
    (void) callback;
    (void) userdata;
    if (subscriber == NULL) {
        return MSPTI_ERROR_INVALID_PARAMETER;
    }
    pthread_mutex_lock(&lock);
    int status = subscribed ? MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED : MSPTI_SUCCESS;
    if (status == MSPTI_SUCCESS) {
        subscribed = 1;
        *subscriber = &subscriber_token;
    }
    pthread_mutex_unlock(&lock);
    return status;
}

int msptiUnsubscribe(void* subscriber) {
    if (subscriber != &subscriber_token) {
        return MSPTI_ERROR_INVALID_PARAMETER;
    }
    pthread_mutex_lock(&lock);
    subscribed = 0;
    last_unsubscribe = ++call_clock;
    pthread_mutex_unlock(&lock);
    return MSPTI_SUCCESS;
}

int msptiActivityRegisterCallbacks(requested_fn funcBufferRequested, completed_fn funcBufferCompleted) {
    if (funcBufferRequested == NULL || funcBufferCompleted == NULL) {
        return MSPTI_ERROR_INVALID_PARAMETER;
    }
    pthread_mutex_lock(&lock);
    requested = funcBufferRequested;
    completed = funcBufferCompleted;
    pthread_mutex_unlock(&lock);
    return MSPTI_SUCCESS;
}

int msptiActivityEnable(int kind) {
    if (kind <= 0 || kind >= KIND_COUNT) {
        return MSPTI_ERROR_INVALID_PARAMETER;
    }
    enabled[kind] = 1;
    return MSPTI_SUCCESS;
}

int msptiActivityDisable(int kind) {
    if (kind <= 0 || kind >= KIND_COUNT) {
        return MSPTI_ERROR_INVALID_PARAMETER;
    }
    enabled[kind] = 0;
    return MSPTI_SUCCESS;
}

/** Completes every buffer, the current one included, in reverse order. */
int msptiActivityFlushAll(uint32_t flag) {
    static fake_buffer ready[MAX_PENDING];
    (void) flag;
    pthread_mutex_lock(&lock);
    last_flush = ++call_clock;
    close_current();
    int n = take_pending(ready);
    pthread_mutex_unlock(&lock);
    for (int i = n - 1; i >= 0; i--) {
        complete(&ready[i]);
    }
    pthread_mutex_lock(&lock);
    while (in_flight > 0) {
        pthread_cond_wait(&completed_cond, &lock);
    }
    pthread_mutex_unlock(&lock);
    return MSPTI_SUCCESS;
}

int msptiActivityPushExternalCorrelationId(int kind, uint64_t id) {
    if (kind < 0 || kind >= EXTERNAL_KIND_SIZE) {
        return MSPTI_SUCCESS; // CANN does not validate the kind either
    }
    if (external_depth[kind] < 64) {
        external_stack[kind][external_depth[kind]] = id;
    }
    external_depth[kind]++;
    return MSPTI_SUCCESS;
}

int msptiActivityPopExternalCorrelationId(int kind, uint64_t* lastId) {
    if (lastId == NULL) {
        return MSPTI_ERROR_INVALID_PARAMETER; // CANN 9.0: refused, and the stack is NOT unwound
    }
    if (kind < 0 || kind >= EXTERNAL_KIND_SIZE || external_depth[kind] <= 0) {
        return MSPTI_ERROR_QUEUE_EMPTY;
    }
    external_depth[kind]--;
    *lastId = external_depth[kind] < 64 ? external_stack[kind][external_depth[kind]] : 0;
    return MSPTI_SUCCESS;
}

// ---- the scripted workload: int64_t entry(int64_t), called through the tracer ----
//
// A call's argument is its step number (unique per call: thread * 100 + step in the tests); every
// time is base + step * 10 us + a fixed offset, and the correlation is 2^32 + step * 16 + 5.

static uint64_t step_start(int64_t step) {
    return base_ns + (uint64_t) step * 10000ULL;
}

static uint64_t step_correlation(int64_t step) {
    return CORRELATION_BASE + (uint64_t) step * 16ULL + 5ULL;
}

static uint32_t step_stream(int64_t step) {
    return (uint32_t) (step / 100);
}

/**
 * Starts a script whose steps before {@code past} lie in the past: step 0 is {@code past} * 10 us before
 * now (the base, epoch ns, returned). A script's times run 10 us a step whatever the host does, so
 * from 0 a quick phase's last steps lie ahead of the host's clock (step 399: 4 ms), past the session's
 * end when the session closes right after: dropped outside the window. A later phase of a session
 * numbers its steps on (its correlations must differ from the earlier ones') and passes its end.
 */
int64_t fakeMsptiBegin(int64_t past) {
    base_ns = now_ns() - (uint64_t) past * 10000ULL;
    return (int64_t) base_ns;
}

/** aclnn call + rtKernelLaunch + the kernel; the correlation returned. */
int64_t fakeLaunchKernel(int64_t step) {
    uint64_t s = step_start(step);
    uint64_t c = step_correlation(step);
    emit_api(KIND_ACL_API, s, s + 4000, c, "aclnnFakeMatmul");
    emit_api(KIND_RUNTIME_API, s + 1000, s + 3000, c, "rtKernelLaunch");
    fake_kernel k;
    memset(&k, 0, sizeof k);
    k.kind = KIND_KERNEL;
    k.start = s + 5000;
    k.end = s + 8000;
    k.deviceId = PHYSICAL_DEVICE;
    k.streamId = step_stream(step);
    k.correlationId = c;
    k.type = "AI_CORE";
    k.name = KERNEL_NAMES[step % 3];
    emit(KIND_KERNEL, &k, sizeof k);
    return (int64_t) c;
}

/** aclrtMemcpy + rtMemcpy + a host-to-device copy of 4096 + step bytes. */
int64_t fakeMemcpy(int64_t step) {
    uint64_t s = step_start(step);
    uint64_t c = step_correlation(step);
    emit_api(KIND_ACL_API, s, s + 4000, c, "aclrtMemcpy");
    emit_api(KIND_RUNTIME_API, s + 1000, s + 3000, c, "rtMemcpy");
    fake_memcpy m;
    memset(&m, 0, sizeof m);
    m.kind = KIND_MEMCPY;
    m.copyKind = 2; // HTOD
    m.bytes = 4096 + (uint64_t) step;
    m.start = s + 5000;
    m.end = s + 6000;
    m.deviceId = PHYSICAL_DEVICE;
    m.streamId = step_stream(step);
    m.correlationId = c;
    m.isAsync = 0;
    emit(KIND_MEMCPY, &m, sizeof m);
    return (int64_t) c;
}

/** aclrtMemset + rtMemset + a memset of 1024 bytes to (step & 0xff). */
int64_t fakeMemset(int64_t step) {
    uint64_t s = step_start(step);
    uint64_t c = step_correlation(step);
    emit_api(KIND_ACL_API, s, s + 4000, c, "aclrtMemset");
    emit_api(KIND_RUNTIME_API, s + 1000, s + 3000, c, "rtMemset");
    fake_memset m;
    memset(&m, 0, sizeof m);
    m.kind = KIND_MEMSET;
    m.value = (uint32_t) (step & 0xff);
    m.bytes = 1024;
    m.start = s + 5000;
    m.end = s + 7000;
    m.deviceId = PHYSICAL_DEVICE;
    m.streamId = step_stream(step);
    m.correlationId = c;
    m.isAsync = 1;
    emit(KIND_MEMSET, &m, sizeof m);
    return (int64_t) c;
}

/**
 * A launch recorded a minute before the script began: activity from before the window, however long
 * the session took to open before the script began (over a second in a cold JVM on two cores beside
 * two CPU hogs, where a second before was inside the window).
 */
int64_t fakeLaunchBeforeWindow(int64_t step) {
    uint64_t s = base_ns - 60000000000ULL + (uint64_t) step * 10000ULL;
    uint64_t c = step_correlation(step);
    emit_api(KIND_RUNTIME_API, s, s + 2000, c, "rtKernelLaunch");
    fake_kernel k;
    memset(&k, 0, sizeof k);
    k.kind = KIND_KERNEL;
    k.start = s + 3000;
    k.end = s + 4000;
    k.deviceId = PHYSICAL_DEVICE;
    k.streamId = step_stream(step);
    k.correlationId = c;
    k.type = "AI_CORE";
    k.name = KERNEL_NAMES[0];
    emit(KIND_KERNEL, &k, sizeof k);
    return (int64_t) c;
}

/** Pops kind {@code kind} with a NULL out-parameter, as the seed's tracer once did; MSPTI's status. */
int64_t fakePopWithNull(int64_t kind) {
    return msptiActivityPopExternalCorrelationId((int) kind, NULL);
}

/** 1 when the last unsubscribe came before the last flush, 0 when after, -1 when either is missing. */
int64_t fakeUnsubscribedBeforeFlush(int64_t unused) {
    (void) unused;
    pthread_mutex_lock(&lock);
    int64_t result = last_unsubscribe == 0 || last_flush == 0 ? -1 : last_unsubscribe < last_flush ? 1 : 0;
    pthread_mutex_unlock(&lock);
    return result;
}

// ---- the fake ACL runtime's entry (fake_acl.c): a program's calls, as CANN records them ----

static uint64_t last_call_start;

/**
 * One ACL call of a program, `acl` (its runtime half `rt`), with its device record: KIND_KERNEL (named
 * `kernel`), KIND_MEMCPY (`bytes` of `copyKind`), KIND_MEMSET (`bytes` of `value`) on `device` and
 * `stream`, or none (0). The call starts now (or 10 us after the last one, so that each call has its
 * own span) and lasts 4 us, its runtime half inside it; its device work runs 1 to 4 us after it ends.
 * Each call's correlation is its own (2^32 + step * 16 + 5). Returns the call's end, epoch ns: the
 * runtime returns then.
 */
int64_t fakeMsptiAclCall(const char* acl, const char* rt, int kind, const char* kernel, uint64_t bytes, int copyKind,
                         uint32_t value, uint32_t device, uint32_t stream) {
    static int64_t steps;
    pthread_mutex_lock(&lock);
    uint64_t s = now_ns();
    if (s < last_call_start + 10000ULL) {
        s = last_call_start + 10000ULL;
    }
    last_call_start = s;
    int64_t step = ++steps;
    pthread_mutex_unlock(&lock);
    uint64_t c = step_correlation(step);
    emit_api(KIND_ACL_API, s, s + 4000, c, acl);
    emit_api(KIND_RUNTIME_API, s + 1000, s + 3000, c, rt);
    if (kind == KIND_KERNEL) {
        fake_kernel k;
        memset(&k, 0, sizeof k);
        k.kind = KIND_KERNEL;
        k.start = s + 5000;
        k.end = s + 8000;
        k.deviceId = device;
        k.streamId = stream;
        k.correlationId = c;
        k.type = "AI_CORE";
        k.name = kernel;
        emit(KIND_KERNEL, &k, sizeof k);
    } else if (kind == KIND_MEMCPY) {
        fake_memcpy m;
        memset(&m, 0, sizeof m);
        m.kind = KIND_MEMCPY;
        m.copyKind = copyKind;
        m.bytes = bytes;
        m.start = s + 5000;
        m.end = s + 6000;
        m.deviceId = device;
        m.streamId = stream;
        m.correlationId = c;
        emit(KIND_MEMCPY, &m, sizeof m);
    } else if (kind == KIND_MEMSET) {
        fake_memset m;
        memset(&m, 0, sizeof m);
        m.kind = KIND_MEMSET;
        m.value = value;
        m.bytes = bytes;
        m.start = s + 5000;
        m.end = s + 7000;
        m.deviceId = device;
        m.streamId = stream;
        m.correlationId = c;
        m.isAsync = 1;
        emit(KIND_MEMSET, &m, sizeof m);
    }
    return (int64_t) (s + 4000);
}
