package org.flagos.trace.cli;

/**
 * {@code run --capture-range}'s value: {@code nvtx:NAME} (an NVTX push/pop range of that message, in a CUDA
 * process), {@code mstx:NAME} (an mstx range, in an Ascend process) or {@code cudaProfilerApi}
 * (cudaProfilerStart to cudaProfilerStop). The injected library reads it as given ({@code FLAGTRACE_RUN_CAPTURE}).
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
}
