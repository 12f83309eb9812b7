package org.flagos.trace.merge;

import java.util.List;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceLimits;

/**
 * How one trace's clock is put on the reference trace's: {@code offsetNs} added to its times, right
 * to within {@code boundNs}.
 *
 * <p>On the reference's host and boot the monotonic clock is one clock for every process, and each
 * anchor pairs it with the trace clock exactly (the trace clock of host ops is the monotonic clock
 * plus a constant), so the offset is exact: the bound is 0 (what a session's own host-to-device
 * clock calibration adds is in each trace's {@code flagtrace.host_clock}). Elsewhere the real-time
 * clock joins them: each pairing is off by at most its anchor's bound, so the two bounds add; hosts'
 * real-time clocks disagree by what NTP or PTP leaves, which no trace measures. When both traces
 * have a stop anchor as well, the offset found at stop is compared with the one at start and the
 * difference (drift) is added to the bound.
 *
 * <p>A trace without anchors may be aligned by the collectives it shares with an aligned one
 * ({@link CollectiveAlignment}): clock {@code collectives}, its bound the residual (the largest deviation
 * of a matched end once corrected, plus the bound of the trace it was aligned against), and what the
 * match said in {@code collectives}.
 *
 * @param offsetNs    the trace clock of the reference minus this trace's, at one instant
 * @param boundNs     how far the offset may be wrong; -1 when unknown (a trace without anchors taken as aligned)
 * @param clock       {@code reference}, {@code monotonic}, {@code realtime}, {@code collectives} or {@code assumed}
 * @param collectives what the shared collectives said, for clock {@code collectives}; else null
 */
record RankAlignment(long offsetNs, long boundNs, String clock, Collectives collectives) {
    static final RankAlignment REFERENCE = new RankAlignment(0, 0, "reference");
    static final RankAlignment ASSUMED = new RankAlignment(0, -1, "assumed");

    /**
     * How a trace was aligned by collectives.
     *
     * @param against       the trace it was aligned against ({@code rank 0}: the reference, or one aligned before it)
     * @param matched       collective ends matched with that trace's
     * @param keys          kinds (with process group) matched
     * @param residualNs       the largest |end difference - offset| of the matched ends, plus the bound of the trace aligned
     *                         against: the alignment's bound
     * @param medianResidualNs the median one, plus that of the trace aligned against
     */
    record Collectives(String against, int matched, int keys, long residualNs, long medianResidualNs) {
    }

    /** An alignment by clock anchors (or none). */
    RankAlignment(long offsetNs, long boundNs, String clock) {
        this(offsetNs, boundNs, clock, null);
    }

    /** Aligns {@code trace} to {@code reference}, both with anchors. */
    static RankAlignment of(TraceFacts reference, TraceFacts trace, ClockChoice choice) throws TraceFormatException {
        ClockAnchor refStart = start(reference.anchors());
        ClockAnchor start = start(trace.anchors());
        String refBoot = reference.identity().bootId();
        boolean oneBoot = refBoot != null && refBoot.equals(trace.identity().bootId());
        boolean monotonic = choice == ClockChoice.MONOTONIC || (choice == ClockChoice.AUTO && oneBoot);
        if (monotonic && !oneBoot) {
            throw new TraceFormatException(trace.path() + " was not captured on the reference's host and boot (its boot_id "
                    + (trace.identity().bootId() == null ? "is not known" : "differs") + "): --clock monotonic cannot align it; use --clock auto");
        }
        long offset;
        long atStop = 0;
        ClockAnchor refStop = stop(reference.anchors());
        ClockAnchor stop = stop(trace.anchors());
        try { // readings are within ±2^62 ns (TraceLimits), their differences' differences may not be: exact, or refused
            offset = monotonic ? offset(refStart.traceNs(), refStart.monotonicNs(), start.traceNs(), start.monotonicNs())
                    : offset(refStart.traceNs(), refStart.realtimeNs(), start.traceNs(), start.realtimeNs());
            if (refStop != null && stop != null) {
                atStop = monotonic ? offset(refStop.traceNs(), refStop.monotonicNs(), stop.traceNs(), stop.monotonicNs())
                        : offset(refStop.traceNs(), refStop.realtimeNs(), stop.traceNs(), stop.realtimeNs());
                Math.subtractExact(atStop, offset);
            }
        } catch (ArithmeticException e) {
            offset = Long.MAX_VALUE;
        }
        if (Math.abs(offset) >= TraceLimits.MAX_TIME_NS) { // a base time plus this offset must stay within a long too
            throw new TraceFormatException(trace.path() + ": its clock anchors put it more than " + TraceLimits.MAX_TIME_NS
                    + " ns from the reference's clock: not a clock of the same time");
        }
        long bound = monotonic ? 0 : refStart.boundNs() + start.boundNs();
        if (refStop != null && stop != null) {
            long drift = Math.abs(atStop - offset);
            if (drift > TraceLimits.MAX_CLOCK_BOUND_NS) {
                throw new TraceFormatException(trace.path() + ": its clock anchors at start and at stop disagree with the reference's by "
                        + drift + " ns, more than an hour: not the same clock");
            }
            bound += monotonic ? drift : Math.max(0, drift - refStop.boundNs() - stop.boundNs());
        }
        return new RankAlignment(offset, bound, monotonic ? "monotonic" : "realtime");
    }

    /** (refTrace - refClock) - (trace - clock), exactly; ArithmeticException past a long. */
    private static long offset(long refTrace, long refClock, long trace, long clock) {
        return Math.subtractExact(Math.subtractExact(refTrace, refClock), Math.subtractExact(trace, clock));
    }

    /** The anchor taken at start, else the first. */
    static ClockAnchor start(List<ClockAnchor> anchors) {
        return ClockAnchor.start(anchors);
    }

    /** The anchor taken at stop, or null. */
    static ClockAnchor stop(List<ClockAnchor> anchors) {
        for (ClockAnchor a : anchors) {
            if (a.at().equals("stop")) {
                return a;
            }
        }
        return null;
    }
}
