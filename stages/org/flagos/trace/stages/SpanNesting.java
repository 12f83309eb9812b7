package org.flagos.trace.stages;

import org.agrona.collections.Long2ObjectHashMap;

/**
 * Keeps the spans drawn on each stream a nest: a viewer stacks the slices of one row, so a span that
 * partly overlaps another on its stream would be drawn broken (in Perfetto, an end closing the wrong
 * slice). Spans are checked in the order they are written; one is accepted when it starts at or after
 * the last accepted one on its stream and, once the spans that ended by its start are left, lies inside
 * the innermost span still open; or, starting earlier, when it encloses every span of its stream so far
 * (an op outlasting the settling horizon, such as one around the whole run, is written after the ops
 * inside it). What that cannot prove nested is refused, and the walk counts it: ops of two threads
 * interleaving their work on one stream, or an op written after a later-starting span it does not
 * wholly enclose (rows go in host start order within a horizon, which device order need not follow).
 *
 * <p>Held: per stream, the chain of spans open at the last one accepted (as deep as the ops nest).
 * Device records are not checked: on one stream they do not overlap, and a span reaches 1 ns past
 * records of its own at each end, so only another op's record starting or ending at the very
 * nanosecond its record ended or started could cross it.
 */
final class SpanNesting {
    private final Long2ObjectHashMap<Chain> streams = new Long2ObjectHashMap<>();

    /** The spans open on one stream, outermost first. */
    private static final class Chain {
        long[] start = new long[8];
        long[] end = new long[8];
        int size;
        long lastStart = Long.MIN_VALUE;
        long firstStart = Long.MAX_VALUE;
        long lastEnd = Long.MIN_VALUE;

        void grow() {
            if (size == start.length) {
                start = java.util.Arrays.copyOf(start, size * 2);
                end = java.util.Arrays.copyOf(end, size * 2);
            }
        }
    }

    /** Whether the span [startNs, endNs] on {@code stream} ({@link StreamSpans#streamKey}) keeps the stream's spans a nest; if so it is taken. */
    boolean accept(long stream, long startNs, long endNs) {
        Chain c = streams.get(stream);
        if (c == null) {
            c = new Chain();
            streams.put(stream, c);
        }
        if (startNs < c.lastStart) {
            if (startNs > c.firstStart || endNs < c.lastEnd) {
                return false;
            }
            c.grow(); // a new outermost span: under the chain
            System.arraycopy(c.start, 0, c.start, 1, c.size);
            System.arraycopy(c.end, 0, c.end, 1, c.size);
            c.start[0] = startNs;
            c.end[0] = endNs;
            c.size++;
            c.firstStart = startNs;
            c.lastEnd = endNs;
            return true;
        }
        while (c.size > 0 && c.end[c.size - 1] <= startNs) {
            c.size--;
        }
        if (c.size > 0 && c.end[c.size - 1] < endNs) {
            return false;
        }
        c.grow();
        c.start[c.size] = startNs;
        c.end[c.size] = endNs;
        c.size++;
        c.lastStart = startNs;
        c.firstStart = Math.min(c.firstStart, startNs);
        c.lastEnd = Math.max(c.lastEnd, endNs);
        return true;
    }
}
