package org.flagos.trace.report;

import java.io.IOException;
import java.io.InputStream;

/** Placeholder: flagtrace's {@code .pftrace} (Perfetto protobuf) as summary input. */
final class PerfettoTraceReader {
    private final TraceFile.Reader sink;

    PerfettoTraceReader(TraceFile.Reader sink) {
        this.sink = sink;
    }

    static boolean looksLike(InputStream in) throws IOException {
        return false;
    }

    void read(InputStream in) throws IOException {
        throw new TraceFormatException(sink.path + " is not a trace");
    }
}
