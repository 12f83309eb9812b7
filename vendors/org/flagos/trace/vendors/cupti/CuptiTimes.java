package org.flagos.trace.vendors.cupti;

import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;

/**
 * The clock of the records being decoded: how a raw record time becomes epoch ns, the span a
 * plausible record lies in, and which records are dropped (counted) for their times. A vendor's
 * CUPTI-shaped decoder uses one of two policies: {@link CuptiRecordTimes} (NVIDIA's CUPTI and the
 * libraries that follow it to the letter) or {@link VendorClockTimes} (a vendor's own device clock).
 * {@link #accept} leaves the accepted record's epoch times in {@link #startNs()} and {@link #endNs()}.
 */
abstract class CuptiTimes {
    DeviceClockMapping mapping = DeviceClockMapping.IDENTITY;
    long plausibleFrom;
    long plausibleTo = Long.MAX_VALUE;
    long startNs;
    long endNs;

    CuptiTimes(long plausibleFrom) {
        this.plausibleFrom = plausibleFrom;
    }

    void set(DeviceClockMapping newMapping, long from, long to) {
        this.mapping = newMapping;
        this.plausibleFrom = from;
        this.plausibleTo = to;
    }

    /** {@code raw} in epoch ns; 0 (no time) stays 0. */
    final long toEpoch(long raw) {
        return raw == 0 ? 0 : mapping.toEpoch(raw);
    }

    /**
     * Maps a record's raw times; false (counted in {@code stats}) when the record is to be dropped.
     *
     * @param what the record's name in a message ({@code kernel})
     */
    abstract boolean accept(long rawStart, long rawEnd, int device, String what, DecodeStats stats);

    /** The last accepted record's start, epoch ns. */
    final long startNs() {
        return startNs;
    }

    /** The last accepted record's end, epoch ns. */
    final long endNs() {
        return endNs;
    }
}
