package org.flagos.trace.model;

/**
 * How a live session put its host op timestamps on the vendor's clock, and how well. The host
 * reads a cheap monotonic clock plus an offset; the offset comes from the tightest of many paired
 * samples (host, vendor, host) taken when the session starts, and is measured again the same way
 * when it stops. The difference of the two offsets is the drift the session saw; the half round
 * trip of each winning sample bounds its error.
 *
 * @param samples       paired samples taken at each end
 * @param startBoundNs  error bound of the offset the ops used (half the tightest round trip at start)
 * @param endBoundNs    error bound of the offset measured at stop
 * @param driftNs       offset at stop minus offset at start: how far the two clocks moved apart
 * @param spanNs        host nanoseconds between the two measurements
 */
public record ClockAlignment(int samples, long startBoundNs, long endBoundNs, long driftNs, long spanNs) {
    /**
     * The largest error an op timestamp can carry, in nanoseconds: the start offset's bound plus
     * the drift, when the drift exceeds what the two bounds can explain; otherwise the larger bound.
     */
    public long errorBoundNs() {
        long noise = startBoundNs + endBoundNs;
        return Math.abs(driftNs) > noise ? startBoundNs + Math.abs(driftNs) : Math.max(startBoundNs, endBoundNs);
    }

    /** True when the clocks moved apart by more than the two measurements' bounds explain. */
    public boolean drifted() {
        return Math.abs(driftNs) > startBoundNs + endBoundNs;
    }
}
