package org.flagos.trace.report;

/**
 * What a complete ({@code "ph":"X"}) event of a torch-compatible trace is to the summary, decided by
 * its category alone, the way torch's profiler tells its own events apart. Both schemas are known:
 * today's ({@code cpu_op}, {@code cuda_runtime}, {@code kernel}, ...) and the 2021 one of torch
 * 1.8-1.9 and TensorBoard's samples ({@code Operator}, {@code Runtime}, {@code Kernel},
 * {@code Memcpy}, {@code Memset}).
 */
public enum EventClass {
    /** An op or annotation on a host thread ({@code cpu_op}, {@code user_annotation}, {@code python_function}). */
    HOST_OP,
    /** A runtime or driver API call ({@code cuda_runtime}, {@code cuda_driver}, {@code privateuse1_runtime}, ...). */
    RUNTIME,
    /** Profiler overhead the vendor reports ({@code overhead}, e.g. "Activity Buffer Request"). */
    OVERHEAD,
    /** Work on a device ({@code kernel}, {@code gpu_memcpy}, {@code gpu_memset}). */
    DEVICE,
    /** Anything else (trace spans, device-side annotations, ...): not a row. */
    OTHER;

    /** The process name torch's legacy exporter (torch built without kineto) gives host events, which carry no {@code cat}. */
    static final String LEGACY_HOST_PID = "CPU functions";

    /**
     * The class of a complete event of category {@code cat} on process {@code pid}: as {@link #of(String)},
     * and an event without a category on the legacy exporter's {@value #LEGACY_HOST_PID} process is an
     * op (torch 1.13 built without kineto, e.g. Debian's CPU build, writes its record_function ranges
     * and aten ops so).
     */
    public static EventClass of(String cat, String pid) {
        return cat == null && LEGACY_HOST_PID.equals(pid) ? HOST_OP : of(cat);
    }

    /** The class of events of category {@code cat} (null when the event has none). */
    public static EventClass of(String cat) {
        if (cat == null) {
            return OTHER;
        }
        switch (cat) {
            case "cpu_op":
            case "user_annotation":
            case "python_function":
            case "Operator":
                return HOST_OP;
            case "Runtime":
                return RUNTIME;
            case "overhead":
                return OVERHEAD;
            case "kernel":
            case "gpu_memcpy":
            case "gpu_memset":
            case "Kernel":
            case "Memcpy":
            case "Memset":
                return DEVICE;
            default:
                return cat.endsWith("_runtime") || cat.endsWith("_driver") ? RUNTIME : OTHER;
        }
    }
}
