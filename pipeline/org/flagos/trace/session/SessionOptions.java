package org.flagos.trace.session;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.pipeline.DeviceProperties;

/**
 * Where a session writes and what it adds.
 *
 * @param trace       the trace file (written whole at close, {@code .gz} compressed)
 * @param dumpBuffers when non-null, every raw vendor buffer is also saved there as a
 *                    {@code .fltrbuf} capture (with its kernel name table beside it) for replay
 * @param devices     device properties overriding what the tracer reports; empty: the tracer's
 * @param metadata    extra top-level trace keys
 */
public record SessionOptions(Path trace, Path dumpBuffers, List<DeviceProperties> devices, Map<String, String> metadata) {
    /** A session writing {@code trace} and nothing else. */
    public static SessionOptions to(Path trace) {
        return new SessionOptions(trace, null, List.of(), Map.of());
    }

    public SessionOptions withDumpBuffers(Path dump) {
        return new SessionOptions(trace, dump, devices, metadata);
    }
}
