package org.flagos.trace.stages;

import java.util.List;
import java.util.Map;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.ProcessIdentity;

/**
 * What the trace's top level says besides its events. The capture window (for the {@code Trace}
 * span) comes from the window stage, since a live session knows its end only when it stops.
 *
 * @param traceName        written as {@code traceName}
 * @param devices          written as {@code deviceProperties}
 * @param baseTimeNs       {@code baseTimeNanoseconds}; every ts is relative to it. Null: taken from
 *                         the first record, floored to the second
 * @param metadata         extra top-level keys; a value is written raw only when it is a JSON literal
 * @param processName      the host process's label
 * @param processId        the host process's pid for host rows when no API record says it; -1 unknown
 * @param identity         who captured, written as torch's {@code distributedInfo} (when a rank is
 *                         known) and {@code flagtrace_process}; null: neither is written
 */
public record TraceHeader(
        String traceName,
        List<DeviceProperties> devices,
        Long baseTimeNs,
        Map<String, String> metadata,
        String processName,
        long processId,
        ProcessIdentity identity) {
    /** Keys the trace writes itself: metadata may not replace them. */
    public static final List<String> RESERVED_KEYS = List.of("schemaVersion", "deviceProperties", "traceName",
            "displayTimeUnit", "baseTimeNanoseconds", "traceEvents", "flagtrace",
            "distributedInfo", "flagtrace_process");

    /** A header without an identity: nothing says who captured. */
    public TraceHeader(String traceName, List<DeviceProperties> devices, Long baseTimeNs, Map<String, String> metadata,
                       String processName, long processId) {
        this(traceName, devices, baseTimeNs, metadata, processName, processId, null);
    }

    public TraceHeader {
        for (String key : metadata.keySet()) {
            if (RESERVED_KEYS.contains(key)) {
                throw new IllegalArgumentException("metadata cannot set the reserved key " + key);
            }
            if (org.flagos.trace.model.JsonText.hasLoneSurrogate(key)) {
                // valid in a JSON string value, but strict parsers (Jackson among them) refuse it in a key
                throw new IllegalArgumentException("metadata key '" + key + "' holds a lone UTF-16 surrogate");
            }
        }
    }
}
