package org.flagos.trace.stages;

import java.util.List;
import java.util.Map;
import org.flagos.trace.pipeline.DeviceProperties;

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
 */
public record TraceHeader(
        String traceName,
        List<DeviceProperties> devices,
        Long baseTimeNs,
        Map<String, String> metadata,
        String processName,
        long processId) {
}
