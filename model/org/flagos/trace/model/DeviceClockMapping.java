package org.flagos.trace.model;

import java.util.Arrays;

/**
 * How a vendor's device timestamps become UNIX-epoch nanoseconds: a chain of linear pieces, each
 * from a knot {@code (vendorNs, epochNs)} at its own {@code rate} (epoch ns per vendor ns), a time
 * taking the piece of the last knot at or before it ({@code epochNs + (t - vendorNs) * rate}); a
 * time before the first knot extends the first piece back. The identity for vendors whose records
 * are already in epoch ns (CUPTI, MSPTI).
 *
 * <p>A live session of a vendor with its own clock learns the rate as it goes and starts a new
 * piece where the last one had got to ({@link #continuedAt}), rather than moving the whole line: a
 * line re-fitted per buffer moved records already placed, so two records a few tens of ns apart
 * on one stream, delivered in different buffers, could come out overlapping. The chain is
 * continuous and never decreasing, so the order and the gaps of a device's work survive. The
 * session saves the chain beside a capture ({@code NAME.clock.json}, and in a journal) so a
 * replay places every record exactly where the session did.
 */
public final class DeviceClockMapping {
    /** Vendor time is epoch time. */
    public static final DeviceClockMapping IDENTITY = new DeviceClockMapping(0, 0, 1.0);
    /** The most pieces a mapping holds; a session stops refining its rate there (about 100 KB). */
    public static final int MAX_KNOTS = 4096;

    private final long[] vendorNs;
    private final long[] epochNs;
    private final double[] rate;

    /**
     * One line through {@code (vendorNs, epochNs)}.
     *
     * @param vendorNs a vendor clock reading
     * @param epochNs  the epoch time of that reading
     * @param rate     epoch ns per vendor ns
     */
    public DeviceClockMapping(long vendorNs, long epochNs, double rate) {
        this(new long[] {vendorNs}, new long[] {epochNs}, new double[] {checkRate(rate)});
    }

    private DeviceClockMapping(long[] vendorNs, long[] epochNs, double[] rate) {
        this.vendorNs = vendorNs;
        this.epochNs = epochNs;
        this.rate = rate;
    }

    /**
     * The chain of the given knots, as a capture or journal saved it: vendor times strictly
     * increasing, every rate near 1.0, at most {@value #MAX_KNOTS} knots.
     *
     * @throws IllegalArgumentException what is wrong with the knots
     */
    public static DeviceClockMapping ofKnots(long[] vendorNs, long[] epochNs, double[] rate) {
        int n = vendorNs.length;
        if (n == 0 || epochNs.length != n || rate.length != n) {
            throw new IllegalArgumentException("a clock mapping needs at least one knot, each with vendor_ns, epoch_ns and rate");
        }
        if (n > MAX_KNOTS) {
            throw new IllegalArgumentException(n + " clock knots, more than the " + MAX_KNOTS + " a session writes");
        }
        for (int i = 0; i < n; i++) {
            checkRate(rate[i]);
            if (i > 0 && vendorNs[i] <= vendorNs[i - 1]) {
                throw new IllegalArgumentException("clock knots must be in increasing vendor time: knot " + i + " at "
                        + vendorNs[i] + " follows " + vendorNs[i - 1]);
            }
        }
        return new DeviceClockMapping(vendorNs.clone(), epochNs.clone(), rate.clone());
    }

    private static double checkRate(double rate) {
        if (!(rate > 0.5 && rate < 2.0)) { // no real clock is off by a factor of two; also rejects NaN
            throw new IllegalArgumentException("clock rate " + rate + " is not a clock's (expected near 1.0)");
        }
        return rate;
    }

    /**
     * This chain with a new piece from {@code atVendorNs} on at {@code newRate}, starting where
     * this one places {@code atVendorNs}, so nothing before it moves. A time at or before the last
     * knot, or a chain already at {@value #MAX_KNOTS} knots, gives this chain unchanged.
     */
    public DeviceClockMapping continuedAt(long atVendorNs, double newRate) {
        checkRate(newRate);
        int n = vendorNs.length;
        if (atVendorNs <= vendorNs[n - 1] || n >= MAX_KNOTS || newRate == rate[n - 1]) {
            return this;
        }
        long[] v = Arrays.copyOf(vendorNs, n + 1);
        long[] e = Arrays.copyOf(epochNs, n + 1);
        double[] r = Arrays.copyOf(rate, n + 1);
        v[n] = atVendorNs;
        e[n] = toEpoch(atVendorNs);
        r[n] = newRate;
        return new DeviceClockMapping(v, e, r);
    }

    /**
     * This chain with its last piece's rate replaced (the whole chain when it has one knot): for
     * a session whose first pieces are still being learned, before any record was placed.
     */
    public DeviceClockMapping withLastRate(double newRate) {
        int n = vendorNs.length;
        double[] r = rate.clone();
        r[n - 1] = checkRate(newRate);
        return new DeviceClockMapping(vendorNs, epochNs, r);
    }

    /**
     * This chain cut before {@code atVendorNs} with the knot {@code (atVendorNs, atEpochNs, newRate)}
     * after it: how a journal, which appends a mapping knot by knot, is read back (a knot at or
     * before the first one starts the chain anew).
     *
     * @throws IllegalArgumentException a rate that is no clock's, or a chain past {@value #MAX_KNOTS} knots
     */
    public DeviceClockMapping withKnot(long atVendorNs, long atEpochNs, double newRate) {
        checkRate(newRate);
        int keep = 0;
        while (keep < vendorNs.length && vendorNs[keep] < atVendorNs) {
            keep++;
        }
        if (keep >= MAX_KNOTS) {
            throw new IllegalArgumentException("more than " + MAX_KNOTS + " clock knots");
        }
        long[] v = Arrays.copyOf(vendorNs, keep + 1);
        long[] e = Arrays.copyOf(epochNs, keep + 1);
        double[] r = Arrays.copyOf(rate, keep + 1);
        v[keep] = atVendorNs;
        e[keep] = atEpochNs;
        r[keep] = newRate;
        return new DeviceClockMapping(v, e, r);
    }

    /** {@code vendorTime} as epoch ns. */
    public long toEpoch(long vendorTime) {
        if (this == IDENTITY) {
            return vendorTime;
        }
        int i = piece(vendorTime);
        if (vendorNs[i] == epochNs[i] && rate[i] == 1.0) {
            return vendorTime;
        }
        return epochNs[i] + Math.round((vendorTime - vendorNs[i]) * rate[i]);
    }

    private int piece(long vendorTime) {
        int n = vendorNs.length;
        if (n == 1 || vendorTime < vendorNs[1]) {
            return 0;
        }
        if (vendorTime >= vendorNs[n - 1]) {
            return n - 1;
        }
        int i = Arrays.binarySearch(vendorNs, vendorTime);
        return i >= 0 ? i : -i - 2;
    }

    /** True when this mapping changes nothing. */
    public boolean isIdentity() {
        return vendorNs.length == 1 && vendorNs[0] == epochNs[0] && rate[0] == 1.0;
    }

    /** The first knot's vendor time: the session start's sample. */
    public long vendorNs() {
        return vendorNs[0];
    }

    /** The first knot's epoch time: the session start's sample. */
    public long epochNs() {
        return epochNs[0];
    }

    /** The last piece's rate: the best estimate of the clock's rate the session made. */
    public double rate() {
        return rate[rate.length - 1];
    }

    /** How many knots (pieces) the chain has. */
    public int knots() {
        return vendorNs.length;
    }

    /** Knot {@code i}'s vendor time. */
    public long knotVendorNs(int i) {
        return vendorNs[i];
    }

    /** Knot {@code i}'s epoch time. */
    public long knotEpochNs(int i) {
        return epochNs[i];
    }

    /** Knot {@code i}'s rate: epoch ns per vendor ns from it to the next knot. */
    public double knotRate(int i) {
        return rate[i];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeviceClockMapping m && Arrays.equals(vendorNs, m.vendorNs) && Arrays.equals(epochNs, m.epochNs)
                && Arrays.equals(rate, m.rate);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(vendorNs) + Arrays.hashCode(epochNs)) + Arrays.hashCode(rate);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("DeviceClockMapping[");
        for (int i = 0; i < vendorNs.length; i++) {
            if (i == 8 && vendorNs.length > 10) {
                s.append(", ... ").append(vendorNs.length - 9).append(" more");
                i = vendorNs.length - 1;
            }
            s.append(i == 0 ? "" : ", ").append("vendorNs=").append(vendorNs[i]).append(" epochNs=").append(epochNs[i])
                    .append(" rate=").append(rate[i]);
        }
        return s.append(']').toString();
    }
}
