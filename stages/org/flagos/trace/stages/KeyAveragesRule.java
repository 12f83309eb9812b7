package org.flagos.trace.stages;

/**
 * The op-summary rule, written once: torch's {@code key_averages}. Every summary flagtrace makes
 * (the walk's {@link OpSummaryFold}, the trace-file summary's {@code report/HostNesting}, and
 * {@code analyze}'s rank_ops, nested by {@code sql/OpNesting} on DuckDB and Spark alike) follows it:
 * <ul>
 * <li>Events nest per thread (row) as torch's {@code _populate_cpu_children} nests them: taken in
 *     order of start, longer first, an event is the child of the innermost open event it lies in
 *     ({@link #nests}); one that starts inside an event and ends after it (crossing) is not its child.
 *     Runtime and driver calls are events like ops: children of the op around them, leaves of their own.</li>
 * <li>Every event counts: an op nested in an op of its own name is a call of its own (torch 1.13's
 *     {@code key_averages} of a chain {@code outer > deep > deep > outer} counts each {@code deep}).</li>
 * <li>Self CPU time is the duration less the union of the direct children's spans, each clipped to
 *     the parent, never below zero ({@link #selfNs}); children that overlap (crossing siblings)
 *     are counted once where they overlap.</li>
 * <li>Device time: an op's own is the device work whose External id is its own; its total adds its
 *     children's totals.</li>
 * </ul>
 * Times are whole nanoseconds (a trace's microseconds have three decimals). The walk sums them as
 * longs; the trace's summary in torch's double arithmetic (microseconds from the profile's start,
 * so its table is torch's to the last printed digit): the two agree to the nanosecond once rounded
 * to three decimals, as every summary file writes them.
 */
public final class KeyAveragesRule {
    private KeyAveragesRule() {
    }

    /**
     * Whether {@code [cs, ce]}, which comes after {@code [ps, pe]} in start order (longer first),
     * nests in it: it starts before the parent ends and ends no later. A zero-length event at a
     * parent's end is not its child; a zero-length parent has none.
     */
    public static boolean nests(long ps, long pe, long cs, long ce) {
        return cs >= ps && cs < pe && ce <= pe;
    }

    /**
     * Post-order of one thread's events (children before their parent): by end, then the later start
     * first; an event of zero length goes after the events that end where it is (it is none's child).
     * Returns a negative number when {@code a} folds before {@code b}, 0 when they tie.
     */
    public static int postOrder(long as, long ae, long bs, long be) {
        if (ae != be) {
            return ae < be ? -1 : 1;
        }
        boolean az = as == ae;
        boolean bz = bs == be;
        if (az != bz) {
            return az ? 1 : -1;
        }
        return az ? 0 : Long.compare(bs, as);
    }

    /** Self time: the duration less the union of the children's spans (clipped to the parent), never negative. */
    public static long selfNs(long durationNs, long childrenUnionNs) {
        return Math.max(0, durationNs - childrenUnionNs);
    }

    /**
     * The union of a parent's children's spans, children given in start order (pre-order, as a
     * stack nests them), each clipped to {@code [parentStart, parentEnd]}.
     */
    public static final class UnionInStartOrder {
        private long union;
        private long coveredTo = Long.MIN_VALUE;
        private boolean overlapped;

        public void reset() {
            union = 0;
            coveredTo = Long.MIN_VALUE;
            overlapped = false;
        }

        /** Whether two children overlapped: the union is then less than the sum of their durations. */
        public boolean overlapped() {
            return overlapped;
        }

        public void add(long start, long end, long parentStart, long parentEnd) {
            overlapped |= start < coveredTo;
            long s = Math.max(Math.max(start, parentStart), coveredTo);
            long e = Math.min(end, parentEnd);
            if (e > s) {
                union += e - s;
            }
            coveredTo = Math.max(coveredTo, e);
        }

        public long union() {
            return union;
        }
    }

    /**
     * The same union with the children given by end, latest first (post-order popped from a stack):
     * every child seen so far reaches past the current one's end, so what they cover below it is one
     * piece from the lowest start seen, and each child adds its part below that.
     */
    public static final class UnionInEndOrder {
        private long union;
        private long lowest = Long.MAX_VALUE;

        public void reset() {
            union = 0;
            lowest = Long.MAX_VALUE;
        }

        /** A child of {@code cover} ns of its own over {@code [start, end]} (a merged entry covers less than its span). */
        public void add(long start, long end, long cover, long parentStart, long parentEnd) {
            long s = Math.max(start, parentStart);
            long e = Math.min(Math.min(end, parentEnd), lowest);
            if (e >= Math.min(end, parentEnd)) {
                union += Math.min(cover, Math.max(0, e - s)); // nothing of it seen yet
            } else if (e > s) {
                union += e - s;
            }
            lowest = Math.min(lowest, s);
        }

        public long union() {
            return union;
        }
    }
}
