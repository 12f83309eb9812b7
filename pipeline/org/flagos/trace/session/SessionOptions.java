package org.flagos.trace.session;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.model.DeviceProperties;

/**
 * Where a session writes and what it adds.
 *
 * @param trace       the trace file (written whole at close, {@code .gz} compressed; Perfetto's protobuf
 *                    trace when it ends in {@code .pftrace}, torch-compatible JSON otherwise)
 * @param dumpBuffers when non-null, every raw vendor buffer is also saved there as a
 *                    {@code .fltrbuf} capture (with its kernel name table beside it) for replay
 * @param devices     device properties overriding what the tracer reports; empty: the tracer's
 * @param metadata    extra top-level trace keys
 * @param journal     when non-null, buffers, names, ops and the session's start and stop are also
 *                    journaled there as they arrive (a Chronicle Queue; with a retention bound, a
 *                    flight recorder), for {@code flagtrace replay DIR} at any time, even after a kill
 */
public record SessionOptions(Path trace, Path dumpBuffers, List<DeviceProperties> devices, Map<String, String> metadata,
                             JournalOptions journal) {
    public SessionOptions(Path trace, Path dumpBuffers, List<DeviceProperties> devices, Map<String, String> metadata) {
        this(trace, dumpBuffers, devices, metadata, null);
    }

    /** A session writing {@code trace} and nothing else. */
    public static SessionOptions to(Path trace) {
        return new SessionOptions(trace, null, List.of(), Map.of());
    }

    public SessionOptions withDumpBuffers(Path dump) {
        return new SessionOptions(trace, dump, devices, metadata, journal);
    }

    /** Journals the session into the new or empty directory {@code dir}, keeping everything. */
    public SessionOptions withJournal(Path dir) {
        return withJournal(JournalOptions.to(dir));
    }

    /** Journals the session as {@code options} say (a flight recorder when they bound retention). */
    public SessionOptions withJournal(JournalOptions options) {
        return new SessionOptions(trace, dumpBuffers, devices, metadata, options);
    }
}
