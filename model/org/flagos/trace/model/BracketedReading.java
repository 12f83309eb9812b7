package org.flagos.trace.model;

import java.util.function.LongSupplier;

/**
 * The tightest of several readings of one clock taken between two readings of another: the inner
 * reading is paired with the outer pair's midpoint, off by at most half their gap. Clock anchors
 * (real time inside monotonic) and the host clock's calibration (vendor inside host) both pair this way.
 *
 * @param midNs   the midpoint of the two outer readings around the tightest inner one
 * @param innerNs that inner reading
 * @param gapNs   the outer readings' gap ({@link Long#MAX_VALUE} if no try saw the outer clock go forward)
 */
public record BracketedReading(long midNs, long innerNs, long gapNs) {
    /** Reads {@code inner} between two readings of {@code outer}, {@code tries} times, keeping the tightest. */
    public static BracketedReading tightest(LongSupplier outer, LongSupplier inner, int tries) {
        long bestGap = Long.MAX_VALUE;
        long bestInner = 0;
        long bestMid = 0;
        for (int i = 0; i < tries; i++) {
            long before = outer.getAsLong();
            long value = inner.getAsLong();
            long after = outer.getAsLong();
            long gap = after - before;
            if (gap >= 0 && gap < bestGap) {
                bestGap = gap;
                bestInner = value;
                bestMid = before + gap / 2;
            }
        }
        return new BracketedReading(bestMid, bestInner, bestGap);
    }

    /** Half the gap, rounded up: how far {@link #innerNs} may be from the instant {@link #midNs}. */
    public long boundNs() {
        return gapNs / 2 + (gapNs & 1); // (gap + 1) / 2 without passing a long at Long.MAX_VALUE, "no reading"
    }
}
