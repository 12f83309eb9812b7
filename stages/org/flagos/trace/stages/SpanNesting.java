package org.flagos.trace.stages;

import java.util.Arrays;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * Keeps the spans drawn on each stream a nest: a viewer stacks the slices of one row, so a span that
 * partly overlaps another on its stream would be drawn broken (in Perfetto, an end closing the wrong
 * slice). A span is accepted when it is, against every span accepted on its stream, either disjoint
 * or inside it or around it; what partly overlaps one is refused, and the walk counts it (ops of two
 * threads interleaving their work on one stream, or device records that themselves overlap on one
 * stream).
 *
 * <p>Spans come mostly in start order (rows go in host start order, and device order mostly follows
 * it): such a span only needs the chain of spans open at the last one accepted. One that starts
 * earlier is checked against the latest {@link #RECENT} spans accepted on its stream, and against the
 * spans before those by their latest end: it is accepted when it nests with the recent ones and starts
 * after every older one ended, or when it encloses every span of its stream so far (an op outlasting
 * the settling horizon, such as one around the whole run, is written after the ops inside it). So a
 * span written late is not refused for its order alone: an op whose row came after later-starting
 * ones (it arrived late, or its parent's span was folded without it, {@code ops_nested_approximately})
 * is drawn when it nests, unless it ends where a span written before it begins, or begins with one it
 * encloses (a viewer reading begin and end events would nest them wrongly). What this bounded memory
 * cannot prove nested is refused and counted.
 *
 * <p>Held, per stream: the chain of spans open at the last one accepted in order (as deep as the ops
 * nest) and the latest {@link #RECENT} spans accepted, by start. Device records are not checked: on one
 * stream they do not overlap, and a span reaches 1 ns past records of its own at each end, so only
 * another op's record starting or ending at the very nanosecond its record ended or started could
 * cross it.
 */
final class SpanNesting {
    /** Spans accepted per stream that a span written out of start order is checked against. */
    static final int RECENT = 1024;

    private final Long2ObjectHashMap<Chain> streams = new Long2ObjectHashMap<>();

    /** The spans open on one stream, outermost first, and its recent spans by start. */
    private static final class Chain {
        long[] start = new long[8];
        long[] end = new long[8];
        int size;
        long lastStart = Long.MIN_VALUE;
        long firstStart = Long.MAX_VALUE;
        long lastEnd = Long.MIN_VALUE;
        /** The latest {@link #RECENT} spans accepted, sorted by start, in [{@code lo}, {@code hi}). */
        long[] recentStart = new long[16];
        long[] recentEnd = new long[16];
        int lo;
        int hi;
        /** The latest end of the spans no longer among the recent ones (they all start before them). */
        long forgottenEnd = Long.MIN_VALUE;

        void grow() {
            if (size == start.length) {
                start = Arrays.copyOf(start, size * 2);
                end = Arrays.copyOf(end, size * 2);
            }
        }

        /** Puts the span at chain depth {@code at}, the spans from there on inside it. */
        void insertOpen(int at, long s, long e) {
            grow();
            System.arraycopy(start, at, start, at + 1, size - at);
            System.arraycopy(end, at, end, at + 1, size - at);
            start[at] = s;
            end[at] = e;
            size++;
        }

        /**
         * Whether [s, e], written after the recent spans, is disjoint from, inside or around each, and
         * shares with none an edge that a viewer would misread: Perfetto reads a span as a begin and an
         * end event in time order, ties in file order, so a span written later that ends where an earlier
         * one begins would close that one, and one that begins with an earlier one it encloses would be
         * nested inside it.
         */
        boolean nestsWithRecent(long s, long e) {
            for (int i = lo; i < hi && recentStart[i] <= e; i++) {
                long a = recentStart[i];
                long b = recentEnd[i];
                if (a == e || a == s && b < e) {
                    return false;
                }
                if (b > s && !(a <= s && e <= b) && !(s <= a && b <= e)) {
                    return false;
                }
            }
            return true;
        }

        /** Keeps the span among the recent ones, at its place by start; the oldest is forgotten past {@link #RECENT}. */
        void remember(long s, long e) {
            if (hi == recentStart.length) {
                if (lo > 0) {
                    System.arraycopy(recentStart, lo, recentStart, 0, hi - lo);
                    System.arraycopy(recentEnd, lo, recentEnd, 0, hi - lo);
                    hi -= lo;
                    lo = 0;
                } else {
                    recentStart = Arrays.copyOf(recentStart, hi * 2);
                    recentEnd = Arrays.copyOf(recentEnd, hi * 2);
                }
            }
            int at = hi;
            while (at > lo && recentStart[at - 1] > s) {
                at--;
            }
            System.arraycopy(recentStart, at, recentStart, at + 1, hi - at);
            System.arraycopy(recentEnd, at, recentEnd, at + 1, hi - at);
            recentStart[at] = s;
            recentEnd[at] = e;
            hi++;
            if (hi - lo > RECENT) {
                forgottenEnd = Math.max(forgottenEnd, recentEnd[lo]);
                lo++;
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
            return acceptEarlier(c, startNs, endNs);
        }
        int open = c.size; // the spans still open at its start; the chain is cut only when it is taken
        while (open > 0 && c.end[open - 1] <= startNs) {
            open--;
        }
        if (open > 0 && c.end[open - 1] < endNs) {
            return false;
        }
        c.size = open;
        c.insertOpen(c.size, startNs, endNs);
        c.lastStart = startNs;
        taken(c, startNs, endNs);
        return true;
    }

    /**
     * A span starting before the last one accepted in order: it encloses every span so far, or it nests
     * with the recent ones and starts after every older one ended. When it is open at the last start, it
     * joins the chain at its depth: inside the open spans around it, around those inside it.
     */
    private static boolean acceptEarlier(Chain c, long startNs, long endNs) {
        boolean enclosesAll = startNs <= c.firstStart && endNs >= c.lastEnd;
        if (!enclosesAll && (startNs < c.forgottenEnd || !c.nestsWithRecent(startNs, endNs))) {
            return false;
        }
        if (endNs > c.lastStart) { // open at the last start: every open span is around it or inside it (it nests with each)
            int at = 0;
            while (at < c.size && c.start[at] <= startNs && c.end[at] >= endNs) {
                at++;
            }
            c.insertOpen(at, startNs, endNs);
        }
        taken(c, startNs, endNs);
        return true;
    }

    private static void taken(Chain c, long startNs, long endNs) {
        c.firstStart = Math.min(c.firstStart, startNs);
        c.lastEnd = Math.max(c.lastEnd, endNs);
        c.remember(startNs, endNs);
    }
}
