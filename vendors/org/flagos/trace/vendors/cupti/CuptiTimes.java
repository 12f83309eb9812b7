package org.flagos.trace.vendors.cupti;

import org.flagos.trace.model.DeviceClockMapping;

/**
 * The clock of the records being decoded: how a raw record time becomes epoch ns, and the span a
 * plausible record lies in. The identity and an unbounded span for NVIDIA's CUPTI (epoch ns);
 * a vendor whose CUPTI-compatible library keeps its own clock (PPU) sets both before each buffer.
 */
final class CuptiTimes {
    private DeviceClockMapping mapping = DeviceClockMapping.IDENTITY;
    private long plausibleFrom = Long.MIN_VALUE;
    private long plausibleTo = Long.MAX_VALUE;

    void set(DeviceClockMapping mapping, long plausibleFrom, long plausibleTo) {
        this.mapping = mapping;
        this.plausibleFrom = plausibleFrom;
        this.plausibleTo = plausibleTo;
    }

    /** {@code raw} in epoch ns; 0 (CUPTI's "unknown") stays 0. */
    long toEpoch(long raw) {
        return raw == 0 ? 0 : mapping.toEpoch(raw);
    }

    /** Null when {@code [startNs, endNs]} (epoch ns) lies in the plausible span, else why not. */
    String implausible(long startNs, long endNs) {
        if (startNs < plausibleFrom || endNs > plausibleTo) {
            return "times [" + startNs + ", " + endNs + "] lie outside the session's plausible span ["
                    + plausibleFrom + ", " + plausibleTo + "]";
        }
        return null;
    }
}
