package org.flagos.trace.vendors.cupti;

import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.RecordLimits;

/**
 * CUPTI's times (NVIDIA, PPU, MCPTI): epoch ns for NVIDIA (the identity and an unbounded span),
 * mapped for a library that keeps its own clock. A zero start is CUPTI's "timestamp unknown": a
 * forced flush (at stop) returns records of work still in flight with zero timestamps (seen on the
 * H200 when launches race a session's stop), counted as incomplete, not invalid.
 */
final class CuptiRecordTimes extends CuptiTimes {
    CuptiRecordTimes() {
        super(Long.MIN_VALUE);
    }

    @Override
    boolean accept(long rawStart, long rawEnd, int device, String what, DecodeStats stats) {
        if (rawStart == 0) {
            stats.incomplete();
            return false;
        }
        startNs = toEpoch(rawStart);
        endNs = toEpoch(rawEnd);
        String why = RecordLimits.interval(startNs, endNs);
        if (why == null) {
            why = RecordLimits.device(device);
        }
        if (why == null && (startNs < plausibleFrom || endNs > plausibleTo)) {
            why = "times [" + startNs + ", " + endNs + "] lie outside the session's plausible span ["
                    + plausibleFrom + ", " + plausibleTo + "]";
        }
        if (why != null) {
            stats.invalid(what + " record: " + why);
            return false;
        }
        return true;
    }
}
