/* A fake MUSA MUPTI (prefix "mupti"): the API subset flagtrace's MuptiTracer calls, records laid out
 * as CUPTI's Kernel6 / Memcpy4 / Memset3 / API / ExternalCorrelation (the versions MUPTI is assumed
 * to follow), external-correlation records from its own per-thread push/pop stack (pop refuses a
 * NULL out-parameter without unwinding, as CANN's MSPTI did), a device clock of another epoch and
 * rate, and scripted operations the test calls through the shim. */
#include "fake_cupti_older.h"

enum { MUPTI_SUCCESS = 0, MUPTI_ERROR_INVALID_PARAMETER = 1, MUPTI_ERROR_QUEUE_EMPTY = 2 };
enum { STACK_MAX = 64 };

static __thread uint64_t stack_ids[STACK_MAX];
static __thread uint32_t stack_kinds[STACK_MAX];
static __thread int stack_depth;

int muptiActivityRegisterCallbacks(fk_requested_fn requested, fk_completed_fn completed) {
    return fk_register(requested, completed);
}

int muptiActivityEnable(int kind) {
    return fk_enable(kind);
}

int muptiActivityDisable(int kind) {
    return fk_disable(kind);
}

int muptiActivityFlushAll(uint32_t flag) {
    (void) flag;
    return fk_flush_all();
}

int muptiGetTimestamp(uint64_t* timestamp) {
    return fk_timestamp(timestamp);
}

int muptiActivityGetNumDroppedRecords(void* context, uint32_t streamId, size_t* dropped) {
    (void) context;
    (void) streamId;
    *dropped = 0;
    return MUPTI_SUCCESS;
}

int muptiActivityPushExternalCorrelationId(int kind, uint64_t id) {
    if (stack_depth == STACK_MAX) {
        return MUPTI_ERROR_INVALID_PARAMETER;
    }
    stack_kinds[stack_depth] = (uint32_t) kind;
    stack_ids[stack_depth++] = id;
    return MUPTI_SUCCESS;
}

int muptiActivityPopExternalCorrelationId(int kind, uint64_t* lastId) {
    (void) kind;
    if (lastId == NULL) {
        return MUPTI_ERROR_INVALID_PARAMETER; /* the stack is left as it was */
    }
    if (stack_depth == 0) {
        return MUPTI_ERROR_QUEUE_EMPTY;
    }
    *lastId = stack_ids[--stack_depth];
    return MUPTI_SUCCESS;
}

int muptiGetCallbackName(int domain, uint32_t cbid, const char** name) {
    if (name == NULL || domain != 2) {
        return MUPTI_ERROR_INVALID_PARAMETER;
    }
    switch (cbid) {
        case FK_CBID_LAUNCH: *name = "musaLaunchKernel"; return MUPTI_SUCCESS;
        case FK_CBID_MEMCPY: *name = "musaMemcpyAsync"; return MUPTI_SUCCESS;
        case FK_CBID_MEMSET: *name = "musaMemsetAsync"; return MUPTI_SUCCESS;
        default: return MUPTI_ERROR_INVALID_PARAMETER;
    }
}

/* MUPTI writes one external-correlation record per call made with a non-empty stack, at API enter. */
static void enter(uint32_t cbid, uint32_t correlation, int site) {
    (void) cbid;
    if (site != 0 || stack_depth == 0 || !fk_is_enabled(FK_EXTERNAL_CORRELATION)) {
        return;
    }
    uint8_t record[FK_EXTERNAL_SIZE];
    fk_write_external(record, stack_kinds[stack_depth - 1], stack_ids[stack_depth - 1], correlation);
    fk_append(FK_EXTERNAL_CORRELATION, record, FK_EXTERNAL_SIZE);
}

/* --- the scripted workload's entry points (int64_t f(int64_t)), called through the shim --- */

int64_t fakeMuptiLaunchKernel(int64_t which) { return fk_operation(FK_OP_KERNEL, which, enter); }
int64_t fakeMuptiMemcpy(int64_t bytes) { return fk_operation(FK_OP_MEMCPY, bytes, enter); }
int64_t fakeMuptiMemset(int64_t bytes) { return fk_operation(FK_OP_MEMSET, bytes, enter); }
int64_t fakeMuptiImplausible(int64_t unused) { (void) unused; return fk_implausible(); }
int64_t fakeMuptiReset(int64_t unused) { (void) unused; fk_reset(); return 0; }
int64_t fakeMuptiTruthCount(int64_t unused) { (void) unused; return fk_truth_count; }
/* Field (code % 6) of truth record (code / 6): kind, correlation, start epoch, end epoch, thread, cbid or argument. */
int64_t fakeMuptiTruth(int64_t code) { return fk_truth_field(code); }
int64_t fakeMuptiEmitted(int64_t kind) { return kind >= 0 && kind < 64 ? (int64_t) fk_emitted[kind] : -1; }
int64_t fakeMuptiStackDepth(int64_t unused) { (void) unused; return stack_depth; }
/* Pops with a NULL out-parameter: MUPTI's refusal (the stack keeps its depth). */
int64_t fakeMuptiPopNull(int64_t kind) { return muptiActivityPopExternalCorrelationId((int) kind, NULL); }
int64_t fakeMuptiSampleBuffer(int64_t address) { return fk_sample_buffer((uint8_t*) (uintptr_t) address, 1); }
