package org.flagos.trace.cli;

/**
 * {@code run --capture-range}'s value: {@code nvtx:NAME} (an NVTX push/pop range of that message, in a CUDA
 * process), {@code mstx:NAME} (an mstx range, in an Ascend process) or {@code cudaProfilerApi}
 * (cudaProfilerStart to cudaProfilerStop). The injected library reads it as given ({@code FLAGTRACE_RUN_CAPTURE}).
 * {@code --capture-range-end}'s value says how many windows the range opens in each process: {@code repeat} (every
 * one, the default), {@code stop} (the first only, nsys's default) or {@code repeat:N} (the first N); the library
 * reads the count from {@code FLAGTRACE_RUN_CAPTURE_WINDOWS}.
 */
final class CaptureRange {
    static final String PROFILER_API = "cudaProfilerApi";

    private CaptureRange() {
    }

    /** The value, checked; null for none. */
    static String checked(String value) {
        if (value == null) {
            return null;
        }
        if (value.equals(PROFILER_API)) {
            return value;
        }
        int colon = value.indexOf(':');
        String marker = colon < 0 ? value : value.substring(0, colon);
        if ((marker.equals("nvtx") || marker.equals("mstx")) && colon > 0) {
            String name = value.substring(colon + 1);
            if (name.isEmpty() || name.indexOf('\n') >= 0 || name.indexOf('\0') >= 0 || name.length() > 1024) {
                throw new UsageException("--capture-range " + marker + ":NAME wants a range name of one line (1 to 1024"
                        + " characters), got '" + name.replace("\n", "\\n") + "'");
            }
            return value;
        }
        throw new UsageException("--capture-range wants nvtx:NAME, mstx:NAME or cudaProfilerApi, got '"
                + value.replace("\n", "\\n") + "'");
    }

    /** The most windows a process opens for {@code end} ({@code --capture-range-end}), 0 for no limit; checked. */
    static int windows(String end, String capture) {
        if (end == null) {
            return 0;
        }
        if (capture == null) {
            throw new UsageException("--capture-range-end goes with --capture-range");
        }
        if (end.equals("repeat")) {
            return 0;
        }
        if (end.equals("stop")) {
            return 1;
        }
        if (end.matches("repeat:[0-9]{1,7}") && Integer.parseInt(end.substring(7)) > 0) {
            return Integer.parseInt(end.substring(7));
        }
        throw new UsageException("--capture-range-end wants repeat, stop or repeat:N (N from 1 to 9999999), got '"
                + end.replace("\n", "\\n") + "'");
    }
}
