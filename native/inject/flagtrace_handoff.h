/* The vendor-neutral half of flagtrace's injected libraries (flagtrace_inject.c for CUPTI,
 * flagtrace_mspti.c for MSPTI), compiled into each from flagtrace_handoff.c: the connection to
 * `flagtrace run` (FLAGTRACE_RUN_SOCKET), the bounded queue and the one sender thread that writes it,
 * the wire format's frames (docs/run.md), the clock anchors, the names handed over once per pointer,
 * the range stack that turns a marker API's ranges into host ops (push/pop of an External id), the
 * armed windows (armed from the start, or on demand: FLAGTRACE_RUN_START=later, flagtrace's arm and
 * disarm read by a small reader thread from the same socket), each window's end message with every
 * count of what was dropped, and the fork rule. A vendor file fills `handoff_vendor` and calls these;
 * it keeps its vendor's symbols to itself. */
#ifndef FLAGTRACE_HANDOFF_H
#define FLAGTRACE_HANDOFF_H
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

/* Message types: a vendor's buffer is exactly a .fltrbuf frame of that vendor's id (1 CUPTI, 2 MSPTI);
 * the rest are flagtrace's. */
enum {
    MSG_HELLO = 0x10001,  /* text: key=value lines (pid, vendor, rank variables, start anchor, window start) */
    MSG_NAME = 0x10002,   /* u64 pointer, then the name's bytes */
    MSG_OP = 0x10003,     /* u64 External id, u64 start, u64 end, u64 thread, then the name's bytes */
    MSG_TICK = 0x10004,   /* u64 trace-clock time at a buffer's completion, sent before it */
    MSG_END = 0x10005,    /* text: key=value lines (window end, stop anchor, counts) */
    MSG_DEVICES = 0x10006, /* text: the devices' properties as a JSON array (NAME.devices.json) */
    MSG_WINDOW = 0x10007,  /* text: a window opens (window, window_start_ns, start anchor): the answer to an arm */
    MSG_MARK = 0x10008,    /* u64 time, u64 thread, u64 domain's length, the domain's bytes, then the message's bytes */
    CONTROL_ARM = 0x20001,   /* from flagtrace: open a window (ignored while armed) */
    CONTROL_DISARM = 0x20002 /* from flagtrace: close the window: disable, flush, hand over, MSG_END */
};

/* What the vendor file provides. */
typedef struct {
    const char* name;             /* "cupti", "mspti": the hello's vendor line, and messages */
    uint32_t buffer_type;         /* its .fltrbuf vendor id */
    uint64_t (*now)(void);        /* the vendor's clock, the one its records use */
    void (*enable)(void);         /* enables the vendor's kinds: a window opens */
    void (*disable)(void);        /* disables them: a window closes, or flagtrace is gone */
    void (*flush)(void);          /* completes every buffer (forced), each through the buffer callback */
    void (*end_lines)(char* out, size_t n); /* the vendor's own key=value lines of a window's end; may be NULL */
    int (*push)(uint64_t id);     /* pushes an External id (CUSTOM0); 0 on success */
    void (*pop)(void);            /* pops it */
    const char* marker;           /* its marker API's name in a capture range ("nvtx", "mstx": nvtx:NAME) */
    /* Called at each arm before the window opens (NULL: nothing to do): a vendor that starts disarmed without touching
     * its library attaches to it here, once; non-zero refuses the arm. */
    int (*attach)(void);
} handoff_vendor;

/* The capture range `flagtrace run --capture-range` asked for (FLAGTRACE_RUN_CAPTURE, read by handoff_start):
 * none; a marker range of the vendor's by name (MARKER:NAME: a window while one such range is open on any
 * thread, one window per outermost range); or the profiler API (cudaProfilerApi: a window from a start to a
 * stop). With one, the process starts disarmed and arms itself; each window's message names the range. */
enum { CAPTURE_NONE = 0, CAPTURE_RANGE = 1, CAPTURE_PROFILER_API = 2 };

/* Counts of one buffer's records, for the drop counts, and the latest end of its device records (kernels, copies,
 * sets; 0: none), which a window's end covers. */
typedef struct {
    uint64_t records, kernels, memcpys, memsets;
    uint64_t device_end;
} record_counts;

extern const handoff_vendor* handoff;
extern size_t handoff_buffer_bytes;

uint64_t handoff_clock_ns(int clock_id);
/* Reads how this process starts for `vendor` (FLAGTRACE_RUN_START, FLAGTRACE_RUN_CAPTURE; once, handoff_start
 * reads it too): 1 when it starts disarmed (--start-later, --delay, a capture range), 0 when armed from its start. */
int handoff_configure(const handoff_vendor* vendor);
/* The socket to reach, or NULL when this process is not to be traced (no socket, or a JVM). */
const char* handoff_socket(void);
/* Connects, sends the hello and starts the sender; 0 when connected. Call after the vendor library is
 * loaded (its clock reads the anchor), then register the vendor's callbacks, then handoff_begin. */
int handoff_start(const handoff_vendor* vendor, const char* socket_path);
/* Opens window 1 (enables the vendor's kinds) unless the process starts disarmed, starts the reader of
 * flagtrace's arm/disarm, and registers the exit (closes the window open, then the stream). */
void handoff_begin(void);
int handoff_armed(void);
/* The vendor's buffer callbacks' halves: a buffer of handoff_buffer_bytes, and a completed buffer
 * (handed over unchanged, or dropped and counted; freed either way). */
void handoff_buffer_requested(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
void handoff_buffer(uint8_t* buffer, size_t validSize, record_counts counts);
/* Sent before a completed buffer: every record of it ended before now, so a stream cut right after
 * this buffer (kill -9) still has a window end that holds all of it. */
void handoff_tick(void);
/* The capture range this process follows (CAPTURE_*), once handoff_start ran. */
int handoff_capture_kind(void);
/* The profiler API's start (a window opens, unless one is open) and stop (the window closes): called on the
 * thread that made the call, before it returns, so the calls after a start and none after a stop are in it. */
void handoff_capture_start(void);
void handoff_capture_stop(void);
/* The program's own client of the vendor's tracing library takes it (`call`: the call that did, a literal): the
 * window open closes now, its end saying so, no later window arms, and the External ids still pushed are left to
 * the vendor's stack. Once; later calls change nothing. What it did: */
enum { YIELD_AGAIN = -1,          /* nothing: it yielded before */
       YIELD_BEFORE_WINDOWS = 0,  /* no window had opened yet: none will (no end message says so) */
       YIELD_BETWEEN_WINDOWS = 2, /* no window was open: none will open again */
       YIELD_CLOSED_WINDOW = 1 }; /* closed the window open: its end names the call */
int handoff_yield(const char* call);
/* Stops handing over and calls the vendor's disarm (once). */
void handoff_disarm(void);
/* Hands over the string at `pointer` the first time it is seen. */
void handoff_name(const char* pointer);
/* The devices' properties, a JSON array, once. */
void handoff_devices(const char* json, size_t length);
/* A range opened on this thread: a fresh External id pushed; `tag` names it for handoff_range_end (0: none);
 * `domain` is the name of the marker API's domain it is in, NULL for the default one.
 * The range's level (0 outermost), as NVTX's push returns it. */
int handoff_range_push(const char* name, const char* domain, uint64_t tag);
/* The innermost range of this thread ends: popped, its op handed over. -1 when none was open. */
int handoff_range_pop(void);
/* The range tagged `tag` ends on this thread: popped with those inside it that already ended; one
 * ended inside others still open is popped when they are. -1 when this thread has no such range
 * (ended on another thread: counted with the ops dropped). */
int handoff_range_end(uint64_t tag);
/* A mark (an instant, no External id) on this thread, now: its message and the name of its domain (NULL: the default
 * one); handed over only in a window, a message longer than a range's name cut as a range's is. Never waits: one that
 * does not fit the hand-off is dropped and counted (marks_dropped). */
void handoff_mark(const char* text, const char* domain);
/* At exit (handoff_begin registers it; a vendor with an exit step of its own may call it first): closes
 * the window still armed (disable, flush, its end), then the stream; waits (10 s at most) until
 * everything queued is sent. */
void handoff_exit(void);
#endif
