// NVTX v3 for Java: the JNI side of org.flagos.trace.vendors.cupti.workload.Nvtx, so the kinds
// workload annotates from Java as cuDF's Java bindings do (their NvtxRange calls NVTX from native
// code too). NVTX v3 is header-only; the CUDA presets bind none of it, and the build machine of the
// project has no CUDA headers, so this library is built beside the device scripts (build.sh) and
// handed to the JVM with -Dflagtrace.workload.nvtxLibrary=PATH.
//
// NVTX hands its calls to the injection library NVTX_INJECTION64_PATH names, looked up once at the
// process's first NVTX call; the device scripts set it to the libcupti.so.13 the tracer loads.
#include <jni.h>
#include <stdint.h>
#include <string.h>
#include <nvtx3/nvToolsExt.h>

// Each message is released as soon as its call returns: CUPTI copies each distinct message it is
// handed (docs/vendors/cupti.md, "Names"). A NULL from GetStringUTFChars leaves an OutOfMemoryError
// pending for the JVM to throw; the call is then not made.
#define FN(ret, name) JNIEXPORT ret JNICALL Java_org_flagos_trace_vendors_cupti_workload_Nvtx_##name
#define UTF(m) (*env)->GetStringUTFChars(env, m, NULL)
#define RELEASE(m, s) (*env)->ReleaseStringUTFChars(env, m, s)

static nvtxEventAttributes_t attributes(const char* message, jint argb, jint category, jlong payload) {
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = (uint32_t) category;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = (uint32_t) argb;
    a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    a.payload.ullValue = (uint64_t) payload;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    return a;
}

static nvtxDomainHandle_t domainOf(jlong d) {
    return (nvtxDomainHandle_t) (intptr_t) d;
}

FN(jint, rangePush)(JNIEnv* env, jclass c, jstring m) {
    const char* s = UTF(m);
    if (s == NULL) return -1;
    jint depth = nvtxRangePushA(s);
    RELEASE(m, s);
    return depth;
}

FN(jint, rangePushEx)(JNIEnv* env, jclass c, jstring m, jint argb, jint category, jlong payload) {
    const char* s = UTF(m);
    if (s == NULL) return -1;
    nvtxEventAttributes_t a = attributes(s, argb, category, payload);
    jint depth = nvtxRangePushEx(&a);
    RELEASE(m, s);
    return depth;
}

FN(jint, rangePop)(JNIEnv* env, jclass c) {
    return nvtxRangePop();
}

FN(jlong, rangeStart)(JNIEnv* env, jclass c, jstring m) {
    const char* s = UTF(m);
    if (s == NULL) return 0;
    jlong id = (jlong) nvtxRangeStartA(s);
    RELEASE(m, s);
    return id;
}

FN(void, rangeEnd)(JNIEnv* env, jclass c, jlong id) {
    nvtxRangeEnd((nvtxRangeId_t) id);
}

FN(void, mark)(JNIEnv* env, jclass c, jstring m) {
    const char* s = UTF(m);
    if (s == NULL) return;
    nvtxMarkA(s);
    RELEASE(m, s);
}

FN(jlong, domainCreate)(JNIEnv* env, jclass c, jstring m) {
    const char* s = UTF(m);
    if (s == NULL) return 0;
    jlong domain = (jlong) (intptr_t) nvtxDomainCreateA(s);
    RELEASE(m, s);
    return domain;
}

FN(void, domainDestroy)(JNIEnv* env, jclass c, jlong d) {
    nvtxDomainDestroy(domainOf(d));
}

FN(jint, domainRangePushEx)(JNIEnv* env, jclass c, jlong d, jstring m, jint argb, jint category, jlong payload) {
    const char* s = UTF(m);
    if (s == NULL) return -1;
    nvtxEventAttributes_t a = attributes(s, argb, category, payload);
    jint depth = nvtxDomainRangePushEx(domainOf(d), &a);
    RELEASE(m, s);
    return depth;
}

FN(jint, domainRangePop)(JNIEnv* env, jclass c, jlong d) {
    return nvtxDomainRangePop(domainOf(d));
}

FN(jlong, domainRangeStartEx)(JNIEnv* env, jclass c, jlong d, jstring m, jint argb, jint category, jlong payload) {
    const char* s = UTF(m);
    if (s == NULL) return 0;
    nvtxEventAttributes_t a = attributes(s, argb, category, payload);
    jlong id = (jlong) nvtxDomainRangeStartEx(domainOf(d), &a);
    RELEASE(m, s);
    return id;
}

FN(void, domainRangeEnd)(JNIEnv* env, jclass c, jlong d, jlong id) {
    nvtxDomainRangeEnd(domainOf(d), (nvtxRangeId_t) id);
}
