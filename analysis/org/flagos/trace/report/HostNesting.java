package org.flagos.trace.report;

import java.io.IOException;
import java.util.Arrays;
import org.flagos.trace.stages.KeyAveragesRule;

/**
 * The host events of a trace, one thread at a time in (start, longer first) order, nested with a
 * stack as torch's {@code _populate_cpu_children} nests them and measured by {@link KeyAveragesRule}
 * (every event a call; self CPU time the duration less the union of the children's spans, never
 * negative): each event gives one result record
 * {@code [start, -end, seq, rowKey, selfCpu, cpuTotal, selfDevice, deviceTotal]} (times as double
 * bits, microseconds, in torch's arithmetic).
 * Memory: the open events of one thread. Results go to the sink as each event closes (children before parents).
 */
final class HostNesting {
    private final long origin;
    private final DeviceTimeIndex device;
    private final RecordSink results;
    private final long[] out = new long[KeyAveragesBuilder.RESULT_WIDTH];

    // the open events, by depth
    private int depth;
    private long[] start = new long[64];
    private long[] end = new long[64];
    private long[] seq = new long[64];
    private int[] name = new int[64];
    private long[] link = new long[64];
    private double[] childCpu = new double[64];
    private double[] childDevice = new double[64];
    private KeyAveragesRule.UnionInStartOrder[] unions = new KeyAveragesRule.UnionInStartOrder[64];

    HostNesting(long origin, DeviceTimeIndex device, RecordSink results) {
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
            while (depth > 0 && !KeyAveragesRule.nests(start[depth - 1], end[depth - 1], s, e)) {
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
        childCpu[d] = 0;
        childDevice[d] = 0;
        if (unions[d] == null) {
            unions[d] = new KeyAveragesRule.UnionInStartOrder();
        }
        unions[d].reset();
    }

    private void close() throws IOException {
        int d = --depth;
        // torch's arithmetic: microseconds from the profile's start, as doubles
        double elapsed = (end[d] - origin) / 1000.0 - (start[d] - origin) / 1000.0;
        double kernels = link[d] == KeyAveragesBuilder.NO_LINK ? 0 : device.get(link[d]);
        KeyAveragesRule.UnionInStartOrder children = unions[d];
        // the rule's self time; where the children do not overlap their union is their sum, taken as torch takes it
        double selfCpu = children.overlapped() ? KeyAveragesRule.selfNs(end[d] - start[d], children.union()) / 1000.0
                : Math.max(0, elapsed - childCpu[d]);
        double deviceTotal = kernels + childDevice[d];
        out[0] = start[d];
        out[1] = -end[d];
        out[2] = seq[d];
        out[3] = KeyAveragesBuilder.hostRowKey(name[d]);
        out[4] = Double.doubleToRawLongBits(selfCpu);
        out[5] = Double.doubleToRawLongBits(elapsed);
        out[6] = Double.doubleToRawLongBits(deviceTotal - childDevice[d]); // torch's self device: total less children's
        out[7] = Double.doubleToRawLongBits(deviceTotal);
        results.add(out);
        if (d > 0) {
            int p = d - 1;
            childCpu[p] += elapsed;
            childDevice[p] += deviceTotal;
            children = unions[p];
            children.add(start[d], end[d], start[p], end[p]);
        }
    }

    private void grow() {
        int n = Math.min(KeyAveragesBuilder.MAX_DEPTH, start.length * 2);
        start = Arrays.copyOf(start, n);
        end = Arrays.copyOf(end, n);
        seq = Arrays.copyOf(seq, n);
        name = Arrays.copyOf(name, n);
        link = Arrays.copyOf(link, n);
        childCpu = Arrays.copyOf(childCpu, n);
        childDevice = Arrays.copyOf(childDevice, n);
        unions = Arrays.copyOf(unions, n);
    }
}
