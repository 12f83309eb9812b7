package org.flagos.trace.vendors.family;

import java.util.function.LongSupplier;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.RealtimeClock;

/**
 * Maps a vendor's device clock to UNIX-epoch nanoseconds: a (vendor, realtime) pair sampled at
 * session start and another taken again before each buffer is decoded and at stop. A buffer's
 * records all happened before its completion, so the latest pair brackets them with the start
 * pair, and the rate between the two corrects a clock that runs at a different rate from the
 * host's (PPU's) as well as one with another epoch (MUPTI's, TOPSPTI's).
 *
 * <p>Each new rate starts a new piece of the mapping at the previous sample ({@link
 * DeviceClockMapping#continuedAt}): every record decoded so far lay before that sample, so none
 * moves, and a record is placed by the rate measured over the span it lies in. Re-fitting the
 * whole line per buffer instead moved later buffers' records by the samples' noise (tens of ns,
 * microseconds on a loaded machine) against earlier ones, enough to make two kernels 50 ns apart
 * on one stream overlap when a buffer boundary fell between them (a viewer then binds an arrow to
 * neither). A rate that moved by less than {@value #RATE_STEP}
 * (1 ns per second) starts no piece.
 *
 * <p>Timestamps that cannot be a record of this session (zero, before the session by more than
 * {@link #SLACK_NS}, after the latest sample by more than it, or ending before they start) are
 * implausible: the decoder drops and counts them ({@link ClockedDecoder}).
 */
public final class VendorClock {
    /** How far outside the session a record may lie and still be believed. */
    public static final long SLACK_NS = 1_000_000_000L;
    /**
     * Below this span the rate is not measured (1.0 is kept): with the pairs' usual error of tens
     * of ns it is known to 1e-3 here, and a piece this short misplaces nothing by more than that.
     */
    private static final long MIN_RATE_SPAN_NS = 100_000L;
    /** The least change of rate that starts a new piece. */
    static final double RATE_STEP = 1e-9;
    private static final int PAIRS = 25;

    private final LongSupplier vendorNow;
    private final boolean identity;
    private final long vendorStart;
    private final long realStart;
    private long vendorLatest;
    private long realLatest;
    private double rate = 1.0;
    private DeviceClockMapping mapping;

    private VendorClock(LongSupplier vendorNow, boolean identity) {
        this.vendorNow = vendorNow;
        this.identity = identity;
        long[] pair = pair();
        vendorStart = vendorLatest = pair[0];
        realStart = realLatest = pair[1];
        mapping = identity ? DeviceClockMapping.IDENTITY : new DeviceClockMapping(vendorStart, realStart, 1.0);
    }

    /** A clock sampled now against {@code vendorNow}; identity when the vendor already reports epoch ns. */
    public static VendorClock start(LongSupplier vendorNow, boolean vendorIsEpoch) {
        return new VendorClock(vendorNow, vendorIsEpoch);
    }

    /**
     * The tightest of {@value #PAIRS} (vendor, realtime) pairs: realtime read on both sides of the
     * vendor read. A preempted read widens its bracket by microseconds on a loaded machine; with 25
     * tries one is almost always undisturbed, for about 2 µs per buffer.
     */
    private long[] pair() {
        long bestWidth = Long.MAX_VALUE;
        long[] best = new long[2];
        for (int i = 0; i < PAIRS; i++) {
            long before = RealtimeClock.nowNs();
            long vendor = vendorNow.getAsLong();
            long after = RealtimeClock.nowNs();
            if (after - before < bestWidth) {
                bestWidth = after - before;
                best[0] = vendor;
                best[1] = before + (after - before) / 2;
            }
        }
        return best;
    }

    /**
     * Takes a fresh pair and returns the mapping it gives: call before decoding a buffer and at stop.
     * A rate outside what a clock can be (a vendor clock that jumped) keeps the previous one.
     */
    public synchronized DeviceClockMapping resample() {
        long[] pair = pair();
        long previousVendor = vendorLatest;
        vendorLatest = pair[0];
        realLatest = pair[1];
        long vendorSpan = vendorLatest - vendorStart;
        long realSpan = realLatest - realStart;
        double measured = vendorSpan >= MIN_RATE_SPAN_NS && realSpan > 0 ? (double) realSpan / vendorSpan : 1.0;
        if (measured > 0.9 && measured < 1.1) {
            rate = measured;
        }
        if (!identity && Math.abs(rate - mapping.rate()) >= RATE_STEP) {
            // The first sample after start: nothing was placed yet, so the first piece takes the rate.
            mapping = previousVendor <= mapping.knotVendorNs(mapping.knots() - 1)
                    ? mapping.withLastRate(rate) : mapping.continuedAt(previousVendor, rate);
        }
        return mapping;
    }

    /** The mapping as last sampled. */
    public synchronized DeviceClockMapping mapping() {
        return mapping;
    }

    /** Earliest epoch ns a record of this session can start at. */
    public long plausibleFromNs() {
        return realStart - SLACK_NS;
    }

    /** Latest epoch ns a record decoded now can end at. */
    public synchronized long plausibleToNs() {
        return realLatest + SLACK_NS;
    }
}
