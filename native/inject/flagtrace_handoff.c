/* The vendor-neutral half of flagtrace's injected libraries: see flagtrace_handoff.h. The target
 * never waits on flagtrace: messages go through a bounded queue to one sender thread; what does not
 * fit is dropped and counted, and the counts reach the trace. If the socket fails, the tracer
 * disarms, the target runs on, and says so in one line on its stderr (say_untraced: once per process, whichever
 * path finds it). Wire format: docs/run.md. */
#define _GNU_SOURCE
#include "flagtrace_handoff.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

const handoff_vendor* handoff;
size_t handoff_buffer_bytes = 8u << 20;

/* One queued message: header and payload in one block, or a vendor's buffer sent from `buffer`. */
typedef struct message {
    struct message* next;
    uint32_t type;
    uint64_t length;
    uint8_t* buffer; /* a vendor buffer (freed once sent), or NULL: the payload follows */
    uint8_t payload[];
} message;

static atomic_int armed; /* 1 while buffers and ops are handed over */
static atomic_uint window; /* the number of the latest window armed (1, 2, ...); 0 before the first */
static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER; /* arm, disarm and exit, one at a time */
static int exiting;        /* the exit ran: arms are ignored */
/* The program's own client of the vendor's library took it (handoff_yield): the call that did, or NULL; arms are
 * ignored after it. Set under control_lock, read by any thread. */
static const char* _Atomic yielded_to;
static int later;          /* started disarmed (FLAGTRACE_RUN_START=later, or a capture range) */
/* The capture range (FLAGTRACE_RUN_CAPTURE): its kind, the range name it matches (CAPTURE_RANGE), the label each
 * of its windows carries (the option's value), and how many matching ranges are open now, on every thread
 * (guarded by control_lock). */
static int capture_kind;
static char* capture_name;
/* NAME@DOMAIN: the domain the range must be in (nsys's --nvtx-capture): NULL for the default domain, "*" for any. */
static char* capture_domain;
static char* capture_label;
static int capture_open;
/* The windows the capture range may still open (FLAGTRACE_RUN_CAPTURE_WINDOWS, `--capture-range-end stop` or
 * `repeat:N`); -1: no limit. Guarded by control_lock. */
static long capture_windows_left = -1;
static int fd = -1;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static message* head;
static message* tail;
static uint64_t queued_bytes;
static uint64_t queue_limit = 256ull << 20;
static int sender_done; /* the sender ended: disarmed, or the end was sent */
static int closing;     /* the end message is queued: the sender stops after it */
/* A window's message is queued and its kinds are not enabled yet: the sender holds it (and all after it) until they
 * are, so flagtrace, which answers `start` when the message arrives, never answers before the window records. */
static int opening;
static pthread_t sender;
static atomic_ullong buffers_sent, buffers_dropped, bytes_dropped, ops_dropped, names_dropped, marks_dropped, next_external_id;
/* The records of the buffers dropped: all of them, and the device kinds' (kernel, memcpy, memset). */
static atomic_ullong records_dropped, kernels_dropped, memcpys_dropped, memsets_dropped;
/* Device records (kernels, copies, sets) handed over in the window: a process with none did no device work in it. */
static atomic_ullong device_records_handed;
/* The latest end of the device records handed over in the window open (0 before the first): its end covers them. */
static atomic_ullong window_device_end;

/* Names already handed over, by pointer (open addressing; a full table stops naming, counted). Lock-free: a slot
 * goes from 0 to its pointer once, by compare-and-swap, so the threads completing buffers at once (each kernel
 * record's name is looked up) never wait on each other; each thread also remembers the last pointer it saw. */
#define NAME_SLOTS 65536
static _Atomic uintptr_t named[NAME_SLOTS];
static __thread uintptr_t last_named;

/* Vendor buffers already sent, kept for the next buffer the vendor asks for (at most POOL_BUFFERS, under pool_lock,
 * taken once per buffer): a fresh 8 MB buffer costs the recording thread a page fault per page as it fills. */
#define POOL_BUFFERS 4
static uint8_t* pool[POOL_BUFFERS];
static int pool_count;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t handoff_clock_ns(int id) {
    struct timespec ts;
    clock_gettime((clockid_t) id, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

int handoff_armed(void) {
    return atomic_load(&armed);
}

/* Writes all of it (0), or fails: the socket is gone, and the error (errno's) says why. */
static int write_all(const void* data, size_t n) {
    const uint8_t* p = data;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return w < 0 && errno != 0 ? errno : EPIPE;
        }
        p += w;
        n -= (size_t) w;
    }
    return 0;
}

/* A vendor buffer done with: kept in the pool when it has room, else freed. */
static void release_buffer(uint8_t* buffer) {
    if (buffer == NULL) {
        return;
    }
    pthread_mutex_lock(&pool_lock);
    int kept = pool_count < POOL_BUFFERS;
    if (kept) {
        pool[pool_count++] = buffer;
    }
    pthread_mutex_unlock(&pool_lock);
    if (!kept) {
        free(buffer);
    }
}

static void free_message(message* m) {
    release_buffer(m->buffer);
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

void handoff_disarm(void) {
    if (atomic_exchange(&armed, 0)) {
        handoff->disable();
    }
}

/* Whether this process said that it runs untraced (its one line on stderr): said once, however many paths fail. */
static atomic_int said_untraced;

/* Says, once per process, on the program's stderr: "flagtrace: process PID " and then `format`'s words. One write, so
 * that the line stays whole among the program's own. */
static void say_untraced(const char* format, ...) {
    if (atomic_exchange(&said_untraced, 1)) {
        return;
    }
    char line[1024];
    int n = snprintf(line, sizeof line, "flagtrace: process %ld ", (long) getpid());
    va_list words;
    va_start(words, format);
    n += vsnprintf(line + n, sizeof line - (size_t) n - 1, format, words);
    va_end(words);
    if (n > (int) sizeof line - 2) {
        n = (int) sizeof line - 2;
    }
    line[n++] = '\n';
    ssize_t unused = write(STDERR_FILENO, line, (size_t) n);
    (void) unused;
}

/* flagtrace run is gone (a write failed, or the reader found the socket closed), `why` in words: disarms, drops what
 * waits (`failed`, the buffer whose write failed, is one more) and stops the sender; the program runs on untraced, and
 * says so once with how many buffers reached flagtrace run and how many did not. Under control_lock, so that no arm
 * opens a window between the disarm and the sender's stop. `reader`: the reader found it; once the exit runs, that
 * says nothing (the sender, writing the rest, finds a failure itself; a close after it wrote all loses nothing). */
static void connection_lost(const char* why, int failed, int reader) {
    static int lost;
    pthread_mutex_lock(&control_lock);
    if (lost || (reader && exiting)) {
        pthread_mutex_unlock(&control_lock);
        return;
    }
    lost = 1;
    handoff_disarm();
    uint64_t dropped = (uint64_t) failed;
    pthread_mutex_lock(&queue_lock);
    while (head != NULL) {
        message* next = head->next;
        dropped += head->type == handoff->buffer_type;
        free_message(head);
        head = next;
    }
    tail = NULL;
    queued_bytes = 0;
    sender_done = 1;
    pthread_cond_broadcast(&queue_cond);
    pthread_mutex_unlock(&queue_lock);
    pthread_mutex_unlock(&control_lock);
    dropped += atomic_load(&buffers_dropped); /* the window's full-queue drops: its end, which would count them, is lost too */
    say_untraced("runs untraced from here: its connection to flagtrace run is gone (%s) after %llu buffers sent; %llu buffers"
                 " dropped", why, (unsigned long long) atomic_load(&buffers_sent), (unsigned long long) dropped);
}

static void* send_loop(void* unused) {
    (void) unused;
    for (;;) {
        pthread_mutex_lock(&queue_lock);
        while (!sender_done && ((head == NULL && !closing) || opening)) {
            pthread_cond_wait(&queue_cond, &queue_lock);
        }
        message* m = head;
        if (sender_done || m == NULL) { /* the connection was lost (the reader found it), or closing and drained */
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
        int error = write_all(header, sizeof header);
        if (error == 0) {
            error = write_all(m->buffer != NULL ? m->buffer : m->payload, (size_t) m->length);
        }
        int buffer = m->type == handoff->buffer_type;
        if (error == 0 && buffer) {
            atomic_fetch_add(&buffers_sent, 1);
        }
        free_message(m);
        if (error != 0) { /* flagtrace is gone: disarm, drop what waits, say so, let the target run on */
            connection_lost(strerror(error), buffer, 0);
            return NULL;
        }
    }
}

void handoff_buffer_requested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *maxNumRecords = 0;
    pthread_mutex_lock(&pool_lock);
    *buffer = pool_count > 0 ? pool[--pool_count] : NULL;
    pthread_mutex_unlock(&pool_lock);
    if (*buffer == NULL) {
        *buffer = aligned_alloc(8, handoff_buffer_bytes);
    }
    *size = *buffer == NULL ? 0 : handoff_buffer_bytes;
}

/* 1 when the pointer was not named before (and now is). */
static int first_time(uintptr_t pointer) {
    size_t i = (size_t) ((pointer >> 3) * 0x9E3779B97F4A7C15ull >> 48) % NAME_SLOTS;
    for (size_t probe = 0; probe < NAME_SLOTS; probe++, i = (i + 1) % NAME_SLOTS) {
        uintptr_t seen = atomic_load_explicit(&named[i], memory_order_acquire);
        if (seen == 0 && atomic_compare_exchange_strong(&named[i], &seen, pointer)) {
            return 1;
        }
        if (seen == pointer) { /* named before, or by the thread that won the slot just now */
            return 0;
        }
    }
    return 0;
}

void handoff_name(const char* name) {
    if (name == NULL || (uintptr_t) name == last_named) {
        return;
    }
    last_named = (uintptr_t) name;
    if (!first_time((uintptr_t) name)) {
        return;
    }
    size_t n = strnlen(name, 1 << 16);
    uint8_t* payload = malloc(8 + n);
    if (payload == NULL) {
        atomic_fetch_add(&names_dropped, 1);
        return;
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

void handoff_devices(const char* json, size_t length) {
    message* m = new_message(MSG_DEVICES, json, length);
    if (m != NULL) {
        enqueue(m, 1);
    }
}

void handoff_buffer(uint8_t* buffer, size_t validSize, record_counts counts) {
    message* m = malloc(sizeof(message));
    if (m != NULL) {
        m->type = handoff->buffer_type;
        m->length = validSize;
        m->buffer = buffer;
    } else {
        free(buffer);
    }
    if (m != NULL && atomic_load(&armed)) {
        uint64_t seen = atomic_load(&window_device_end);
        while (counts.device_end > seen && !atomic_compare_exchange_weak(&window_device_end, &seen, counts.device_end)) {
        }
    }
    if (m == NULL || !enqueue(m, 0)) { /* the hand-off is full (or memory is): dropped, counted */
        atomic_fetch_add(&buffers_dropped, 1);
        atomic_fetch_add(&bytes_dropped, validSize);
        atomic_fetch_add(&records_dropped, counts.records);
        atomic_fetch_add(&kernels_dropped, counts.kernels);
        atomic_fetch_add(&memcpys_dropped, counts.memcpys);
        atomic_fetch_add(&memsets_dropped, counts.memsets);
    } else {
        atomic_fetch_add(&device_records_handed, counts.kernels + counts.memcpys + counts.memsets);
    }
}

void handoff_tick(void) {
    uint64_t now = handoff->now();
    message* t = new_message(MSG_TICK, &now, 8);
    if (t != NULL) {
        enqueue(t, 1);
    }
}

/* A clock anchor: the vendor's clock read between two monotonic readings, the tightest of 64 tries,
 * with the real-time clock read in the same gap. */
static void anchor(char* out, size_t n, const char* prefix) {
    uint64_t best = UINT64_MAX, mono = 0, real = 0, trace = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t m1 = handoff_clock_ns(CLOCK_MONOTONIC);
        uint64_t t = handoff->now();
        uint64_t r = handoff_clock_ns(CLOCK_REALTIME);
        uint64_t m2 = handoff_clock_ns(CLOCK_MONOTONIC);
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

/* The longest name an op or a mark hands over, in bytes (a longer one is cut there). */
enum { NAME_BOUND = 1 << 16 };

/* Ranges, per thread. */
#define DEPTH 128
typedef struct {
    uint64_t id;
    uint64_t tag;   /* the marker API's own id of the range (mstx), or 0 */
    uint64_t start;
    uint64_t end;   /* set when it ended while ranges inside it were still open */
    char* name;
    int capture;     /* it matched the capture range: its end may close the window */
    int pushed;      /* its id went to the vendor */
    unsigned window; /* the window armed at the push, or 0: only a range pushed and popped in one window is an op */
} range;
static __thread range ranges[DEPTH];
static void capture_range_opened(void);
static void capture_range_closed(void);
static void hand_op(range* r, uint64_t end);
static __thread int depth;
static __thread int overflow; /* pushes past DEPTH, popped without an op */

/* The range opened is the capture range: its name, in the capture's domain. */
static int capture_matches(const char* text, const char* domain) {
    if (capture_kind != CAPTURE_RANGE || text == NULL || strcmp(text, capture_name) != 0) {
        return 0;
    }
    if (capture_domain == NULL) {
        return domain == NULL;
    }
    return strcmp(capture_domain, "*") == 0 || (domain != NULL && strcmp(domain, capture_domain) == 0);
}

int handoff_range_push(const char* text, const char* domain, uint64_t tag) {
    if (depth >= DEPTH) {
        overflow++;
        atomic_fetch_add(&ops_dropped, 1);
        return depth + overflow - 1;
    }
    range* r = &ranges[depth];
    r->tag = tag;
    r->end = 0;
    r->capture = capture_matches(text, domain);
    if (r->capture) {
        capture_range_opened(); /* first: the range is in the window it opens, an op of it */
    }
    r->window = atomic_load(&armed) ? atomic_load(&window) : 0;
    if (r->window == 0) { /* disarmed: nothing to hand over at the pop */
        r->name = NULL;
        r->pushed = 0;
        return depth++;
    }
    r->id = atomic_fetch_add(&next_external_id, 1) + 1;
    r->name = strdup(text == NULL ? "" : text);
    r->pushed = handoff->push(r->id) == 0;
    r->start = handoff->now();
    return depth++;
}

/* Pops the innermost range, ending at `end`, and hands its op over; a capture range's end then closes the window
 * when it was the last one open. */
static void pop_one(uint64_t end) {
    range* r = &ranges[--depth];
    if (r->window != 0) {
        hand_op(r, end);
    }
    if (r->capture) {
        r->capture = 0;
        capture_range_closed();
    }
}

/* Pops the range's External id and hands its op over when it was pushed and popped in one window. */
static void hand_op(range* r, uint64_t end) {
    if (r->pushed && atomic_load(&yielded_to) == NULL) { /* after a yield the stack is the program's client's */
        handoff->pop();
    }
    if (atomic_load(&armed) && atomic_load(&window) == r->window) {
        size_t n = r->name == NULL ? 0 : strnlen(r->name, NAME_BOUND);
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
}

void handoff_mark(const char* text, const char* domain) {
    if (!atomic_load(&armed)) {
        return; /* outside every window: not in any trace, not a loss */
    }
    uint64_t now = handoff->now();
    size_t n = text == NULL ? 0 : strnlen(text, NAME_BOUND);
    size_t d = domain == NULL ? 0 : strnlen(domain, NAME_BOUND);
    message* m = malloc(sizeof(message) + 24 + d + n);
    if (m == NULL) {
        atomic_fetch_add(&marks_dropped, 1);
        return;
    }
    m->type = MSG_MARK;
    m->length = 24 + d + n;
    m->buffer = NULL;
    uint64_t head3[3] = {now, (uint64_t) syscall(SYS_gettid), (uint64_t) d};
    memcpy(m->payload, head3, 24);
    if (d > 0) {
        memcpy(m->payload + 24, domain, d);
    }
    if (n > 0) {
        memcpy(m->payload + 24 + d, text, n);
    }
    if (!enqueue(m, 0)) {
        atomic_fetch_add(&marks_dropped, 1);
    }
}

/* Pops the ranges that ended while others inside them were open, now innermost. */
static void pop_ended(void) {
    while (depth > 0 && ranges[depth - 1].end != 0) {
        pop_one(ranges[depth - 1].end);
    }
}

int handoff_range_pop(void) {
    if (overflow > 0) {
        overflow--;
        return depth + overflow;
    }
    if (depth == 0) {
        return -1;
    }
    pop_one(handoff->now());
    pop_ended();
    return depth;
}

int handoff_range_end(uint64_t tag) {
    uint64_t now = handoff->now();
    for (int i = depth - 1; i >= 0; i--) {
        if (ranges[i].tag == tag && ranges[i].end == 0) {
            if (i == depth - 1) {
                pop_one(now);
                pop_ended();
            } else {
                ranges[i].end = now; /* ended inside others still open: popped when they are */
            }
            return 0;
        }
    }
    if (overflow > 0) {
        overflow--; /* a range past DEPTH: its push was counted as dropped */
        return 0;
    }
    atomic_fetch_add(&ops_dropped, 1); /* started on another thread, or never seen */
    return -1;
}

static void set_opening(int value) {
    pthread_mutex_lock(&queue_lock);
    opening = value;
    pthread_cond_broadcast(&queue_cond);
    pthread_mutex_unlock(&queue_lock);
}

/* Opens a window (control_lock held): the window's message (its number, start and clock anchor) is queued
 * first, then the kinds are enabled, so everything recorded in it began after its start and follows its message
 * in the stream; the message is sent only once they are enabled (opening). */
static void arm_locked(void) {
    if (fd < 0 || exiting || atomic_load(&armed) || atomic_load(&yielded_to) != NULL) {
        return;
    }
    if (handoff->attach != NULL && handoff->attach() != 0) {
        return;
    }
    char text[1024];
    unsigned w = atomic_load(&window) + 1;
    int n = snprintf(text, sizeof text, "window=%u\nwindow_start_ns=%llu\n", w, (unsigned long long) handoff->now());
    if (capture_label != NULL) { /* the range that makes the window */
        n += snprintf(text + n, sizeof text - (size_t) n, "capture=%s\n", capture_label);
    }
    anchor(text + n, sizeof text - (size_t) n, "start");
    message* m = new_message(MSG_WINDOW, text, strlen(text));
    if (m == NULL) {
        return;
    }
    set_opening(1);
    if (!enqueue(m, 1)) {
        set_opening(0);
        return;
    }
    atomic_store(&window, w);
    atomic_store(&window_device_end, 0);
    atomic_store(&armed, 1);
    handoff->enable();
    set_opening(0);
}

/* Closes the window (control_lock held): disables the kinds, flushes (the buffers are handed over while
 * still armed), then queues the window's end: its end, a stop anchor and what it dropped (the counts start
 * again at 0 for the next window), and the vendor's own lines. The window ends now, or at the latest end of the
 * device work it handed over if that is later (work launched in the window that a clock a little ahead of the
 * vendor's timestamp, or a device still busy with it, ends after the close is the window's: nothing launched
 * after the disable is recorded). */
static void disarm_locked(void) {
    if (!atomic_load(&armed)) {
        return;
    }
    handoff->disable();
    handoff->flush();
    atomic_store(&armed, 0);
    char text[1536];
    uint64_t closed = handoff->now();
    uint64_t device_end = atomic_load(&window_device_end);
    int n = snprintf(text, sizeof text, "window_end_ns=%llu\n", (unsigned long long) (device_end > closed ? device_end : closed));
    anchor(text + n, sizeof text - (size_t) n, "stop");
    n = (int) strlen(text);
    if (atomic_load(&yielded_to) != NULL) {
        n += snprintf(text + n, sizeof text - (size_t) n, "yielded=%s\n", atomic_load(&yielded_to));
    }
    n += snprintf(text + n, sizeof text - (size_t) n,
                  "buffers_dropped=%llu\nbytes_dropped=%llu\nrecords_dropped=%llu\nkernels_dropped=%llu\nmemcpys_dropped=%llu\n"
                  "memsets_dropped=%llu\nops_dropped=%llu\nnames_dropped=%llu\nmarks_dropped=%llu\ndevice_records=%llu\n",
                  (unsigned long long) atomic_exchange(&buffers_dropped, 0), (unsigned long long) atomic_exchange(&bytes_dropped, 0),
                  (unsigned long long) atomic_exchange(&records_dropped, 0), (unsigned long long) atomic_exchange(&kernels_dropped, 0),
                  (unsigned long long) atomic_exchange(&memcpys_dropped, 0), (unsigned long long) atomic_exchange(&memsets_dropped, 0),
                  (unsigned long long) atomic_exchange(&ops_dropped, 0), (unsigned long long) atomic_exchange(&names_dropped, 0),
                  (unsigned long long) atomic_exchange(&marks_dropped, 0),
                  (unsigned long long) atomic_exchange(&device_records_handed, 0));
    if (handoff->end_lines != NULL && n < (int) sizeof text) {
        handoff->end_lines(text + n, sizeof text - (size_t) n);
    }
    message* end = new_message(MSG_END, text, strlen(text));
    if (end != NULL) {
        enqueue(end, 1);
    }
}

/* The capture range opens a window (control_lock held), unless it opened all it may. */
static void capture_arm_locked(void) {
    if (capture_windows_left == 0 || atomic_load(&armed)) {
        return;
    }
    arm_locked();
    if (atomic_load(&armed) && capture_windows_left > 0) {
        capture_windows_left--;
    }
}

/* A range matching the capture range opened, on any thread: the first one open opens a window. */
static void capture_range_opened(void) {
    pthread_mutex_lock(&control_lock);
    if (capture_open++ == 0) {
        capture_arm_locked();
    }
    pthread_mutex_unlock(&control_lock);
}

/* One closed: the last one open closes the window (if --duration has not closed it already). */
static void capture_range_closed(void) {
    pthread_mutex_lock(&control_lock);
    if (capture_open > 0 && --capture_open == 0) {
        disarm_locked();
    }
    pthread_mutex_unlock(&control_lock);
}

int handoff_capture_kind(void) {
    return capture_kind;
}

void handoff_capture_start(void) {
    pthread_mutex_lock(&control_lock);
    if (capture_kind == CAPTURE_PROFILER_API) {
        capture_arm_locked(); /* a start while armed: ignored, as the profiler API does */
    }
    pthread_mutex_unlock(&control_lock);
}

void handoff_capture_stop(void) {
    pthread_mutex_lock(&control_lock);
    if (capture_kind == CAPTURE_PROFILER_API) {
        disarm_locked();
    }
    pthread_mutex_unlock(&control_lock);
}

/* Reads FLAGTRACE_RUN_CAPTURE: MARKER:NAME for this vendor's marker API (a range of another vendor's marker
 * API, or the profiler API in a vendor without one, never arms the process), or cudaProfilerApi. */
static void read_capture(const handoff_vendor* vendor) {
    const char* spec = getenv("FLAGTRACE_RUN_CAPTURE");
    if (spec == NULL || spec[0] == '\0') {
        return;
    }
    const char* windows = getenv("FLAGTRACE_RUN_CAPTURE_WINDOWS");
    if (windows != NULL && atol(windows) > 0) {
        capture_windows_left = atol(windows);
    }
    capture_label = strdup(spec);
    for (char* c = capture_label; c != NULL && *c != '\0'; c++) {
        if (*c == '\n') {
            *c = ' ';
        }
    }
    size_t marker = strlen(vendor->marker);
    if (strncmp(spec, vendor->marker, marker) == 0 && spec[marker] == ':' && spec[marker + 1] != '\0') {
        capture_kind = CAPTURE_RANGE;
        capture_name = strdup(spec + marker + 1);
        char* at = capture_name == NULL ? NULL : strrchr(capture_name, '@');
        if (at != NULL && at != capture_name && at[1] != '\0') { /* NAME@DOMAIN, split at the last @ */
            *at = '\0';
            capture_domain = at + 1;
        }
    } else if (strcmp(spec, "cudaProfilerApi") == 0 && strcmp(vendor->name, "cupti") == 0) {
        capture_kind = CAPTURE_PROFILER_API;
    } else {
        capture_kind = CAPTURE_NONE; /* not this vendor's: the process stays disarmed */
    }
}

/* Reads flagtrace's arm/disarm messages (frames as the stream's, header and payload) from the socket and
 * applies them; no thread of the program waits on it. The socket closed or broken: flagtrace is gone,
 * disarm (the sender finds it too on its next write). */
static void* control_loop(void* unused) {
    (void) unused;
    const char* why = "closed by flagtrace run";
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
                why = r < 0 ? strerror(errno) : why;
                goto gone;
            }
            got += (size_t) r;
        }
        uint64_t length = (uint64_t) header[2] | (uint64_t) header[3] << 32;
        if (length > 4096) {
            why = "a message flagtrace run does not write";
            goto gone;
        }
        uint8_t skip[4096];
        for (uint64_t left = length; left > 0;) {
            ssize_t r = recv(fd, skip, (size_t) left, 0);
            if (r < 0 && errno == EINTR) {
                continue;
            }
            if (r <= 0) {
                why = r < 0 ? strerror(errno) : why;
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
    connection_lost(why, 0, 1);
    return NULL;
}

int handoff_yield(const char* call) {
    int did = YIELD_AGAIN;
    pthread_mutex_lock(&control_lock);
    if (atomic_load(&yielded_to) == NULL) {
        atomic_store(&yielded_to, call);
        did = atomic_load(&armed) ? YIELD_CLOSED_WINDOW : atomic_load(&window) == 0 ? YIELD_BEFORE_WINDOWS : YIELD_BETWEEN_WINDOWS;
        disarm_locked(); /* flushed while the buffers still come here; its end names the call */
    }
    pthread_mutex_unlock(&control_lock);
    return did;
}

void handoff_exit(void) {
    if (fd < 0) {
        return;
    }
    pthread_mutex_lock(&control_lock);
    if (exiting) {
        pthread_mutex_unlock(&control_lock);
        return;
    }
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
    uint64_t left = 0; /* buffers still waiting: the process exits without them */
    for (message* m = sender_done ? NULL : head; m != NULL; m = m->next) {
        left += m->type == handoff->buffer_type;
    }
    int stuck = !sender_done;
    pthread_mutex_unlock(&queue_lock);
    atomic_store(&armed, 0);
    if (stuck) {
        say_untraced("exits before flagtrace run took the rest of its stream in 10 s: %llu buffers not handed over (%llu sent)",
                     (unsigned long long) left, (unsigned long long) atomic_load(&buffers_sent));
    }
}

/* In a child forked after arming: no sender thread runs here, and the stream is the parent's. The child
 * is not traced (the vendor's runtime is not usable across fork either); its exit must not wait for a
 * sender. */
static void forked(void) {
    atomic_store(&armed, 0);
    if (fd >= 0) {
        close(fd);
        fd = -1;
    }
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

const char* handoff_socket(void) {
    const char* path = getenv("FLAGTRACE_RUN_SOCKET");
    if (path == NULL || path[0] == '\0') {
        return NULL; /* not under flagtrace run */
    }
    if (in_jvm()) {
        return NULL; /* a JVM: flagtrace run traces it through its agent (JAVA_TOOL_OPTIONS), in-process */
    }
    return path;
}

int handoff_configure(const handoff_vendor* vendor) {
    static int configured;
    if (!configured) {
        configured = 1;
        handoff = vendor;
        const char* start = getenv("FLAGTRACE_RUN_START");
        read_capture(vendor);
        later = (start != NULL && strcmp(start, "later") == 0) || capture_label != NULL;
    }
    return later;
}

int handoff_start(const handoff_vendor* vendor, const char* path) {
    handoff_configure(vendor);
    const char* limit = getenv("FLAGTRACE_RUN_QUEUE_BYTES");
    if (limit != NULL && strtoull(limit, NULL, 10) > 0) {
        queue_limit = strtoull(limit, NULL, 10);
    }
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address.sun_path) {
        say_untraced("runs untraced: FLAGTRACE_RUN_SOCKET is too long (%zu bytes, at most %zu)", strlen(path),
                     sizeof address.sun_path - 1);
        return -1;
    }
    strcpy(address.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr*) &address, sizeof address) != 0) {
        /* refused (flagtrace run has finished: a child that outlived CMD), or no socket there at all */
        say_untraced("runs untraced: cannot reach flagtrace run at %s (%s)", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            fd = -1;
        }
        return -1;
    }
    char hello[2048];
    /* Armed from the start, unless `flagtrace run --start-later` (or --delay) asked for a disarmed start:
     * then the hello has no window_start_ns, and each window opens at flagtrace's arm (MSG_WINDOW). */
    int n = later ? snprintf(hello, sizeof hello, "pid=%ld\nvendor=%s\n", (long) getpid(), vendor->name)
                  : snprintf(hello, sizeof hello, "pid=%ld\nvendor=%s\nwindow_start_ns=%llu\n", (long) getpid(),
                             vendor->name, (unsigned long long) vendor->now());
    const char* variables[] = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
                               "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
                               "PMI_RANK", "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
                               "ASCEND_RT_VISIBLE_DEVICES"};
    for (size_t i = 0; i < sizeof variables / sizeof variables[0] && n < (int) sizeof hello - 200; i++) {
        const char* value = getenv(variables[i]);
        if (value != NULL && strlen(value) < 32 && strchr(value, '\n') == NULL) {
            n += snprintf(hello + n, sizeof hello - (size_t) n, "env.%s=%s\n", variables[i], value);
        }
    }
    anchor(hello + n, sizeof hello - (size_t) n, "start");
    message* m = new_message(MSG_HELLO, hello, strlen(hello));
    int error = m == NULL ? ENOMEM : pthread_create(&sender, NULL, send_loop, NULL);
    if (error != 0) {
        say_untraced("runs untraced: cannot start its sender thread (%s)", strerror(error));
        free(m);
        close(fd);
        fd = -1;
        return -1;
    }
    enqueue(m, 1);
    return 0;
}

void handoff_begin(void) {
    pthread_mutex_lock(&control_lock);
    if (!later && atomic_load(&yielded_to) == NULL) { /* window 1 opened with the hello (unless a client took it since) */
        atomic_store(&window, 1);
        atomic_store(&armed, 1);
        handoff->enable();
    }
    pthread_mutex_unlock(&control_lock);
    pthread_t reader;
    if (pthread_create(&reader, NULL, control_loop, NULL) == 0) {
        pthread_detach(reader);
    }
    pthread_atfork(NULL, NULL, forked);
    atexit(handoff_exit);
}
