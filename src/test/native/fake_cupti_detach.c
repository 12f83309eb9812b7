/* A CUPTI with only what a detach touches ("cupti" prefix): a callback subscriber for the runtime
 * domain, cuptiFinalize, and hooks that play API calls on many threads at once, to test
 * native/cpp/flagtrace_cupti_detach.h without a GPU. */
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>

typedef void (*requested_fn)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
typedef void (*completed_fn)(void* context, uint32_t streamId, uint8_t* buffer, size_t size, size_t validSize);
typedef void (*callback_fn)(void* userdata, int domain, uint32_t cbid, const void* cbdata);

static callback_fn subscribed;      /* read by the API threads, cleared by finalize and unsubscribe */
static int runtime_domain_enabled;
static int refuse_subscribe;
static int64_t subscribes, unsubscribes, finalizes, callbacks_after_finalize;

int cuptiActivityRegisterCallbacks(requested_fn requested, completed_fn completed) {
    (void) requested;
    (void) completed;
    return 0;
}

int cuptiActivityEnable(int kind) {
    (void) kind;
    return 0;
}

int cuptiActivityDisable(int kind) {
    (void) kind;
    return 0;
}

int cuptiActivityFlushAll(uint32_t flag) {
    (void) flag;
    return 0;
}

int cuptiSubscribe(void** subscriber, callback_fn callback, void* userdata) {
    (void) userdata;
    if (refuse_subscribe) {
        return 39; /* CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED's number */
    }
    *subscriber = (void*) &subscribed;
    __atomic_store_n(&subscribed, callback, __ATOMIC_RELEASE);
    __atomic_add_fetch(&subscribes, 1, __ATOMIC_RELAXED);
    return 0;
}

int cuptiEnableDomain(uint32_t enable, void* subscriber, int domain) {
    if (subscriber != (void*) &subscribed || domain != 2) {
        return 1;
    }
    __atomic_store_n(&runtime_domain_enabled, (int) enable, __ATOMIC_RELEASE);
    return 0;
}

int cuptiUnsubscribe(void* subscriber) {
    if (subscriber != (void*) &subscribed) {
        return 1;
    }
    __atomic_store_n(&subscribed, (callback_fn) NULL, __ATOMIC_RELEASE);
    __atomic_add_fetch(&unsubscribes, 1, __ATOMIC_RELAXED);
    return 0;
}

int cuptiFinalize(void) {
    __atomic_store_n(&subscribed, (callback_fn) NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&runtime_domain_enabled, 0, __ATOMIC_RELEASE);
    __atomic_add_fetch(&finalizes, 1, __ATOMIC_RELAXED);
    return 0;
}

/* One API callsite as CUPTI would report it: domain and site (0 enter, 1 exit). */
static void api_callsite(int domain, int site) {
    callback_fn cb = __atomic_load_n(&subscribed, __ATOMIC_ACQUIRE);
    if (cb != NULL && (domain != 2 || __atomic_load_n(&runtime_domain_enabled, __ATOMIC_ACQUIRE))) {
        if (__atomic_load_n(&finalizes, __ATOMIC_ACQUIRE) > 0) {
            __atomic_add_fetch(&callbacks_after_finalize, 1, __ATOMIC_RELAXED);
        }
        int data[4] = {site, 0, 0, 0}; /* CUpti_CallbackData begins with the callsite */
        cb(NULL, domain, 7, data);
    }
}

/* Hook: one callsite, code = domain << 8 | site. */
int64_t cuptiFakeCallsite(int64_t code) {
    api_callsite((int) (code >> 8), (int) (code & 0xff));
    return 0;
}

static void* storm_thread(void* arg) {
    (void) arg;
    for (int i = 0; i < 2000; i++) {
        api_callsite(2, 0);
        api_callsite(2, 1);
    }
    return NULL;
}

/* Hook: that many threads each make 2,000 runtime API calls (enter and exit) at once. */
int64_t cuptiFakeStorm(int64_t threads) {
    pthread_t t[64];
    int n = threads > 64 ? 64 : (int) threads;
    for (int i = 0; i < n; i++) {
        pthread_create(&t[i], NULL, storm_thread, NULL);
    }
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
    }
    return 0;
}

/* Hook: 0 subscribes, 1 unsubscribes, 2 finalizes, 3 callbacks seen after a finalize. */
int64_t cuptiFakeCount(int64_t what) {
    int64_t* counters[] = {&subscribes, &unsubscribes, &finalizes, &callbacks_after_finalize};
    return what >= 0 && what < 4 ? __atomic_load_n(counters[what], __ATOMIC_ACQUIRE) : -1;
}

/* Hook: counters to zero, no subscriber; refuse = 1 makes cuptiSubscribe fail. */
int64_t cuptiFakeReset(int64_t refuse) {
    subscribed = NULL;
    runtime_domain_enabled = 0;
    refuse_subscribe = (int) refuse;
    subscribes = unsubscribes = finalizes = callbacks_after_finalize = 0;
    return 0;
}
