package org.flagos.trace.report;

import java.io.IOException;
import java.util.Arrays;

/**
 * The trace's profiler-overhead events, held in memory (at most {@link #MAX}; traces carry a
 * handful), and the op each belongs to: the innermost host op enclosing it in time on any thread,
 * the latest-starting one when threads disagree (see {@link KeyAverages}). Found in one pass over
 * the host events sorted by thread, then start, longer first.
 */
final class OverheadEvents {
    /** Overhead events kept at most: a trace with more is refused. */
    static final int MAX = 1 << 18;

    int size;
    long[] start = new long[16];
    long[] end = new long[16];
    long[] seq = new long[16];
    int[] name = new int[16];
    int[] thread = new int[16];
    long[] link = new long[16];
    private long[] bestStart;

    /** Adds one; false past {@link #MAX}. */
    boolean add(long startNs, long endNs, long sequence, int nameId, int row) {
        if (size == MAX) {
            return false;
        }
        if (size == start.length) {
            int n = size * 2;
            start = Arrays.copyOf(start, n);
            end = Arrays.copyOf(end, n);
            seq = Arrays.copyOf(seq, n);
            name = Arrays.copyOf(name, n);
            thread = Arrays.copyOf(thread, n);
            link = Arrays.copyOf(link, n);
        }
        start[size] = startNs;
        end[size] = endNs;
        seq[size] = sequence;
        name[size] = nameId;
        thread[size] = row;
        link[size] = KeyAveragesBuilder.NO_LINK;
        size++;
        return true;
    }

    /**
     * Moves each overhead event onto the thread of the op it belongs to and gives it that op's
     * External id. {@code host} yields host records {@code [row, start, -end, seq, name<<8|class, link]}.
     */
    void attach(RecordSorter.Cursor host) throws IOException {
        int[] byStart = order(false);
        bestStart = new long[size];
        int[] owner = new int[size];
        Arrays.fill(owner, -1);
        long[] ownerLink = new long[size];
        long[] r = new long[KeyAveragesBuilder.HOST_WIDTH];
        Stack stack = new Stack();
        int current = Integer.MIN_VALUE;
        int k = 0;
        while (host.next(r)) {
            int row = (int) r[0];
            if (row != current) {
                for (; k < size && current != Integer.MIN_VALUE; k++) {
                    resolve(byStart[k], current, stack, owner, ownerLink);
                }
                current = row;
                stack.depth = 0;
                k = 0;
            }
            long s = r[1];
            long e = -r[2];
            for (; k < size && start[byStart[k]] < s; k++) {
                resolve(byStart[k], current, stack, owner, ownerLink);
            }
            while (stack.depth > 0 && (s >= stack.end[stack.depth - 1] || e > stack.end[stack.depth - 1])) {
                stack.depth--;
            }
            stack.push(s, e, (int) (r[4] & 0xff) == EventClass.HOST_OP.ordinal(), r[5]);
        }
        for (; k < size && current != Integer.MIN_VALUE; k++) {
            resolve(byStart[k], current, stack, owner, ownerLink);
        }
        for (int i = 0; i < size; i++) {
            if (owner[i] >= 0) {
                thread[i] = owner[i];
                link[i] = ownerLink[i];
            }
        }
    }

    private void resolve(int o, int row, Stack stack, int[] owner, long[] ownerLink) {
        for (int j = stack.depth - 1; j >= 0; j--) {
            if (stack.op[j] && stack.start[j] <= start[o] && stack.end[j] >= end[o]) {
                if (owner[o] < 0 || stack.start[j] > bestStart[o]) {
                    owner[o] = row;
                    ownerLink[o] = stack.link[j];
                    bestStart[o] = stack.start[j];
                }
                return;
            }
        }
    }

    /** Indices by (start, longer first, seq), or by thread first when {@code byThread}. */
    int[] order(boolean byThread) {
        int[] idx = new int[size];
        for (int i = 0; i < size; i++) {
            idx[i] = i;
        }
        IndexOrder.sort(idx, size, (a, b) -> {
            int c = byThread ? Integer.compare(thread[a], thread[b]) : 0;
            if (c == 0) {
                c = Long.compare(start[a], start[b]);
            }
            if (c == 0) {
                c = Long.compare(end[b], end[a]);
            }
            return c != 0 ? c : Long.compare(seq[a], seq[b]);
        });
        return idx;
    }

    /** The open host events of one thread. */
    private static final class Stack {
        int depth;
        long[] start = new long[64];
        long[] end = new long[64];
        boolean[] op = new boolean[64];
        long[] link = new long[64];

        void push(long s, long e, boolean isOp, long l) throws TraceLimitException {
            if (depth == KeyAveragesBuilder.MAX_DEPTH) {
                throw KeyAveragesBuilder.tooDeep();
            }
            if (depth == start.length) {
                int n = depth * 2;
                start = Arrays.copyOf(start, n);
                end = Arrays.copyOf(end, n);
                op = Arrays.copyOf(op, n);
                link = Arrays.copyOf(link, n);
            }
            start[depth] = s;
            end[depth] = e;
            op[depth] = isOp;
            link[depth++] = l;
        }
    }
}
