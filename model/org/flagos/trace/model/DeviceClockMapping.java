package org.flagos.trace.model;

/**
 * How a vendor's device timestamps become UNIX-epoch nanoseconds: {@code epochNs + (t - vendorNs)
 * * rate}. The identity for vendors whose records are already in epoch ns (CUPTI, MSPTI). A live
 * session of a vendor with its own clock (MUPTI, TOPSPTI, PPU) saves its mapping beside a capture
 * ({@code NAME.clock.json}) so a replay places the records where the session did.
 *
 * @param vendorNs a vendor clock reading
 * @param epochNs the epoch time of that reading
 * @param rate epoch ns per vendor ns
 */
public record DeviceClockMapping(long vendorNs, long epochNs, double rate) {
    /** Vendor time is epoch time. */
    public static final DeviceClockMapping IDENTITY = new DeviceClockMapping(0, 0, 1.0);

    public DeviceClockMapping {
        if (!(rate > 0.5 && rate < 2.0)) { // no real clock is off by a factor of two; also rejects NaN
            throw new IllegalArgumentException("clock rate " + rate + " is not a clock's (expected near 1.0)");
        }
    }

    /** {@code vendorTime} as epoch ns. */
    public long toEpoch(long vendorTime) {
        if (this == IDENTITY || (vendorNs == epochNs && rate == 1.0)) {
            return vendorTime;
        }
        return epochNs + Math.round((vendorTime - vendorNs) * rate);
    }

    /** True when this mapping changes nothing. */
    public boolean isIdentity() {
        return vendorNs == epochNs && rate == 1.0;
    }
}
