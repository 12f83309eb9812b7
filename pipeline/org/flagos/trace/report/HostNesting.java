package org.flagos.trace.report;

import java.io.IOException;
import java.util.Arrays;

/**
 * The host events of a trace, one thread at a time in (start, longer first) order, nested with a
 * stack as torch's {@code _populate_cpu_children} nests them, folded as its
 * {@code _remove_dup_nodes} folds them, and measured: each event that stays a row gives one result
 * record {@code [start, -end, seq, rowKey, selfCpu, cpuTotal, selfDevice, deviceTotal]} (times as
 * double bits, microseconds). Memory: the open events of one thread.
 *
 * <p>The fold works bottom-up as events close: an event's first child waits (its result not yet
 * given out) until a second child comes or the event closes; an event that closes with that one
 * child, of its own name, takes the child's children and device link and the child is dropped.
 * This reaches the same fixed point as torch's repeated top-down passes.
 *
 * <p>Self CPU time is the duration less the children's durations, in torch's arithmetic, when the
 * children do not overlap; when they do (ops that cross without nesting), it is the duration less
 * the union of the children's spans, never below zero.
 */
final class HostNesting {
    private final long origin;
    private final DeviceTimeIndex device;
    private final RecordSorter results;
    private final long[] out = new long[KeyAveragesBuilder.RESULT_WIDTH];

    // the open events, by depth
    private int depth;
    private long[] start = new long[64];
    private long[] end = new long[64];
    private long[] seq = new long[64];
    private int[] name = new int[64];
    private long[] link = new long[64];
    private int[] children = new int[64];
    private double[] childCpu = new double[64];
    private double[] childDevice = new double[64];
    private long[] union = new long[64];
    private long[] covered = new long[64];
    private boolean[] overlap = new boolean[64];
    // the first child of each open event, waiting to be folded into it or given out
    private boolean[] waiting = new boolean[64];
    private int[] wName = new int[64];
    private long[] wLink = new long[64];
    private int[] wChildren = new int[64];
    private double[] wChildCpu = new double[64];
    private double[] wChildDevice = new double[64];
    private long[] wUnion = new long[64];
    private boolean[] wOverlap = new boolean[64];
    private long[][] wResult = new long[64][];

    HostNesting(long origin, DeviceTimeIndex device, RecordSorter results) {
        this.origin = origin;
        this.device = device;
        this.results = results;
    }

    /**
     * Runs over {@code host} (records {@code [row, start, -end, seq, name<<8|class, link]} in order)
     * merged with the overhead events, which {@code overheadOrder} lists in the same order.
     */
    void run(RecordSorter.Cursor host, OverheadEvents overhead, int[] overheadOrder) throws IOException {
        long[] r = new long[KeyAveragesBuilder.HOST_WIDTH];
        boolean hasHost = host.next(r);
        int k = 0;
        long currentThread = Long.MIN_VALUE;
        while (hasHost || k < overheadOrder.length) {
            boolean takeOverhead = !hasHost || k < overheadOrder.length && before(overhead, overheadOrder[k], r);
            long thread;
            long s;
            long e;
            long sq;
            int nm;
            long ln;
            if (takeOverhead) {
                int o = overheadOrder[k++];
                thread = overhead.thread[o];
                s = overhead.start[o];
                e = overhead.end[o];
                sq = overhead.seq[o];
                nm = overhead.name[o];
                ln = overhead.link[o];
            } else {
                thread = r[0];
                s = r[1];
                e = -r[2];
                sq = r[3];
                nm = (int) (r[4] >>> 8);
                ln = r[5];
                hasHost = host.next(r);
            }
            if (thread != currentThread) {
                closeAll();
                currentThread = thread;
            }
            while (depth > 0 && (s >= end[depth - 1] || e > end[depth - 1])) {
                close();
            }
            open(s, e, sq, nm, ln);
        }
        closeAll();
    }

    private static boolean before(OverheadEvents ov, int o, long[] r) {
        int c = Long.compare(ov.thread[o], r[0]);
        if (c == 0) {
            c = Long.compare(ov.start[o], r[1]);
        }
        if (c == 0) {
            c = Long.compare(-ov.end[o], r[2]);
        }
        return c != 0 ? c < 0 : ov.seq[o] < r[3];
    }

    private void closeAll() throws IOException {
        while (depth > 0) {
            close();
        }
    }

    private void open(long s, long e, long sq, int nm, long ln) throws TraceLimitException {
        if (depth == start.length) {
            if (depth == KeyAveragesBuilder.MAX_DEPTH) {
                throw KeyAveragesBuilder.tooDeep();
            }
            grow();
        }
        int d = depth++;
        start[d] = s;
        end[d] = e;
        seq[d] = sq;
        name[d] = nm;
        link[d] = ln;
        children[d] = 0;
        childCpu[d] = 0;
        childDevice[d] = 0;
        union[d] = 0;
        covered[d] = Long.MIN_VALUE;
        overlap[d] = false;
        waiting[d] = false;
    }

    private void close() throws IOException {
        int d = --depth;
        if (waiting[d]) {
            waiting[d] = false;
            if (children[d] == 1 && wName[d] == name[d]) { // torch's _remove_dup_nodes: the child goes
                children[d] = wChildren[d];
                childCpu[d] = wChildCpu[d];
                childDevice[d] = wChildDevice[d];
                union[d] = wUnion[d];
                overlap[d] = wOverlap[d];
                link[d] = wLink[d];
            } else {
                results.add(wResult[d]);
            }
        }
        // torch's arithmetic: microseconds from the profile's start, as doubles
        double elapsed = (end[d] - origin) / 1000.0 - (start[d] - origin) / 1000.0;
        double kernels = link[d] == KeyAveragesBuilder.NO_LINK ? 0 : device.get(link[d]);
        double selfCpu = overlap[d] ? Math.max(0, (end[d] - start[d] - union[d]) / 1000.0) : Math.max(0, elapsed - childCpu[d]);
        double deviceTotal = kernels + childDevice[d];
        double selfDevice = deviceTotal - childDevice[d];
        out[0] = start[d];
        out[1] = -end[d];
        out[2] = seq[d];
        out[3] = KeyAveragesBuilder.hostRowKey(name[d]);
        out[4] = Double.doubleToRawLongBits(selfCpu);
        out[5] = Double.doubleToRawLongBits(elapsed);
        out[6] = Double.doubleToRawLongBits(selfDevice);
        out[7] = Double.doubleToRawLongBits(deviceTotal);
        if (d == 0) {
            results.add(out);
            return;
        }
        int p = d - 1;
        children[p]++;
        childCpu[p] += elapsed;
        childDevice[p] += deviceTotal;
        if (start[d] < covered[p]) {
            overlap[p] = true;
        }
        long from = Math.max(start[d], covered[p]);
        if (end[d] > from) {
            union[p] += end[d] - from;
        }
        covered[p] = Math.max(covered[p], end[d]);
        if (children[p] == 1) {
            waiting[p] = true;
            wName[p] = name[d];
            wLink[p] = link[d];
            wChildren[p] = children[d];
            wChildCpu[p] = childCpu[d];
            wChildDevice[p] = childDevice[d];
            wUnion[p] = union[d];
            wOverlap[p] = overlap[d];
            if (wResult[p] == null) {
                wResult[p] = new long[KeyAveragesBuilder.RESULT_WIDTH];
            }
            System.arraycopy(out, 0, wResult[p], 0, out.length);
        } else {
            if (waiting[p]) {
                waiting[p] = false;
                results.add(wResult[p]);
            }
            results.add(out);
        }
    }

    private void grow() {
        int n = Math.min(KeyAveragesBuilder.MAX_DEPTH, start.length * 2);
        start = Arrays.copyOf(start, n);
        end = Arrays.copyOf(end, n);
        seq = Arrays.copyOf(seq, n);
        name = Arrays.copyOf(name, n);
        link = Arrays.copyOf(link, n);
        children = Arrays.copyOf(children, n);
        childCpu = Arrays.copyOf(childCpu, n);
        childDevice = Arrays.copyOf(childDevice, n);
        union = Arrays.copyOf(union, n);
        covered = Arrays.copyOf(covered, n);
        overlap = Arrays.copyOf(overlap, n);
        waiting = Arrays.copyOf(waiting, n);
        wName = Arrays.copyOf(wName, n);
        wLink = Arrays.copyOf(wLink, n);
        wChildren = Arrays.copyOf(wChildren, n);
        wChildCpu = Arrays.copyOf(wChildCpu, n);
        wChildDevice = Arrays.copyOf(wChildDevice, n);
        wUnion = Arrays.copyOf(wUnion, n);
        wOverlap = Arrays.copyOf(wOverlap, n);
        wResult = Arrays.copyOf(wResult, n);
    }
}
