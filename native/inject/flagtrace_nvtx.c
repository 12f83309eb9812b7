/* NVTX's side of flagtrace's injected library: NVTX (v3, header-only, as torch, cuBLAS, NCCL and
 * RAPIDS carry it) loads the library named by NVTX_INJECTION64_PATH at the process's first NVTX call
 * and calls its InitializeInjectionNvtx2, which fills NVTX's function tables. Every range form a
 * program can use becomes a host op through the hand-off (flagtrace_handoff.c), so the device work
 * launched inside it is attributed to it:
 *  - push/pop ranges: nvtxRangePushA, nvtxRangePushW, nvtxRangePushEx, nvtxRangePop (CORE module) and
 *    nvtxDomainRangePushEx, nvtxDomainRangePop (CORE2: NVTX's C++ nvtx3::scoped_range pushes this way);
 *  - start/end ranges: nvtxRangeStartA/W/Ex, nvtxRangeEnd and their domain forms, by the id the start
 *    returns; a range ended on another thread than its start is counted with the ops dropped, and one
 *    ended while ranges started inside it are open is popped when they are (handoff_range_end's rule);
 *  - the message of an event's attributes: ASCII, wide (converted to UTF-8) or a registered string
 *    (nvtxDomainRegisterStringA/W, which this library implements: the handle is its own copy of the text).
 * Ranges of every domain share one stack per thread: domains name ranges, they do not reorder them. A domain
 * (nvtxDomainCreateA/W, implemented here) is a handle to its name, which a capture range NAME@DOMAIN matches.
 * Marks (nvtxMarkA/W/Ex, nvtxDomainMarkEx) become instants of the thread that made them (handoff_mark: no External
 * id, not an op), with their domain's name. Categories, resources and thread names are not routed (NVTX keeps its
 * no-op for them). */
#define _GNU_SOURCE
#include "flagtrace_handoff.h"
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

typedef void (*NvtxFunctionPointer)(void);
typedef NvtxFunctionPointer** NvtxFunctionTable;
typedef struct {
    size_t struct_size;
    int (*GetModuleFunctionTable)(int module, NvtxFunctionTable* out_table, unsigned int* out_size);
} NvtxExportTableCallbacks;

/* NVTX's export table and callback ids (nvToolsExt's NvtxCallbackModule, NvtxCallbackIdCore, NvtxCallbackIdCore2). */
enum { NVTX_ETID_CALLBACKS = 1, NVTX_CB_MODULE_CORE = 1, NVTX_CB_MODULE_CORE2 = 5 };
enum { CORE_MarkEx = 1, CORE_MarkA = 2, CORE_MarkW = 3, CORE_RangeStartEx = 4, CORE_RangeStartA = 5, CORE_RangeStartW = 6, CORE_RangeEnd = 7, CORE_RangePushEx = 8,
       CORE_RangePushA = 9, CORE_RangePushW = 10, CORE_RangePop = 11 };
enum { CORE2_DomainMarkEx = 1, CORE2_DomainRangeStartEx = 2, CORE2_DomainRangeEnd = 3, CORE2_DomainRangePushEx = 4, CORE2_DomainRangePop = 5,
       CORE2_DomainRegisterStringA = 10, CORE2_DomainRegisterStringW = 11, CORE2_DomainCreateA = 12, CORE2_DomainCreateW = 13 };

/* nvtxEventAttributes_t (version 2 and 3 alike): its size at byte 2, the message's type at 32, its value at 40. */
enum { ATTR_SIZE_OFFSET = 2, ATTR_MESSAGE_TYPE_OFFSET = 32, ATTR_MESSAGE_OFFSET = 40, ATTR_MIN_SIZE = 48 };
enum { MESSAGE_ASCII = 1, MESSAGE_UNICODE = 2, MESSAGE_REGISTERED = 3 };
/* The longest name kept from a wide string, in UTF-8 bytes; a longer one is cut at a whole character. */
enum { WIDE_NAME_BYTES = 1024 };

/* A wide string as UTF-8 in `out` (WIDE_NAME_BYTES): code points past Unicode or surrogates become U+FFFD. */
static const char* utf8_of(const wchar_t* text, char* out) {
    size_t at = 0;
    for (const wchar_t* c = text; c != NULL && *c != 0; c++) {
        uint32_t u = (uint32_t) *c;
        if (u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF)) {
            u = 0xFFFD;
        }
        int n = u < 0x80 ? 1 : u < 0x800 ? 2 : u < 0x10000 ? 3 : 4;
        if (at + (size_t) n >= WIDE_NAME_BYTES) {
            break;
        }
        if (n == 1) {
            out[at++] = (char) u;
        } else {
            for (int k = n - 1; k >= 1; k--) {
                out[at + (size_t) k] = (char) (0x80 | (u & 0x3F));
                u >>= 6;
            }
            out[at] = (char) ((n == 2 ? 0xC0 : n == 3 ? 0xE0 : 0xF0) | u);
            at += (size_t) n;
        }
    }
    out[at] = '\0';
    return out;
}

/* The name an event's attributes give (empty when they give none). */
static const char* message_of(const void* attributes, char* wide) {
    if (attributes == NULL) {
        return "";
    }
    uint16_t size;
    int32_t type;
    const void* value;
    memcpy(&size, (const char*) attributes + ATTR_SIZE_OFFSET, sizeof size);
    if (size < ATTR_MIN_SIZE) {
        return "";
    }
    memcpy(&type, (const char*) attributes + ATTR_MESSAGE_TYPE_OFFSET, sizeof type);
    memcpy(&value, (const char*) attributes + ATTR_MESSAGE_OFFSET, sizeof value);
    if (value == NULL) {
        return "";
    }
    switch (type) {
    case MESSAGE_ASCII:
    case MESSAGE_REGISTERED: /* a handle of register_string_*: its own copy of the text */
        return value;
    case MESSAGE_UNICODE:
        return utf8_of(value, wide);
    default:
        return "";
    }
}

/* A domain this library created: its name, behind a mark that tells it from a handle it did not make. */
static const uint64_t DOMAIN_MARK = 0x6e767478646f6d31;
typedef struct {
    uint64_t mark;
    char name[];
} domain;

static const void* create_domain(const char* name) {
    size_t n = name == NULL ? 0 : strnlen(name, WIDE_NAME_BYTES - 1);
    domain* d = malloc(sizeof(domain) + n + 1);
    if (d != NULL) {
        d->mark = DOMAIN_MARK;
        memcpy(d->name, name == NULL ? "" : name, n);
        d->name[n] = '\0';
    }
    return d; /* lives as long as the process: a range may still name it after nvtxDomainDestroy */
}

static const void* create_domain_a(const char* name) {
    return create_domain(name);
}

static const void* create_domain_w(const wchar_t* name) {
    char wide[WIDE_NAME_BYTES];
    return create_domain(utf8_of(name, wide));
}

/* The domain's name; NULL for the default domain (a NULL handle) or a handle of unknown make. */
static const char* domain_name(const void* handle) {
    const domain* d = handle;
    return d != NULL && d->mark == DOMAIN_MARK ? d->name : NULL;
}

static int push_in(const void* domain, const void* attributes) {
    char wide[WIDE_NAME_BYTES];
    return handoff_range_push(message_of(attributes, wide), domain_name(domain), 0);
}

static int push_a(const char* message) {
    return handoff_range_push(message, NULL, 0);
}

static int push_w(const wchar_t* message) {
    char wide[WIDE_NAME_BYTES];
    return handoff_range_push(utf8_of(message, wide), NULL, 0);
}

static int push_ex(const void* attributes) {
    return push_in(NULL, attributes);
}

static int pop(void) {
    return handoff_range_pop();
}

/* A start/end range's id: what the start returns and the end names (never 0, which NVTX's no-op returns). */
static _Atomic uint64_t next_range_id = 1;

static uint64_t start_named(const char* name, const char* domain) {
    uint64_t id = atomic_fetch_add(&next_range_id, 1);
    handoff_range_push(name, domain, id);
    return id;
}

static uint64_t start_a(const char* message) {
    return start_named(message, NULL);
}

static uint64_t start_w(const wchar_t* message) {
    char wide[WIDE_NAME_BYTES];
    return start_named(utf8_of(message, wide), NULL);
}

static uint64_t start_ex(const void* attributes) {
    char wide[WIDE_NAME_BYTES];
    return start_named(message_of(attributes, wide), NULL);
}

static void end(uint64_t id) {
    handoff_range_end(id);
}

static int domain_push_ex(const void* domain, const void* attributes) {
    return push_in(domain, attributes);
}

static int domain_pop(const void* domain) {
    (void) domain;
    return pop();
}

static uint64_t domain_start_ex(const void* domain, const void* attributes) {
    char wide[WIDE_NAME_BYTES];
    return start_named(message_of(attributes, wide), domain_name(domain));
}

static void domain_end(const void* domain, uint64_t id) {
    (void) domain;
    end(id);
}

static void mark_a(const char* message) {
    handoff_mark(message, NULL);
}

static void mark_w(const wchar_t* message) {
    char wide[WIDE_NAME_BYTES];
    handoff_mark(utf8_of(message, wide), NULL);
}

static void mark_ex(const void* attributes) {
    char wide[WIDE_NAME_BYTES];
    handoff_mark(message_of(attributes, wide), NULL);
}

static void domain_mark_ex(const void* domain, const void* attributes) {
    char wide[WIDE_NAME_BYTES];
    handoff_mark(message_of(attributes, wide), domain_name(domain));
}

/* A registered string lives as long as the process (NVTX has no call to unregister one). */
static const void* register_string_a(const void* domain, const char* text) {
    (void) domain;
    return text == NULL ? NULL : strdup(text);
}

static const void* register_string_w(const void* domain, const wchar_t* text) {
    (void) domain;
    char wide[WIDE_NAME_BYTES];
    return text == NULL ? NULL : strdup(utf8_of(text, wide));
}

/* Writes `function` into slot `id` of a module's table of `size` slots, when the table has it. */
static void install(NvtxFunctionTable table, unsigned int size, unsigned int id, NvtxFunctionPointer function) {
    if (id < size && table[id] != NULL) {
        *table[id] = function;
    }
}

EXPORT int InitializeInjectionNvtx2(const void* (*getExportTable)(uint32_t)) {
    const NvtxExportTableCallbacks* callbacks = getExportTable == NULL ? NULL : getExportTable(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable core = NULL;
    unsigned int size = 0;
    if (callbacks == NULL || callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &size) == 0
            || core == NULL || size <= CORE_RangePop) {
        return 0;
    }
    install(core, size, CORE_RangePushA, (NvtxFunctionPointer) push_a);
    install(core, size, CORE_RangePushW, (NvtxFunctionPointer) push_w);
    install(core, size, CORE_RangePushEx, (NvtxFunctionPointer) push_ex);
    install(core, size, CORE_RangePop, (NvtxFunctionPointer) pop);
    install(core, size, CORE_RangeStartA, (NvtxFunctionPointer) start_a);
    install(core, size, CORE_RangeStartW, (NvtxFunctionPointer) start_w);
    install(core, size, CORE_RangeStartEx, (NvtxFunctionPointer) start_ex);
    install(core, size, CORE_RangeEnd, (NvtxFunctionPointer) end);
    install(core, size, CORE_MarkA, (NvtxFunctionPointer) mark_a);
    install(core, size, CORE_MarkW, (NvtxFunctionPointer) mark_w);
    install(core, size, CORE_MarkEx, (NvtxFunctionPointer) mark_ex);
    NvtxFunctionTable core2 = NULL;
    unsigned int size2 = 0;
    if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &size2) != 0 && core2 != NULL) {
        install(core2, size2, CORE2_DomainMarkEx, (NvtxFunctionPointer) domain_mark_ex);
        install(core2, size2, CORE2_DomainRangePushEx, (NvtxFunctionPointer) domain_push_ex);
        install(core2, size2, CORE2_DomainRangePop, (NvtxFunctionPointer) domain_pop);
        install(core2, size2, CORE2_DomainRangeStartEx, (NvtxFunctionPointer) domain_start_ex);
        install(core2, size2, CORE2_DomainRangeEnd, (NvtxFunctionPointer) domain_end);
        install(core2, size2, CORE2_DomainRegisterStringA, (NvtxFunctionPointer) register_string_a);
        install(core2, size2, CORE2_DomainRegisterStringW, (NvtxFunctionPointer) register_string_w);
        install(core2, size2, CORE2_DomainCreateA, (NvtxFunctionPointer) create_domain_a);
        install(core2, size2, CORE2_DomainCreateW, (NvtxFunctionPointer) create_domain_w);
    }
    return 1;
}
