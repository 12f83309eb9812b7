package org.flagos.trace.merge;

import java.util.List;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.report.TraceFormatException;

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
 * @param offsetNs the trace clock of the reference minus this trace's, at one instant
 * @param boundNs  how far the offset may be wrong; -1 when unknown (a trace without anchors taken as aligned)
 * @param clock    {@code reference}, {@code monotonic}, {@code realtime} or {@code assumed}
 */
record RankAlignment(long offsetNs, long boundNs, String clock) {
    static final RankAlignment REFERENCE = new RankAlignment(0, 0, "reference");
    static final RankAlignment ASSUMED = new RankAlignment(0, -1, "assumed");

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
        long offset = monotonic ? refStart.monotonicOffsetNs() - start.monotonicOffsetNs()
                : refStart.realtimeOffsetNs() - start.realtimeOffsetNs();
        long bound = monotonic ? 0 : refStart.boundNs() + start.boundNs();
        ClockAnchor refStop = stop(reference.anchors());
        ClockAnchor stop = stop(trace.anchors());
        if (refStop != null && stop != null) {
            long atStop = monotonic ? refStop.monotonicOffsetNs() - stop.monotonicOffsetNs()
                    : refStop.realtimeOffsetNs() - stop.realtimeOffsetNs();
            long drift = Math.abs(atStop - offset);
            bound += monotonic ? drift : Math.max(0, drift - refStop.boundNs() - stop.boundNs());
        }
        return new RankAlignment(offset, bound, monotonic ? "monotonic" : "realtime");
    }

    /** The anchor taken at start, else the first. */
    static ClockAnchor start(List<ClockAnchor> anchors) {
        for (ClockAnchor a : anchors) {
            if (a.at().equals("start")) {
                return a;
            }
        }
        return anchors.get(0);
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
