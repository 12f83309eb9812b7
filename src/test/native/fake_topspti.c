/* A fake Enflame TOPSPTI (prefix "topspti"): the API subset flagtrace's TopsptiTracer calls, records
 * laid out as CUPTI's Kernel6 / Memcpy4 / Memset3 / API (the versions TOPSPTI is assumed to follow),
 * no external-correlation records and no push/pop (as TOPSPTI), a runtime-domain API callback
 * (topsptiSubscribe / EnableDomain) delivering CUpti_CallbackData-shaped data with the correlation
 * id at offset 64, a device clock of another epoch and rate, and scripted operations. */
#include "fake_cupti_older.h"

enum { TOPSPTI_SUCCESS = 0, TOPSPTI_ERROR_INVALID_PARAMETER = 1, TOPSPTI_ERROR_MULTIPLE_SUBSCRIBERS = 39 };
enum { DOMAIN_RUNTIME_API = 2, SITE_ENTER = 0, SITE_EXIT = 1 };

typedef void (*callback_fn)(void* userdata, int domain, uint32_t cbid, const void* cbdata);

/* CUpti_CallbackData's layout (natural alignment, 72 bytes). */
typedef struct {
    int32_t callbackSite;
    const char* functionName;
    const void* functionParams;
    void* functionReturnValue;
    const char* symbolName;
    void* context;
    uint32_t contextUid;
    uint64_t* correlationData;
    uint32_t correlationId;
} callback_data;
_Static_assert(sizeof(callback_data) == 72, "CUpti_CallbackData is 72 bytes");
_Static_assert(offsetof(callback_data, correlationId) == 64, "correlationId at 64");
_Static_assert(offsetof(callback_data, correlationData) == 56, "correlationData at 56");

static callback_fn subscriber_callback;
static void* subscriber_userdata;
static int subscribed;
static int subscriber_token;
static uint64_t enabled_domains;
static uint64_t callbacks_delivered;

int topsptiActivityRegisterCallbacks(fk_requested_fn requested, fk_completed_fn completed) {
    return fk_register(requested, completed);
}

int topsptiActivityEnable(int kind) {
    if (kind == FK_EXTERNAL_CORRELATION) { /* TOPSPTI has no such kind */
        return TOPSPTI_ERROR_INVALID_PARAMETER;
    }
    return fk_enable(kind);
}

int topsptiActivityDisable(int kind) {
    return fk_disable(kind);
}

int topsptiActivityFlushAll(uint32_t flag) {
    (void) flag;
    return fk_flush_all();
}

int topsptiGetTimestamp(uint64_t* timestamp) {
    return fk_timestamp(timestamp);
}

int topsptiActivityGetNumDroppedRecords(void* context, uint32_t streamId, size_t* dropped) {
    (void) context;
    (void) streamId;
    *dropped = 0;
    return TOPSPTI_SUCCESS;
}

int topsptiSubscribe(void** subscriber, callback_fn callback, void* userdata) {
    if (subscriber == NULL || callback == NULL) {
        return TOPSPTI_ERROR_INVALID_PARAMETER;
    }
    if (__atomic_load_n(&subscribed, __ATOMIC_ACQUIRE)) {
        return TOPSPTI_ERROR_MULTIPLE_SUBSCRIBERS;
    }
    subscriber_callback = callback;
    subscriber_userdata = userdata;
    *subscriber = &subscriber_token;
    __atomic_store_n(&subscribed, 1, __ATOMIC_RELEASE);
    return TOPSPTI_SUCCESS;
}

int topsptiEnableDomain(uint32_t enable, void* subscriber, int domain) {
    if (subscriber != &subscriber_token || domain <= 0 || domain >= 64) {
        return TOPSPTI_ERROR_INVALID_PARAMETER;
    }
    if (enable) {
        __atomic_or_fetch(&enabled_domains, 1ull << domain, __ATOMIC_RELAXED);
    } else {
        __atomic_and_fetch(&enabled_domains, ~(1ull << domain), __ATOMIC_RELAXED);
    }
    return TOPSPTI_SUCCESS;
}

int topsptiUnsubscribe(void* subscriber) {
    if (subscriber != &subscriber_token) {
        return TOPSPTI_ERROR_INVALID_PARAMETER;
    }
    __atomic_store_n(&enabled_domains, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&subscribed, 0, __ATOMIC_RELEASE);
    return TOPSPTI_SUCCESS;
}

static const char* name_of(uint32_t cbid) {
    switch (cbid) {
        case FK_CBID_LAUNCH: return "topsLaunchKernel";
        case FK_CBID_MEMCPY: return "topsMemcpyAsync";
        case FK_CBID_MEMSET: return "topsMemsetAsync";
        default: return NULL;
    }
}

int topsptiGetCallbackName(int domain, uint32_t cbid, const char** name) {
    if (name == NULL || domain != DOMAIN_RUNTIME_API || name_of(cbid) == NULL) {
        return TOPSPTI_ERROR_INVALID_PARAMETER;
    }
    *name = name_of(cbid);
    return TOPSPTI_SUCCESS;
}

/* The runtime-domain callback at API enter and exit, on the calling thread. */
static void enter(uint32_t cbid, uint32_t correlation, int site) {
    if (!__atomic_load_n(&subscribed, __ATOMIC_ACQUIRE)
            || !((__atomic_load_n(&enabled_domains, __ATOMIC_RELAXED) >> DOMAIN_RUNTIME_API) & 1u)) {
        return;
    }
    uint64_t correlation_data = 0;
    callback_data data;
    memset(&data, 0, sizeof data);
    data.callbackSite = site == 0 ? SITE_ENTER : SITE_EXIT;
    data.functionName = name_of(cbid);
    data.correlationData = &correlation_data;
    data.correlationId = correlation;
    subscriber_callback(subscriber_userdata, DOMAIN_RUNTIME_API, cbid, &data);
    __atomic_add_fetch(&callbacks_delivered, 1, __ATOMIC_RELAXED);
}

/* --- the scripted workload's entry points (int64_t f(int64_t)), called through the shim --- */

int64_t fakeTopsptiLaunchKernel(int64_t which) { return fk_operation(FK_OP_KERNEL, which, enter); }
int64_t fakeTopsptiMemcpy(int64_t bytes) { return fk_operation(FK_OP_MEMCPY, bytes, enter); }
int64_t fakeTopsptiMemset(int64_t bytes) { return fk_operation(FK_OP_MEMSET, bytes, enter); }
int64_t fakeTopsptiImplausible(int64_t unused) { (void) unused; return fk_implausible(); }
/* Forgets the log and the counts, the callbacks delivered too (a JVM may run the contract many times:
 * scripts/load-loop); with no session running. */
int64_t fakeTopsptiReset(int64_t unused) {
    (void) unused;
    fk_reset();
    __atomic_store_n(&callbacks_delivered, 0, __ATOMIC_RELAXED);
    return 0;
}
int64_t fakeTopsptiTruthCount(int64_t unused) { (void) unused; return fk_truth_count; }
/* Field (code % 6) of truth record (code / 6): kind, correlation, start epoch, end epoch, thread, cbid or argument. */
int64_t fakeTopsptiTruth(int64_t code) { return fk_truth_field(code); }
int64_t fakeTopsptiEmitted(int64_t kind) { return kind >= 0 && kind < 64 ? (int64_t) fk_emitted[kind] : -1; }
int64_t fakeTopsptiCallbacks(int64_t unused) { (void) unused; return (int64_t) callbacks_delivered; }
int64_t fakeTopsptiSampleBuffer(int64_t address) { return fk_sample_buffer((uint8_t*) (uintptr_t) address, 0); }
