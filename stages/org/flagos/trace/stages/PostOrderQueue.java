package org.flagos.trace.stages;

import java.util.Arrays;

/**
 * Events of one row waiting to be folded, taken out earliest first in post-order
 * ({@link KeyAveragesRule#postOrder}), equal spans in the order they came. Runtime calls come almost
 * in order: those that do go to the back of a run kept in order (append and take from the front, no
 * search); the few that come late (a record the join held for its binding until its horizon, 2^18
 * records later) go to a small heap, and the earliest of the two fronts leaves first. On a 10M-record
 * replay, keeping one sorted array (an insertion walk from the back, past every call a late record
 * came behind) or one heap of every call (a sift through 2^18 held calls each time) was the walk
 * thread's hottest line. Each event carries a name, its span and a device time (an overhead record's,
 * credited from its op).
 */
final class PostOrderQueue {
    /** The events that came in order: a run, oldest at {@code head}. */
    private final Events run = new Events();
    private int head;
    /** The events that came late: a binary heap at {@code [0, late.size)}. */
    private final Events late = new Events();
    private long arrivals;

    /** Parallel arrays of events; {@code seq} is the arrival order, which breaks ties in post-order. */
    private static final class Events {
        long[] start = new long[16];
        long[] end = new long[16];
        long[] device = new long[16];
        long[] seq = new long[16];
        int[] nameId = new int[16];
        int size;

        void ensure(int n) {
            if (n > start.length) {
                int length = Math.max(n, start.length * 2);
                start = Arrays.copyOf(start, length);
                end = Arrays.copyOf(end, length);
                device = Arrays.copyOf(device, length);
                seq = Arrays.copyOf(seq, length);
                nameId = Arrays.copyOf(nameId, length);
            }
        }

        void set(int i, int name, long s, long e, long d, long order) {
            nameId[i] = name;
            start[i] = s;
            end[i] = e;
            device[i] = d;
            seq[i] = order;
        }

        void move(int from, int to) {
            set(to, nameId[from], start[from], end[from], device[from], seq[from]);
        }

        int compare(int a, Events other, int b) {
            int c = KeyAveragesRule.postOrder(start[a], end[a], other.start[b], other.end[b]);
            return c != 0 ? c : Long.compare(seq[a], other.seq[b]);
        }
    }

    /** Events held. */
    int size() {
        return run.size - head + late.size;
    }

    /** Holds one event. */
    void add(int name, long s, long e, long d) {
        long order = arrivals++;
        int last = run.size - 1;
        if (last < head || KeyAveragesRule.postOrder(run.start[last], run.end[last], s, e) <= 0) {
            if (run.size == run.start.length && head > 0) { // room at the front: move the run down
                int n = run.size - head;
                for (int i = 0; i < n; i++) {
                    run.move(head + i, i);
                }
                run.size = n;
                head = 0;
            }
            run.ensure(run.size + 1);
            run.set(run.size++, name, s, e, d, order);
        } else {
            late.ensure(late.size + 1);
            int i = late.size++;
            late.set(i, name, s, e, d, order);
            siftUp(i);
        }
    }

    /** Whether the earliest event is the run's front (else the heap's top); the queue must not be empty. */
    private boolean runFirst() {
        return late.size == 0 || head < run.size && run.compare(head, late, 0) < 0;
    }

    /** The earliest event's start (the queue must not be empty), and so on for its other fields. */
    long firstStart() {
        return runFirst() ? run.start[head] : late.start[0];
    }

    long firstEnd() {
        return runFirst() ? run.end[head] : late.end[0];
    }

    int firstName() {
        return runFirst() ? run.nameId[head] : late.nameId[0];
    }

    long firstDevice() {
        return runFirst() ? run.device[head] : late.device[0];
    }

    /** Drops the earliest event. */
    void removeFirst() {
        if (runFirst()) {
            if (++head == run.size) {
                head = 0;
                run.size = 0;
            }
            return;
        }
        int last = --late.size;
        if (last > 0) {
            late.move(last, 0);
            siftDown(0);
        }
    }

    /**
     * Hands the events inside {@code [s, e]} to {@code out}, each credited with {@code deviceNs}, in
     * post-order (as they would have left this queue); keeps the others.
     */
    void moveInside(long s, long e, PostOrderQueue out, long deviceNs) {
        Events moved = new Events();
        int kept = head;
        for (int i = head; i < run.size; i++) {
            kept = keepOrMove(run, i, kept, s, e, moved);
        }
        run.size = kept;
        kept = 0;
        for (int i = 0; i < late.size; i++) {
            kept = keepOrMove(late, i, kept, s, e, moved);
        }
        late.size = kept;
        for (int i = late.size / 2 - 1; i >= 0; i--) {
            siftDown(i);
        }
        Integer[] order = new Integer[moved.size];
        for (int k = 0; k < moved.size; k++) {
            order[k] = k;
        }
        Arrays.sort(order, (a, b) -> moved.compare(a, moved, b));
        for (int i : order) {
            out.add(moved.nameId[i], moved.start[i], moved.end[i], deviceNs);
        }
    }

    private static int keepOrMove(Events from, int i, int kept, long s, long e, Events moved) {
        if (from.start[i] >= s && from.end[i] <= e) {
            moved.ensure(moved.size + 1);
            moved.set(moved.size++, from.nameId[i], from.start[i], from.end[i], from.device[i], from.seq[i]);
            return kept;
        }
        from.move(i, kept);
        return kept + 1;
    }

    private void siftUp(int i) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (late.compare(i, late, parent) >= 0) {
                return;
            }
            swap(i, parent);
            i = parent;
        }
    }

    private void siftDown(int i) {
        while (true) {
            int left = 2 * i + 1;
            if (left >= late.size) {
                return;
            }
            int least = left + 1 < late.size && late.compare(left + 1, late, left) < 0 ? left + 1 : left;
            if (late.compare(least, late, i) >= 0) {
                return;
            }
            swap(i, least);
            i = least;
        }
    }

    private void swap(int a, int b) {
        int n = late.nameId[a];
        long s = late.start[a];
        long e = late.end[a];
        long d = late.device[a];
        long q = late.seq[a];
        late.move(b, a);
        late.set(b, n, s, e, d, q);
    }
}
