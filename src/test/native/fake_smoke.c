/* The smallest CUPTI-shaped library ("smoke" prefix): proves the native path (dlopen, symbol
 * binding by prefix, buffer callbacks into Java, push/pop with an out-parameter). */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

typedef void (*requested_fn)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
typedef void (*completed_fn)(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize);

static requested_fn on_requested;
static completed_fn on_completed;
static int enabled_kinds;
static uint64_t stack[16];
static int depth;
static int refuse_registration;

/* Workload hook: makes registration fail as when another subscriber owns the library. */
int64_t smokeRefuseRegistration(int64_t refuse) {
    refuse_registration = (int) refuse;
    return 0;
}

int smokeActivityRegisterCallbacks(requested_fn requested, completed_fn completed) {
    if (refuse_registration) {
        return 39; /* CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED's number */
    }
    on_requested = requested;
    on_completed = completed;
    return 0;
}

int smokeActivityEnable(int kind) {
    enabled_kinds |= 1 << kind;
    return 0;
}

int smokeActivityDisable(int kind) {
    enabled_kinds &= ~(1 << kind);
    return 0;
}

/* Emits one buffer: the enabled-kind mask, then the pushed ids, as little-endian u64s. */
int smokeActivityFlushAll(uint32_t flag) {
    (void) flag;
    uint8_t* buffer;
    size_t size, max;
    on_requested(&buffer, &size, &max);
    if (buffer == NULL || size < 8 * 17) {
        return 1;
    }
    uint64_t mask = (uint64_t) enabled_kinds;
    memcpy(buffer, &mask, 8);
    memcpy(buffer + 8, stack, 8 * (size_t) depth);
    on_completed(NULL, 0, buffer, size, 8 + 8 * (size_t) depth);
    return 0;
}

int smokeActivityPushExternalCorrelationId(int kind, uint64_t id) {
    (void) kind;
    if (depth == 16) {
        return 1;
    }
    stack[depth++] = id;
    return 0;
}

int smokeActivityPopExternalCorrelationId(int kind, uint64_t* last) {
    (void) kind;
    if (last == NULL || depth == 0) {
        return 1;
    }
    *last = stack[--depth];
    return 0;
}

int smokeGetTimestamp(uint64_t* now) {
    *now = 1234567890123ULL;
    return 0;
}
