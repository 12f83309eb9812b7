/* Shared machinery of the fake CUPTI-shaped vendors (fake_mupti.c, fake_topspti.c): a device clock
 * with its own epoch and rate, activity buffers filled with records laid out exactly as CUPTI's
 * older records (CUpti_ActivityKernel6 168 B, Memcpy4 80 B, Memset3 80 B, API 40 B,
 * ExternalCorrelation 24 B; x86_64, packed, 8-aligned), completed out of order, a scripted workload
 * (launch, copy, set, implausible records) and the epoch truth of every record it emitted. */
#ifndef FAKE_CUPTI_OLDER_H
#define FAKE_CUPTI_OLDER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef void (*fk_requested_fn)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
typedef void (*fk_completed_fn)(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize);

enum { FK_MEMCPY = 1, FK_MEMSET = 2, FK_KERNEL = 3, FK_DRIVER = 4, FK_RUNTIME = 5, FK_CONCURRENT_KERNEL = 10,
       FK_EXTERNAL_CORRELATION = 39 };
enum { FK_KERNEL6_SIZE = 168, FK_MEMCPY4_SIZE = 80, FK_MEMSET3_SIZE = 80, FK_API_SIZE = 40, FK_EXTERNAL_SIZE = 24 };
enum { FK_CBID_LAUNCH = 211, FK_CBID_MEMCPY = 41, FK_CBID_MEMSET = 51 };
/* Records per buffer before the fake rotates to a new one, and buffers held before completing
 * them (newest first: out of order). */
enum { FK_RECORDS_PER_BUFFER = 5, FK_HELD_BUFFERS = 3 };
/* The device clock: CLOCK_MONOTONIC * 1.0001 + this, another epoch and another rate than realtime. */
#define FK_DEVICE_EPOCH 7300000000000000ULL
#define FK_FAR_FUTURE_NS (30ULL * 86400ULL * 1000000000ULL)

static fk_requested_fn fk_requested;
static fk_completed_fn fk_completed;
static pthread_mutex_t fk_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t fk_enabled; /* bit per kind */
static uint8_t* fk_buffer;
static size_t fk_buffer_size;
static size_t fk_buffer_used;
static int fk_buffer_records;
static uint8_t* fk_held[FK_HELD_BUFFERS + 1];
static size_t fk_held_size[FK_HELD_BUFFERS + 1];
static size_t fk_held_valid[FK_HELD_BUFFERS + 1];
static int fk_held_count;
/* Buffers a recording thread took to complete and has not completed yet (under fk_lock): a flush
 * returns only once they are, so no buffer of a call made before the flush is still on its way
 * when the flush returns (a flush barrier follows it; see fake_cupti_engine.h). */
static int fk_in_flight;
static pthread_cond_t fk_completed_cond = PTHREAD_COND_INITIALIZER;
static uint32_t fk_next_correlation = 1;
static uint64_t fk_emitted[64]; /* records written per kind */

/* The epoch truth of every plausible record the workload emitted. */
typedef struct {
    int64_t kind, correlation, start_epoch, end_epoch, thread, cbid;
} fk_truth;
enum { FK_TRUTH_FIELDS = 6, FK_TRUTH_MAX = 4096 };
static fk_truth fk_truths[FK_TRUTH_MAX];
static int fk_truth_count;

static int64_t fk_read(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint64_t fk_device_from_monotonic(int64_t mono) {
    return (uint64_t) mono + (uint64_t) mono / 10000u + FK_DEVICE_EPOCH;
}

/* One instant on both clocks: the device clock and the epoch (realtime read around it). */
static void fk_stamp(uint64_t* device, int64_t* epoch) {
    int64_t before = fk_read(CLOCK_REALTIME);
    int64_t mono = fk_read(CLOCK_MONOTONIC);
    int64_t after = fk_read(CLOCK_REALTIME);
    *device = fk_device_from_monotonic(mono);
    *epoch = before + (after - before) / 2;
}

static uint64_t fk_device_now(void) {
    return fk_device_from_monotonic(fk_read(CLOCK_MONOTONIC));
}

/* CUPTI's status codes, the ones both vendors' entry points are assumed to return. */
enum { FK_SUCCESS = 0, FK_ERROR_INVALID_PARAMETER = 1 };

/* The bodies of the activity entry points both fakes share, whatever their prefix. */
static int fk_register(fk_requested_fn requested, fk_completed_fn completed) {
    if (requested == NULL || completed == NULL) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    fk_requested = requested;
    fk_completed = completed;
    return FK_SUCCESS;
}

static int fk_enable(int kind) {
    if (kind <= 0 || kind >= 64) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    __atomic_or_fetch(&fk_enabled, 1ull << kind, __ATOMIC_RELAXED);
    return FK_SUCCESS;
}

static int fk_disable(int kind) {
    if (kind <= 0 || kind >= 64) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    __atomic_and_fetch(&fk_enabled, ~(1ull << kind), __ATOMIC_RELAXED);
    return FK_SUCCESS;
}

static int fk_timestamp(uint64_t* timestamp) {
    if (timestamp == NULL) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    *timestamp = fk_device_now();
    return FK_SUCCESS;
}

static void fk_spin(int64_t ns) {
    int64_t until = fk_read(CLOCK_MONOTONIC) + ns;
    while (fk_read(CLOCK_MONOTONIC) < until) {
    }
}

static uint32_t fk_thread_id(void) {
    return (uint32_t) syscall(SYS_gettid);
}

static int fk_is_enabled(int kind) {
    return (__atomic_load_n(&fk_enabled, __ATOMIC_RELAXED) >> kind) & 1u;
}

static void fk_put32(uint8_t* r, size_t at, uint32_t v) { memcpy(r + at, &v, 4); }
static void fk_put64(uint8_t* r, size_t at, uint64_t v) { memcpy(r + at, &v, 8); }
static void fk_put16(uint8_t* r, size_t at, uint16_t v) { memcpy(r + at, &v, 2); }

/* Completes buffers newest first (the order a vendor with several worker threads may use). */
static void fk_complete(uint8_t** buffers, size_t* sizes, size_t* valid, int n) {
    for (int i = n - 1; i >= 0; i--) {
        fk_completed(NULL, 0, buffers[i], sizes[i], valid[i]);
    }
}

/* Appends one record; rotates buffers and completes held ones outside the lock. */
static void fk_append(int kind, const uint8_t* record, size_t size) {
    uint8_t* done[FK_HELD_BUFFERS + 1];
    size_t done_size[FK_HELD_BUFFERS + 1];
    size_t done_valid[FK_HELD_BUFFERS + 1];
    int n = 0;
    pthread_mutex_lock(&fk_lock);
    if (fk_buffer == NULL) {
        size_t max = 0;
        fk_requested(&fk_buffer, &fk_buffer_size, &max);
        fk_buffer_used = 0;
        fk_buffer_records = 0;
    }
    if (fk_buffer != NULL && fk_buffer_size - fk_buffer_used >= size) {
        memcpy(fk_buffer + fk_buffer_used, record, size);
        fk_buffer_used += size;
        fk_buffer_records++;
        fk_emitted[kind & 63]++;
    }
    if (fk_buffer != NULL && fk_buffer_records == FK_RECORDS_PER_BUFFER) {
        fk_held[fk_held_count] = fk_buffer;
        fk_held_size[fk_held_count] = fk_buffer_size;
        fk_held_valid[fk_held_count] = fk_buffer_used;
        fk_held_count++;
        fk_buffer = NULL;
        if (fk_held_count == FK_HELD_BUFFERS) {
            n = fk_held_count;
            memcpy(done, fk_held, sizeof(uint8_t*) * (size_t) n);
            memcpy(done_size, fk_held_size, sizeof(size_t) * (size_t) n);
            memcpy(done_valid, fk_held_valid, sizeof(size_t) * (size_t) n);
            fk_held_count = 0;
            fk_in_flight += n;
        }
    }
    pthread_mutex_unlock(&fk_lock);
    if (n > 0) {
        fk_complete(done, done_size, done_valid, n);
        pthread_mutex_lock(&fk_lock);
        fk_in_flight -= n;
        pthread_cond_broadcast(&fk_completed_cond);
        pthread_mutex_unlock(&fk_lock);
    }
}

/* Completes every buffer, the partly filled one included (an empty one with validSize 0). */
static int fk_flush_all(void) {
    uint8_t* done[FK_HELD_BUFFERS + 1];
    size_t done_size[FK_HELD_BUFFERS + 1];
    size_t done_valid[FK_HELD_BUFFERS + 1];
    pthread_mutex_lock(&fk_lock);
    int n = fk_held_count;
    memcpy(done, fk_held, sizeof(uint8_t*) * (size_t) n);
    memcpy(done_size, fk_held_size, sizeof(size_t) * (size_t) n);
    memcpy(done_valid, fk_held_valid, sizeof(size_t) * (size_t) n);
    fk_held_count = 0;
    if (fk_buffer != NULL) {
        done[n] = fk_buffer;
        done_size[n] = fk_buffer_size;
        done_valid[n] = fk_buffer_used;
        n++;
        fk_buffer = NULL;
    }
    pthread_mutex_unlock(&fk_lock);
    if (fk_completed != NULL) {
        fk_complete(done, done_size, done_valid, n);
    }
    pthread_mutex_lock(&fk_lock);
    while (fk_in_flight > 0) {
        pthread_cond_wait(&fk_completed_cond, &fk_lock);
    }
    pthread_mutex_unlock(&fk_lock);
    return 0;
}

static void fk_truth_add(int64_t kind, uint32_t correlation, int64_t start, int64_t end, uint32_t thread, uint32_t cbid) {
    pthread_mutex_lock(&fk_lock);
    if (fk_truth_count < FK_TRUTH_MAX) {
        fk_truth t = {kind, correlation, start, end, thread, cbid};
        fk_truths[fk_truth_count++] = t;
    }
    pthread_mutex_unlock(&fk_lock);
}

static int64_t fk_truth_field(int64_t code) {
    int64_t index = code / FK_TRUTH_FIELDS;
    int field = (int) (code % FK_TRUTH_FIELDS);
    pthread_mutex_lock(&fk_lock);
    int64_t value = -1;
    if (index >= 0 && index < fk_truth_count) {
        const fk_truth* t = &fk_truths[index];
        const int64_t fields[FK_TRUTH_FIELDS] = {t->kind, t->correlation, t->start_epoch, t->end_epoch, t->thread, t->cbid};
        value = fields[field];
    }
    pthread_mutex_unlock(&fk_lock);
    return value;
}

static void fk_reset(void) {
    pthread_mutex_lock(&fk_lock);
    fk_truth_count = 0;
    memset(fk_emitted, 0, sizeof fk_emitted);
    pthread_mutex_unlock(&fk_lock);
}

static uint32_t fk_correlation(void) {
    return __atomic_fetch_add(&fk_next_correlation, 1, __ATOMIC_RELAXED);
}

/* --- record writers, at the CUPTI offsets --- */

static void fk_write_api(uint8_t* r, int kind, uint32_t cbid, uint64_t start, uint64_t end, uint32_t thread,
                         uint32_t correlation) {
    memset(r, 0, FK_API_SIZE);
    fk_put32(r, 0, (uint32_t) kind);
    fk_put32(r, 4, cbid);
    fk_put64(r, 8, start);
    fk_put64(r, 16, end);
    fk_put32(r, 24, (uint32_t) getpid());
    fk_put32(r, 28, thread);
    fk_put32(r, 32, correlation);
    fk_put32(r, 36, 0);
}

static const char* const fk_kernel_names[] = {
    "_Z10gemmKernelPKfS0_Pfi", "_Z4reluPfi", "_ZN7flagtok7softmaxIfEEvPT_i",
};
static const int32_t fk_kernel_grid[][3] = {{8, 16, 5}, {256, 1, 1}, {32, 2, 1}};
static const int32_t fk_kernel_block[][3] = {{128, 1, 1}, {64, 1, 1}, {32, 8, 1}};

static void fk_write_kernel6(uint8_t* r, int kind, int which, uint64_t start, uint64_t end, uint32_t correlation) {
    memset(r, 0, FK_KERNEL6_SIZE);
    fk_put32(r, 0, (uint32_t) kind);
    r[4] = 0x21; /* cacheConfig: requested 1, executed 2 */
    r[5] = 1;    /* sharedMemoryConfig */
    fk_put16(r, 6, (uint16_t) (32 + 8 * which)); /* registersPerThread */
    fk_put64(r, 16, start);
    fk_put64(r, 24, end);
    fk_put64(r, 32, end); /* completed */
    fk_put32(r, 40, 0);   /* deviceId */
    fk_put32(r, 44, 1);   /* contextId */
    fk_put32(r, 48, 7);   /* streamId */
    for (int i = 0; i < 3; i++) {
        fk_put32(r, 52 + 4 * (size_t) i, (uint32_t) fk_kernel_grid[which][i]);
        fk_put32(r, 64 + 4 * (size_t) i, (uint32_t) fk_kernel_block[which][i]);
    }
    fk_put32(r, 76, (uint32_t) (1024 * which)); /* staticSharedMemory */
    fk_put32(r, 80, 256);                        /* dynamicSharedMemory */
    fk_put32(r, 92, correlation);
    fk_put64(r, 96, (uint64_t) correlation);     /* gridId */
    fk_put64(r, 104, (uint64_t) (uintptr_t) fk_kernel_names[which]);
    fk_put64(r, 120, 0);                         /* queued: not collected (CUPTI_TIMESTAMP_UNKNOWN) */
}

static void fk_write_memcpy4(uint8_t* r, uint64_t bytes, uint64_t start, uint64_t end, uint32_t correlation) {
    memset(r, 0, FK_MEMCPY4_SIZE);
    fk_put32(r, 0, FK_MEMCPY);
    r[4] = 1; /* HTOD */
    r[5] = 1; /* PAGEABLE */
    r[6] = 3; /* DEVICE */
    r[7] = 1; /* async */
    fk_put64(r, 8, bytes);
    fk_put64(r, 16, start);
    fk_put64(r, 24, end);
    fk_put32(r, 32, 0);
    fk_put32(r, 36, 1);
    fk_put32(r, 40, 7);
    fk_put32(r, 44, correlation);
    fk_put32(r, 48, correlation); /* runtimeCorrelationId */
}

static void fk_write_memset3(uint8_t* r, uint64_t bytes, uint64_t start, uint64_t end, uint32_t correlation) {
    memset(r, 0, FK_MEMSET3_SIZE);
    fk_put32(r, 0, FK_MEMSET);
    fk_put32(r, 4, 0x2a); /* value */
    fk_put64(r, 8, bytes);
    fk_put64(r, 16, start);
    fk_put64(r, 24, end);
    fk_put32(r, 32, 0);
    fk_put32(r, 36, 1);
    fk_put32(r, 40, 7);
    fk_put32(r, 44, correlation);
    fk_put16(r, 48, 1); /* flags: async */
    fk_put16(r, 50, 3); /* memoryKind: DEVICE */
}

static void fk_write_external(uint8_t* r, uint32_t externalKind, uint64_t externalId, uint32_t correlation) {
    memset(r, 0, FK_EXTERNAL_SIZE);
    fk_put32(r, 0, FK_EXTERNAL_CORRELATION);
    fk_put32(r, 4, externalKind);
    fk_put64(r, 8, externalId);
    fk_put32(r, 16, correlation);
}

static int fk_kernel_kind(void) {
    return fk_is_enabled(FK_CONCURRENT_KERNEL) ? FK_CONCURRENT_KERNEL : fk_is_enabled(FK_KERNEL) ? FK_KERNEL : -1;
}

/* --- the scripted operations: an API call, then its device work on the device clock --- */

/* What a vendor does at API enter (MUPTI: an external-correlation record; TOPSPTI: the callback). */
typedef void (*fk_enter_hook)(uint32_t cbid, uint32_t correlation, int site);

enum { FK_OP_KERNEL = 0, FK_OP_MEMCPY = 1, FK_OP_MEMSET = 2 };

static uint32_t fk_operation(int op, int64_t argument, fk_enter_hook hook) {
    uint32_t cbid = op == FK_OP_KERNEL ? FK_CBID_LAUNCH : op == FK_OP_MEMCPY ? FK_CBID_MEMCPY : FK_CBID_MEMSET;
    uint32_t correlation = fk_correlation();
    uint32_t thread = fk_thread_id();
    uint64_t a0, a1, d0, d1;
    int64_t e_a0, e_a1, e_d0, e_d1;
    fk_stamp(&a0, &e_a0);
    hook(cbid, correlation, 0);
    fk_spin(2000);
    fk_stamp(&a1, &e_a1);
    hook(cbid, correlation, 1);
    fk_spin(1000);
    fk_stamp(&d0, &e_d0);
    fk_spin(3000);
    fk_stamp(&d1, &e_d1);
    uint8_t record[FK_KERNEL6_SIZE];
    if (fk_is_enabled(FK_RUNTIME)) {
        fk_write_api(record, FK_RUNTIME, cbid, a0, a1, thread, correlation);
        fk_append(FK_RUNTIME, record, FK_API_SIZE);
        fk_truth_add(FK_RUNTIME, correlation, e_a0, e_a1, thread, cbid);
    }
    if (op == FK_OP_KERNEL && fk_kernel_kind() >= 0) {
        fk_write_kernel6(record, fk_kernel_kind(), (int) (argument % 3), d0, d1, correlation);
        fk_append(fk_kernel_kind(), record, FK_KERNEL6_SIZE);
        fk_truth_add(FK_KERNEL, correlation, e_d0, e_d1, thread, (uint32_t) (argument % 3));
    } else if (op == FK_OP_MEMCPY && fk_is_enabled(FK_MEMCPY)) {
        fk_write_memcpy4(record, (uint64_t) argument, d0, d1, correlation);
        fk_append(FK_MEMCPY, record, FK_MEMCPY4_SIZE);
        fk_truth_add(FK_MEMCPY, correlation, e_d0, e_d1, thread, (uint32_t) argument);
    } else if (op == FK_OP_MEMSET && fk_is_enabled(FK_MEMSET)) {
        fk_write_memset3(record, (uint64_t) argument, d0, d1, correlation);
        fk_append(FK_MEMSET, record, FK_MEMSET3_SIZE);
        fk_truth_add(FK_MEMSET, correlation, e_d0, e_d1, thread, (uint32_t) argument);
    }
    return correlation;
}

/* Three device records no session can place: no timestamp, 30 days ahead, ending before they
 * start. No API call goes with them; a tracer must drop and count each. */
static int64_t fk_implausible(void) {
    uint8_t record[FK_KERNEL6_SIZE];
    uint64_t now = fk_device_now();
    int kernel = fk_kernel_kind();
    if (kernel < 0) {
        return 0;
    }
    fk_write_kernel6(record, kernel, 0, 0, 0, fk_correlation());
    fk_append(kernel, record, FK_KERNEL6_SIZE);
    fk_write_memcpy4(record, 64, now + FK_FAR_FUTURE_NS, now + FK_FAR_FUTURE_NS + 1000, fk_correlation());
    fk_append(FK_MEMCPY, record, FK_MEMCPY4_SIZE);
    fk_write_memset3(record, 64, now, now - 1000, fk_correlation());
    fk_append(FK_MEMSET, record, FK_MEMSET3_SIZE);
    return 3;
}

/* A buffer of every record kind the vendor emits (for the decoder contract), written at {@code out}
 * (at least 1024 bytes): its valid size. {@code external} adds an external-correlation record. */
static int64_t fk_sample_buffer(uint8_t* out, int external) {
    size_t at = 0;
    uint64_t t = fk_device_now();
    for (int i = 0; i < 3; i++) {
        uint32_t c = 100 + (uint32_t) i;
        if (external) {
            fk_write_external(out + at, 3, 40 + (uint64_t) i, c);
            at += FK_EXTERNAL_SIZE;
        }
        fk_write_api(out + at, FK_RUNTIME, FK_CBID_LAUNCH, t, t + 2000, 77, c);
        at += FK_API_SIZE;
        fk_write_kernel6(out + at, i == 0 ? FK_KERNEL : FK_CONCURRENT_KERNEL, i, t + 3000, t + 6000, c);
        at += FK_KERNEL6_SIZE;
        t += 10000;
    }
    fk_write_api(out + at, FK_DRIVER, 7, t, t + 500, 77, 200);
    at += FK_API_SIZE;
    fk_write_memcpy4(out + at, 4096, t + 1000, t + 2000, 201);
    at += FK_MEMCPY4_SIZE;
    fk_write_memset3(out + at, 1024, t + 3000, t + 4000, 202);
    at += FK_MEMSET3_SIZE;
    return (int64_t) at;
}

#endif
