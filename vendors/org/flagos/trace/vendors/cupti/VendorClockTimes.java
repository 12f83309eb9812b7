package org.flagos.trace.vendors.cupti;

import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.RecordLimits;

/**
 * Times in a vendor's own device clock (MUPTI, TOPSPTI), read as unsigned: a record with a zero
 * time, ending before it starts, above 2^63, or mapping outside the session's plausible span is
 * dropped and counted as invalid, never published with a time no viewer can place.
 */
final class VendorClockTimes extends CuptiTimes {
    VendorClockTimes() {
        super(1);
    }

    @Override
    boolean accept(long start, long end, int device, String what, DecodeStats stats) {
        if (start == 0 || end == 0) {
            stats.invalid(what + " record without a timestamp (start " + Long.toUnsignedString(start) + ", end "
                    + Long.toUnsignedString(end) + ")");
            return false;
        }
        if (Long.compareUnsigned(end, start) < 0) {
            stats.invalid(what + " record ends before it starts (vendor clock " + Long.toUnsignedString(start) + ", "
                    + Long.toUnsignedString(end) + ")");
            return false;
        }
        if (start < 0 || end < 0) {
            stats.invalid(what + " record at vendor time " + Long.toUnsignedString(start < 0 ? start : end) + ", above 2^63");
            return false;
        }
        startNs = mapping.toEpoch(start);
        endNs = mapping.toEpoch(end);
        if (startNs < plausibleFrom || endNs > plausibleTo) {
            stats.invalid(what + " record at vendor time " + Long.toUnsignedString(start) + " maps outside the session (["
                    + startNs + ", " + endNs + "] not in [" + plausibleFrom + ", " + plausibleTo + "])");
            return false;
        }
        return RecordLimits.admit(startNs, endNs, device, what, stats);
    }
}
