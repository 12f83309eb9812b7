package org.flagos.trace.journal;

import java.util.List;
import java.util.Map;
import org.flagos.trace.model.DeviceProperties;

/**
 * What a journal's {@code session} document says about the capture it holds.
 *
 * @param traceName the name the trace is given
 * @param source    where the records come from (a live process, or the replayed capture's path)
 * @param startNs   the capture window's start (epoch ns), or {@link JournalSchema#NO_TIME}
 * @param devices   device properties, for the trace header and occupancy
 * @param metadata  extra top-level trace keys
 * @param pid       the recording process, or -1
 * @param live      true for a live session: buffers are stamped with the wall time they arrived at,
 *                  which {@code --last} measures back from when the journal has no stop marker
 */
public record JournalSession(String traceName, String source, long startNs, List<DeviceProperties> devices,
                             Map<String, String> metadata, long pid, boolean live) {
    /**
     * The metadata key under which a live session journals who captured and its start clock anchor
     * ({@link org.flagos.trace.ingest.ProcessFactsFile} text); a replay takes it out of the metadata.
     */
    public static final String PROCESS_KEY = "flagtrace_process";

    public JournalSession {
        devices = List.copyOf(devices);
        metadata = Map.copyOf(metadata);
    }
}
