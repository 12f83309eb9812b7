package org.flagos.trace.vendors.cupti.workload;

/**
 * NVTX v3 calls from Java, for the kinds workload: the native side is
 * {@code benchmarks/device/java-nvtx/flagtrace_nvtx_jni.c}, built beside the device scripts (NVTX v3
 * is header-only and the CUDA presets bind none of it) and named by
 * {@code -Dflagtrace.workload.nvtxLibrary=PATH}. The calls reach CUPTI only when
 * {@code NVTX_INJECTION64_PATH} names the {@code libcupti.so} the tracer loaded (docs/vendors/cupti.md).
 */
final class Nvtx {
    /** The system property naming the JNI library. */
    static final String LIBRARY_PROPERTY = "flagtrace.workload.nvtxLibrary";

    private static final String UNAVAILABLE = load();

    private Nvtx() {
    }

    private static String load() {
        String path = System.getProperty(LIBRARY_PROPERTY);
        if (path == null || path.isBlank()) {
            return "-D" + LIBRARY_PROPERTY + " is not set (build it with benchmarks/device/java-nvtx/build.sh)";
        }
        try {
            System.load(path);
            return null;
        } catch (UnsatisfiedLinkError | SecurityException e) {
            return "could not load " + path + ": " + e.getMessage();
        }
    }

    /** Null when the calls below work; else why not. */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    static native int rangePush(String message);

    static native int rangePushEx(String message, int argb, int category, long payload);

    static native int rangePop();

    static native long rangeStart(String message);

    static native void rangeEnd(long id);

    static native void mark(String message);

    static native long domainCreate(String name);

    static native void domainDestroy(long domain);

    static native int domainRangePushEx(long domain, String message, int argb, int category, long payload);

    static native int domainRangePop(long domain);

    static native long domainRangeStartEx(long domain, String message, int argb, int category, long payload);

    static native void domainRangeEnd(long domain, long id);
}
