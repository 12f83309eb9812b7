package org.flagos.trace.vendors.family;

import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.DeviceClockMapping;

/**
 * A decoder of a vendor whose records carry its own device clock: before each buffer it is told
 * the mapping to epoch ns and the span a plausible record lies in. A record outside that span, with
 * a zero time or ending before it starts, is dropped and counted ({@code DecodeStats.invalid}),
 * never published with a time no viewer can place.
 */
public interface ClockedDecoder extends ActivityBufferDecoder {
    /** The mapping and plausible span for the buffers decoded next. */
    void clock(DeviceClockMapping mapping, long plausibleFromNs, long plausibleToNs);
}
