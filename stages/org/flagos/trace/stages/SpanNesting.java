package org.flagos.trace.stages;

import org.agrona.collections.Long2ObjectHashMap;

/**
 * Keeps the spans drawn on each stream a nest: a viewer stacks the slices of one row, so a span that
 * partly overlaps another on its stream would be drawn broken (in Perfetto, an end closing the wrong
 * slice). Spans are checked in the order they are written; one is accepted when it starts at or after
 * the last accepted one on its stream and, once the spans that ended by its start are left, lies inside
 * the innermost span still open. What that cannot prove nested is refused, and the walk counts it: ops
 * of two threads interleaving their work on one stream, or an op written after a later-starting span of
 * another thread's op (rows go in host start order, which device order need not follow).
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
    }

    /** Whether the span [startNs, endNs] on {@code stream} ({@link StreamSpans#streamKey}) keeps the stream's spans a nest; if so it is taken. */
    boolean accept(long stream, long startNs, long endNs) {
        Chain c = streams.get(stream);
        if (c == null) {
            c = new Chain();
            streams.put(stream, c);
        }
        if (startNs < c.lastStart) {
            return false;
        }
        while (c.size > 0 && c.end[c.size - 1] <= startNs) {
            c.size--;
        }
        if (c.size > 0 && c.end[c.size - 1] < endNs) {
            return false;
        }
        if (c.size == c.start.length) {
            c.start = java.util.Arrays.copyOf(c.start, c.size * 2);
            c.end = java.util.Arrays.copyOf(c.end, c.size * 2);
        }
        c.start[c.size] = startNs;
        c.end[c.size] = endNs;
        c.size++;
        c.lastStart = startNs;
        return true;
    }
}
