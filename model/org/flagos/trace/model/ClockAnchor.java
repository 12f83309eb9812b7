package org.flagos.trace.model;

/**
 * One pairing of clocks taken by a session, so that traces of different processes and hosts can be
 * put on one timeline: the host's real-time clock and its monotonic clock against the trace clock
 * (the epoch nanoseconds the trace's {@code ts} values count, {@code baseTimeNanoseconds} added).
 *
 * <p>The monotonic pairing is exact: the trace clock of host ops is the monotonic clock plus a fixed
 * offset, so both are computed from one reading. The real-time clock is read between two monotonic
 * readings {@code 2 * boundNs} apart at most; the anchor pairs it with their midpoint, so it is off
 * by at most {@code boundNs}.
 *
 * @param at          when it was taken: {@code start} or {@code stop}
 * @param realtimeNs  the host's real-time clock, UNIX-epoch ns
 * @param monotonicNs the host's monotonic clock (shared by every process of one boot of one host)
 * @param traceNs     the trace clock at the same instant
 * @param boundNs     how far {@code realtimeNs} may be from the instant of the other two
 */
public record ClockAnchor(String at, long realtimeNs, long monotonicNs, long traceNs, long boundNs) {
    public ClockAnchor {
        if (at == null || at.isEmpty()) {
            throw new IllegalArgumentException("a clock anchor says when it was taken");
        }
        if (boundNs < 0) {
            throw new IllegalArgumentException("a clock anchor's bound is 0 or more, not " + boundNs);
        }
    }

    /** Readings per anchor; the tightest real-time reading wins. */
    public static final int TRIES = 64;

    /**
     * Takes an anchor now: {@link #TRIES} real-time readings each between two monotonic ones, the
     * tightest kept. {@code monotonic} is {@link System#nanoTime()} outside tests; {@code traceOf}
     * maps a monotonic reading to the trace clock.
     */
    public static ClockAnchor take(String at, java.util.function.LongSupplier monotonic, java.util.function.LongSupplier realtime,
                                   java.util.function.LongUnaryOperator traceOf) {
        BracketedReading r = BracketedReading.tightest(monotonic, realtime, TRIES);
        return new ClockAnchor(at, r.innerNs(), r.midNs(), traceOf.applyAsLong(r.midNs()), r.boundNs());
    }

    /** The anchor taken at start, else the first; null when there is none. */
    public static ClockAnchor start(java.util.List<ClockAnchor> anchors) {
        for (ClockAnchor a : anchors) {
            if (a.at().equals("start")) {
                return a;
            }
        }
        return anchors.isEmpty() ? null : anchors.get(0);
    }

    /** The trace clock minus the real-time clock at this anchor. */
    public long realtimeOffsetNs() {
        return traceNs - realtimeNs;
    }

    /** The trace clock minus the monotonic clock at this anchor. */
    public long monotonicOffsetNs() {
        return traceNs - monotonicNs;
    }
}
