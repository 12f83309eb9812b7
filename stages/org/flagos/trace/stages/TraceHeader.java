package org.flagos.trace.stages;

import java.util.List;
import java.util.Map;
import org.flagos.trace.pipeline.DeviceProperties;

/**
 * What the trace's top level says besides its events.
 *
 * @param traceName        written as {@code traceName}
 * @param devices          written as {@code deviceProperties}
 * @param baseTimeNs       {@code baseTimeNanoseconds}; every ts is relative to it. Null: taken from
 *                         the first record, floored to the second
 * @param windowStartNs    start of the capture window, for the {@code Trace} span; null if unbounded
 * @param windowEndNs      end of the capture window
 * @param metadata         extra top-level keys; a value is written raw only when it is a JSON literal
 * @param processName      the host process's label
 */
public record TraceHeader(
        String traceName,
        List<DeviceProperties> devices,
        Long baseTimeNs,
        Long windowStartNs,
        Long windowEndNs,
        Map<String, String> metadata,
        String processName) {
}
