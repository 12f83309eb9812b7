package org.flagos.trace.report;

import java.util.Arrays;

/**
 * The union of time intervals, held as sorted disjoint intervals. Added intervals wait in a buffer of
 * {@link #BUFFER} that is sorted and merged into the union whenever it fills, so the memory held is
 * 16 bytes per disjoint busy interval plus the buffer (grown as intervals come): overlapping or touching work (back-to-back
 * kernels on one stream, concurrent streams) costs nothing more; gaps between kernels cost one
 * interval each.
 */
final class IntervalUnion {
    /** Intervals buffered before a merge. */
    static final int BUFFER = 1 << 14;

    private long[] starts = new long[16];
    private long[] ends = new long[16];
    private int size;
    // Grown to 2 * BUFFER as intervals come: one is kept per rank and kind of work, and a merge of
    // thousands of ranks must not hold 256 KiB for each before it has any work.
    private long[] pending = new long[32];
    private int pendingSize;

    /** Adds {@code [start, end)}; an empty one is ignored. */
    void add(long start, long end) {
        if (end <= start) {
            return;
        }
        if (2 * pendingSize == pending.length) {
            pending = Arrays.copyOf(pending, Math.min(2 * pending.length, 2 * BUFFER));
        }
        pending[2 * pendingSize] = start;
        pending[2 * pendingSize + 1] = end;
        if (++pendingSize == BUFFER) {
            flush();
        }
    }

    private void flush() {
        if (pendingSize == 0) {
            return;
        }
        long[][] sorted = new long[pendingSize][];
        for (int i = 0; i < pendingSize; i++) {
            sorted[i] = new long[] {pending[2 * i], pending[2 * i + 1]};
        }
        pendingSize = 0;
        Arrays.sort(sorted, (a, b) -> Long.compare(a[0], b[0]));
        long[] bs = new long[sorted.length];
        long[] be = new long[sorted.length];
        for (int i = 0; i < sorted.length; i++) {
            bs[i] = sorted[i][0];
            be[i] = sorted[i][1];
        }
        IntervalUnion merged = merge(new long[][] {Arrays.copyOf(starts, size), Arrays.copyOf(ends, size)},
                new long[][] {bs, be});
        starts = merged.starts;
        ends = merged.ends;
        size = merged.size;
    }

    /** The sorted disjoint intervals of {@code a} and {@code b} (each sorted by start) together. */
    private static IntervalUnion merge(long[][] a, long[][] b) {
        IntervalUnion out = new IntervalUnion(a[0].length + b[0].length);
        int i = 0;
        int j = 0;
        while (i < a[0].length || j < b[0].length) {
            boolean fromA = j == b[0].length || (i < a[0].length && a[0][i] <= b[0][j]);
            long s = fromA ? a[0][i] : b[0][j];
            long e = fromA ? a[1][i++] : b[1][j++];
            if (out.size > 0 && s <= out.ends[out.size - 1]) {
                out.ends[out.size - 1] = Math.max(out.ends[out.size - 1], e);
            } else {
                out.starts[out.size] = s;
                out.ends[out.size++] = e;
            }
        }
        return out;
    }

    IntervalUnion() {
    }

    private IntervalUnion(int capacity) {
        starts = new long[Math.max(capacity, 1)];
        ends = new long[Math.max(capacity, 1)];
    }

    /** The union's length. */
    long length() {
        flush();
        long total = 0;
        for (int i = 0; i < size; i++) {
            total += ends[i] - starts[i];
        }
        return total;
    }

    /** The length of the union of this and {@code other}. */
    long unionLength(IntervalUnion other) {
        return union(other).length();
    }

    /** The union of this and {@code other}, as a new union. */
    IntervalUnion union(IntervalUnion other) {
        flush();
        other.flush();
        return merge(new long[][] {Arrays.copyOf(starts, size), Arrays.copyOf(ends, size)},
                new long[][] {Arrays.copyOf(other.starts, other.size), Arrays.copyOf(other.ends, other.size)});
    }

    /** Disjoint intervals held (after merging the buffer). */
    int intervals() {
        flush();
        return size;
    }
}
