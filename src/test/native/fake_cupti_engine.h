/* The machinery shared by the CUPTI-compatible fake vendor libraries (fake_mcpti.c, fake_ppu.c,
 * fake_cupti_inject.c): buffer callbacks, per-thread external-correlation stacks, per-thread activity
 * buffers completed out of order, and a truth log of the first FK_TRUTH records written, which the tests
 * read through fakeTruth. Each library includes it once and adds its own entry points, layouts and clock.
 * A record takes no lock shared between recording threads, as a real CUPTI's per-thread buffers take
 * none: only its thread's slot lock (shared with a flush) and, once per buffer filled, the pending
 * list's lock (fk_lock); the truth log's lock only while the log has room. With one lock around every
 * record, threads recording at once waited on each other (benchmarks/run-handoff-rate.sh: 0.90 M
 * launches/s with one thread, 0.71 M with two, on 16 cores). */
#ifndef FAKE_CUPTI_ENGINE_H
#define FAKE_CUPTI_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake_cupti_records.h"

typedef void (*fk_requested_fn)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
typedef void (*fk_completed_fn)(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize);

enum {
    FK_MEMCPY = 1, FK_MEMSET = 2, FK_KERNEL = 3, FK_DRIVER = 4, FK_RUNTIME = 5, FK_CONCURRENT_KERNEL = 10,
    FK_EXTERNAL_CORRELATION = 39
};
enum { FK_CUSTOM0 = 3 };
enum { FK_SUCCESS = 0, FK_ERROR_INVALID_PARAMETER = 1, FK_ERROR_NOT_COMPATIBLE = 17, FK_ERROR_UNKNOWN = 999 };

/* Truth flags: how the record was written. */
enum { FK_TRUTH_ZERO_TIMING = 1, FK_TRUTH_IMPLAUSIBLE = 2 };

#define FK_FILL 768      /* bytes a buffer takes before it is complete: many small buffers (FAKE_CUPTI_FILL_BYTES sets another) */
#define FK_SLOTS 64
#define FK_PENDING 256
#define FK_TRUTH 8192

typedef struct {
    int64_t kind, correlation, start, end, external, id, flags, bytes;
} fk_truth_entry;

typedef struct {
    uint8_t* data;
    size_t size;
    size_t used;
} fk_buffer;

/* A recording thread's slot: its buffer being filled, under the slot's own lock, which only its thread (or the
 * threads sharing the last slot) and a flush take. One cache line each: threads never write each other's. */
typedef struct {
    pthread_mutex_t lock;
    fk_buffer current;
} __attribute__((aligned(64))) fk_slot_state;

static fk_requested_fn fk_on_requested;
static fk_completed_fn fk_on_completed;
static uint64_t fk_enabled; /* bit per kind (kinds below 64) */
static pthread_mutex_t fk_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int fk_in_callback;
/* Buffers a recording thread took to complete and has not completed yet (under fk_lock): a flush
 * returns only once they are, as CUPTI's FlushAll returns once the buffers complete before it were
 * handed over. Without this wait a barrier published after the flush could overtake a buffer that
 * a descheduled thread was still completing (seen under CPU contention: an op settled without its
 * kernel, "app::mm expected 28.8 but was 24.0"). */
static int fk_in_flight;
static pthread_cond_t fk_completed_cond = PTHREAD_COND_INITIALIZER;
static atomic_uint fk_next_correlation = 1;
static atomic_long fk_refused_pops;
static atomic_long fk_dropped;
static atomic_long fk_enable_calls; /* successful Enable / Disable calls since the last reset */
static atomic_long fk_disable_calls;
static fk_slot_state fk_slots[FK_SLOTS];
static pthread_once_t fk_slots_once = PTHREAD_ONCE_INIT;
static int fk_slots_used;
/* Slots given back by threads that ended (under fk_lock): a slot is a live thread's, so any number of
 * threads may come and go, as sessions' threads do; at most FK_SLOTS threads record at once. */
static int fk_free_slots[FK_SLOTS];
static int fk_free_count;
static atomic_long fk_threads_past_slots; /* threads that found every slot taken by a live thread */
static pthread_key_t fk_slot_key;
static pthread_once_t fk_slot_key_once = PTHREAD_ONCE_INIT;
static fk_buffer fk_pending[FK_PENDING]; /* full buffers not completed yet (under fk_lock) */
static int fk_pending_count;
static fk_truth_entry fk_truth[FK_TRUTH];
static int fk_truth_count; /* written under fk_lock; read without it only to skip a full log */
static __thread uint64_t fk_stack[64];
static __thread int fk_depth;
static __thread int fk_slot = -1;

static int fk_is_enabled(int kind) {
    return kind < 64 && (__atomic_load_n(&fk_enabled, __ATOMIC_ACQUIRE) >> kind & 1) != 0;
}

/* FAKE_CLOCK_OFFSET_NS moves the fake's clock (its timestamps and records) away from the host's
 * real-time clock, as another host's or vendor's clock would be: tests of merging many processes. */
static int64_t fk_clock_offset(void) {
    static int64_t offset;
    static int read;
    if (!__atomic_load_n(&read, __ATOMIC_ACQUIRE)) {
        const char* text = getenv("FAKE_CLOCK_OFFSET_NS");
        __atomic_store_n(&offset, text == NULL ? 0 : strtoll(text, NULL, 10), __ATOMIC_RELAXED);
        __atomic_store_n(&read, 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(&offset, __ATOMIC_RELAXED);
}

static uint64_t fk_realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec + (uint64_t) fk_clock_offset();
}

/* The process's and the calling thread's ids, read once per thread (and again in a forked child), as a real CUPTI
 * keeps them: two system calls per API record cost more than the rest of the record. */
static unsigned fk_fork_generation = 1;
static pthread_once_t fk_fork_once = PTHREAD_ONCE_INIT;
static __thread unsigned fk_ids_generation;
static __thread uint32_t fk_tid_cached, fk_pid_cached;

static void fk_forked(void) {
    __atomic_add_fetch(&fk_fork_generation, 1, __ATOMIC_RELEASE);
}

static void fk_fork_watch(void) {
    pthread_atfork(NULL, NULL, fk_forked);
}

static void fk_ids(void) {
    unsigned generation = __atomic_load_n(&fk_fork_generation, __ATOMIC_ACQUIRE);
    if (fk_ids_generation != generation) {
        pthread_once(&fk_fork_once, fk_fork_watch);
        fk_tid_cached = (uint32_t) syscall(SYS_gettid);
        fk_pid_cached = (uint32_t) getpid();
        fk_ids_generation = generation;
    }
}

static uint32_t fk_thread_id(void) {
    fk_ids();
    return fk_tid_cached;
}

static uint32_t fk_process_id(void) {
    fk_ids();
    return fk_pid_cached;
}

/* The innermost pushed id of this thread, or -1 when none is pushed. */
static int64_t fk_external(void) {
    return fk_depth > 0 && fk_depth <= 64 ? (int64_t) fk_stack[fk_depth - 1] : -1;
}

static int fk_push(uint32_t kind, uint64_t id) {
    if (kind != FK_CUSTOM0 || fk_depth >= 64) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    fk_stack[fk_depth++] = id;
    return FK_SUCCESS;
}

/* Refuses a NULL out-parameter without popping (what CANN's MSPTI did, the seed's #425). */
static int fk_pop(uint32_t kind, uint64_t* last) {
    if (last == NULL || kind != FK_CUSTOM0 || fk_depth == 0) {
        atomic_fetch_add(&fk_refused_pops, 1);
        return FK_ERROR_INVALID_PARAMETER;
    }
    *last = fk_stack[--fk_depth];
    return FK_SUCCESS;
}

/* The bodies of the activity entry points every fake shares, whatever its prefix. */
static int fk_register(fk_requested_fn requested, fk_completed_fn completed) {
    if (requested == NULL || completed == NULL) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    fk_on_requested = requested;
    fk_on_completed = completed;
    return FK_SUCCESS;
}

static int fk_enable(int kind) {
    if (kind <= 0 || kind >= 64) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    __atomic_fetch_or(&fk_enabled, 1ULL << kind, __ATOMIC_RELEASE);
    atomic_fetch_add(&fk_enable_calls, 1);
    return FK_SUCCESS;
}

static int fk_disable(int kind) {
    if (kind <= 0 || kind >= 64) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    __atomic_fetch_and(&fk_enabled, ~(1ULL << kind), __ATOMIC_RELEASE);
    atomic_fetch_add(&fk_disable_calls, 1);
    return FK_SUCCESS;
}

static int fk_dropped_records(size_t* dropped) {
    if (dropped == NULL) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    *dropped = (size_t) atomic_load(&fk_dropped);
    return FK_SUCCESS;
}

static void fk_log(int64_t kind, int64_t correlation, int64_t start, int64_t end, int64_t external, int64_t id,
                   int64_t flags, int64_t bytes) {
    if (__atomic_load_n(&fk_truth_count, __ATOMIC_RELAXED) >= FK_TRUTH) {
        return; /* full: no lock (a reset empties it, under the lock) */
    }
    pthread_mutex_lock(&fk_lock);
    if (fk_truth_count < FK_TRUTH) {
        fk_truth_entry e = {kind, correlation, start, end, external, id, flags, bytes};
        fk_truth[fk_truth_count] = e;
        __atomic_store_n(&fk_truth_count, fk_truth_count + 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&fk_lock);
}

/* Hands completed buffers to the tool, last filled first (out of order). Never under fk_lock. */
static void fk_complete(fk_buffer* batch, int n) {
    for (int i = n - 1; i >= 0; i--) {
        atomic_fetch_add(&fk_in_callback, 1);
        fk_on_completed(NULL, 0, batch[i].data, batch[i].size, batch[i].used);
        atomic_fetch_sub(&fk_in_callback, 1);
    }
}

/* Takes the pending buffers (under fk_lock) into batch; how many. */
static int fk_take_pending(fk_buffer* batch) {
    int n = fk_pending_count;
    memcpy(batch, fk_pending, sizeof(fk_buffer) * (size_t) n);
    fk_pending_count = 0;
    return n;
}

/* Parks a full (or an ended thread's) buffer with the pending ones (under fk_lock), or drops it, counted. */
static void fk_park_locked(fk_buffer* b) {
    if (fk_pending_count < FK_PENDING) {
        fk_pending[fk_pending_count++] = *b;
    } else {
        atomic_fetch_add(&fk_dropped, 1);
    }
    b->data = NULL;
    b->used = 0;
}

/* A thread that ends gives its slot back; its partly filled buffer waits with the full ones for the
 * next completion or flush, as a real library keeps an ended thread's records until then. Lock order:
 * a slot's lock, then fk_lock. */
static void fk_slot_release(void* value) {
    int slot = (int) (intptr_t) value - 1;
    pthread_mutex_lock(&fk_slots[slot].lock);
    pthread_mutex_lock(&fk_lock);
    if (fk_slots[slot].current.data != NULL) {
        fk_park_locked(&fk_slots[slot].current);
    }
    fk_free_slots[fk_free_count++] = slot;
    pthread_mutex_unlock(&fk_lock);
    pthread_mutex_unlock(&fk_slots[slot].lock);
}

static void fk_slot_key_create(void) {
    pthread_key_create(&fk_slot_key, fk_slot_release);
}

static void fk_slots_init(void) {
    for (int i = 0; i < FK_SLOTS; i++) {
        pthread_mutex_init(&fk_slots[i].lock, NULL);
    }
}

/* The calling thread's slot (under fk_lock): a free one, else a new one; when FK_SLOTS threads hold
 * one each, the last slot is shared (and counted). */
static int fk_take_slot(void) {
    pthread_once(&fk_slot_key_once, fk_slot_key_create);
    int slot;
    if (fk_free_count > 0) {
        slot = fk_free_slots[--fk_free_count];
    } else if (fk_slots_used < FK_SLOTS) {
        slot = fk_slots_used++;
    } else {
        atomic_fetch_add(&fk_threads_past_slots, 1);
        return FK_SLOTS - 1; /* shared: never given back */
    }
    pthread_setspecific(fk_slot_key, (void*) (intptr_t) (slot + 1));
    return slot;
}

/* The bytes a buffer takes before it is complete: FK_FILL, or FAKE_CUPTI_FILL_BYTES (a benchmark of the hand-off
 * sets the size of a real CUPTI's buffers, megabytes). */
static size_t fk_fill_bytes(void) {
    static size_t fill;
    if (fill == 0) {
        const char* set = getenv("FAKE_CUPTI_FILL_BYTES");
        unsigned long long value = set != NULL ? strtoull(set, NULL, 10) : 0;
        fill = value >= 64 ? (size_t) value : FK_FILL;
    }
    return fill;
}

/* Appends one record (or scripted bytes) to the calling thread's buffer, under the thread's slot lock only; a
 * buffer that fills is parked with the pending ones under fk_lock too (the slot's lock still held, so a flush
 * finds it in the slot or among the pending), and a thread that finds three or more pending completes them. */
static void fk_append(const void* bytes, size_t n) {
    fk_buffer local[FK_PENDING];
    int completing = 0;
    if (fk_slot < 0) {
        pthread_once(&fk_slots_once, fk_slots_init);
        pthread_mutex_lock(&fk_lock);
        fk_slot = fk_take_slot();
        pthread_mutex_unlock(&fk_lock);
    }
    fk_slot_state* slot = &fk_slots[fk_slot];
    pthread_mutex_lock(&slot->lock);
    fk_buffer* b = &slot->current;
    size_t fill = fk_fill_bytes();
    size_t capacity = b->size < fill ? b->size : fill;
    if (b->data != NULL && b->used + n > capacity) {
        pthread_mutex_lock(&fk_lock);
        fk_park_locked(b);
        pthread_mutex_unlock(&fk_lock);
    }
    if (b->data == NULL) {
        size_t max = 0;
        fk_on_requested(&b->data, &b->size, &max);
        b->used = 0;
        if (b->data == NULL || b->size < n) {
            b->data = NULL;
            atomic_fetch_add(&fk_dropped, 1);
        }
    }
    if (b->data != NULL) {
        memcpy(b->data + b->used, bytes, n);
        b->used += n;
    }
    pthread_mutex_unlock(&slot->lock);
    if (__atomic_load_n(&fk_pending_count, __ATOMIC_RELAXED) >= 3) { /* read without the lock: a buffer's fill, not a record's */
        pthread_mutex_lock(&fk_lock);
        if (fk_pending_count >= 3) {
            completing = fk_take_pending(local);
            fk_in_flight += completing;
        }
        pthread_mutex_unlock(&fk_lock);
    }
    if (completing > 0) {
        fk_complete(local, completing);
        pthread_mutex_lock(&fk_lock);
        fk_in_flight -= completing;
        pthread_cond_broadcast(&fk_completed_cond);
        pthread_mutex_unlock(&fk_lock);
    }
}

/* The external-correlation record of `correlation` when this thread has an id pushed and the kind
 * is enabled; 1 when it was written. */
static int fk_external_record(uint32_t correlation) {
    int64_t external = fk_external();
    if (external < 0 || !fk_is_enabled(FK_EXTERNAL_CORRELATION)) {
        return 0;
    }
    fk_external_correlation r;
    memset(&r, 0, sizeof r);
    r.kind = FK_EXTERNAL_CORRELATION;
    r.externalKind = FK_CUSTOM0;
    r.externalId = (uint64_t) external;
    r.correlationId = correlation;
    fk_append(&r, sizeof r);
    return 1;
}

/* Runtime calls switched off one by one (cuptiActivityEnableRuntimeApi), by callback id. */
#define FK_CBIDS 1024
static atomic_uchar fk_runtime_off[FK_CBIDS];

/* Driver calls' records as CUDA 13's CUPTI keeps them (cuptiActivityEnableDriverApi): with the DRIVER kind on, every
 * driver call but the ids switched off; without it, only the ids switched on, and only when the first switch came
 * before the CUDA context existed: a first switch after it records nothing (measured on an H100 with 21,000 launches
 * per mode: benchmarks/device/driver-arm, modes mid and rearm). The context is made by the first call reported. */
enum { FK_API_UNSET = 0, FK_API_ON = 1, FK_API_OFF = 2 };
static atomic_uchar fk_driver_api[FK_CBIDS];
static atomic_int fk_driver_ids_live;
static atomic_int fk_context_made;

static inline int fk_enable_driver_api(uint32_t cbid, int enable) { /* inline: fakes without the driver API do not use it */
    if (cbid == 0 || cbid >= FK_CBIDS) {
        return FK_ERROR_INVALID_PARAMETER;
    }
    if (!atomic_load(&fk_context_made)) {
        atomic_store(&fk_driver_ids_live, 1);
    }
    atomic_store(&fk_driver_api[cbid], enable ? FK_API_ON : FK_API_OFF);
    return FK_SUCCESS;
}

/* Whether call `cbid` of `kind` (RUNTIME or DRIVER) gets a record now. */
static int fk_api_recorded(int kind, uint32_t cbid) {
    if (cbid >= FK_CBIDS) {
        return fk_is_enabled(kind);
    }
    if (kind == FK_RUNTIME) {
        return fk_is_enabled(FK_RUNTIME) && !atomic_load(&fk_runtime_off[cbid]);
    }
    int state = atomic_load(&fk_driver_api[cbid]);
    if (fk_is_enabled(FK_DRIVER)) {
        return state != FK_API_OFF;
    }
    return state == FK_API_ON && atomic_load(&fk_driver_ids_live);
}

/* The API record (`kind` RUNTIME or DRIVER) of call `cbid`, when CUPTI keeps it (fk_api_recorded); logged. */
static void fk_api_record(int kind, uint32_t cbid, uint32_t correlation, uint64_t start, uint64_t end) {
    if (!fk_api_recorded(kind, cbid)) {
        return;
    }
    fk_api r;
    memset(&r, 0, sizeof r);
    r.kind = (uint32_t) kind;
    r.cbid = cbid;
    r.start = start;
    r.end = end;
    r.processId = fk_process_id();
    r.threadId = fk_thread_id();
    r.correlationId = correlation;
    fk_append(&r, sizeof r);
    fk_log(kind, correlation, (int64_t) start, (int64_t) end, fk_external(), cbid, 0, 0);
}

/* Completes every buffer, the partly filled ones too (a forced flush). */
static int fk_flush_all(void) {
    fk_buffer local[FK_PENDING + FK_SLOTS];
    pthread_once(&fk_slots_once, fk_slots_init);
    pthread_mutex_lock(&fk_lock);
    int used = fk_slots_used;
    pthread_mutex_unlock(&fk_lock);
    int n = 0;
    for (int i = 0; i < used; i++) { /* each slot's buffer, then the pending ones: a buffer parked meanwhile is there */
        pthread_mutex_lock(&fk_slots[i].lock);
        if (fk_slots[i].current.data != NULL) {
            local[n++] = fk_slots[i].current;
            fk_slots[i].current.data = NULL;
            fk_slots[i].current.used = 0;
        }
        pthread_mutex_unlock(&fk_slots[i].lock);
    }
    pthread_mutex_lock(&fk_lock);
    n += fk_take_pending(local + n);
    pthread_mutex_unlock(&fk_lock);
    fk_complete(local, n);
    pthread_mutex_lock(&fk_lock);
    while (fk_in_flight > 0) {
        pthread_cond_wait(&fk_completed_cond, &fk_lock);
    }
    pthread_mutex_unlock(&fk_lock);
    return FK_SUCCESS;
}

static void fk_reset(void) {
    pthread_mutex_lock(&fk_lock);
    __atomic_store_n(&fk_truth_count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&fk_enabled, 0, __ATOMIC_RELEASE);
    atomic_store(&fk_next_correlation, 1);
    atomic_store(&fk_refused_pops, 0);
    atomic_store(&fk_dropped, 0);
    atomic_store(&fk_enable_calls, 0);
    atomic_store(&fk_disable_calls, 0);
    atomic_store(&fk_context_made, 0);
    atomic_store(&fk_driver_ids_live, 0);
    for (int i = 0; i < FK_CBIDS; i++) {
        atomic_store(&fk_driver_api[i], FK_API_UNSET);
    }
    pthread_mutex_unlock(&fk_lock);
}

/* fakeTruth(-1): records logged; fakeTruth(8 * i + f): field f of record i (kind, correlation,
 * start, end, External id or -1, cbid or kernel index, flags, bytes). */
int64_t fakeTruth(int64_t q) {
    int64_t value = -1;
    pthread_mutex_lock(&fk_lock);
    if (q < 0) {
        value = fk_truth_count;
    } else if (q / 8 < fk_truth_count) {
        const int64_t* fields = &fk_truth[q / 8].kind;
        value = fields[q % 8];
    }
    pthread_mutex_unlock(&fk_lock);
    return value;
}

#endif
