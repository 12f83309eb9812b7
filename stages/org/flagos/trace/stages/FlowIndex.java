package org.flagos.trace.stages;

import org.flagos.trace.model.NearbyKeyMap;

/**
 * Pairs the two ends of each flow arrow by vendor correlation id: the API call (the {@code s}
 * half) and the first device record it launched (the {@code f} half). An arrow is returned to the
 * walk the moment its second end arrives, and only then, so every arrow in the trace is paired;
 * the entry is then freed. An end that waits longer than the horizon (counted in ends stored
 * after it) is given up and counted: most are API calls that launched nothing (a synchronize, a
 * malloc), which never make an arrow anyway. So the index holds at most a horizon's worth of
 * ends, whatever the length of the capture.
 *
 * <p>A graph launch is one API call with many device records (every kernel, copy and set of the
 * graph carries the launch's correlation): each gets an arrow of its own. The launch's end stays
 * after its first arrow, for the graph records still to come, and graph records that arrive before
 * their launch wait side by side (chained by correlation) until it comes. A graph record's arrow
 * has the id {@code correlation + (node + 1)·2^32}, node being the low 20 bits of its graph node id
 * (CUPTI's correlations are 32 bits, so the id is unique for up to 2^20 nodes per graph and stays
 * below 2^53, exact in a JSON reader's doubles), whatever order the records arrive in. A launch end
 * kept this way that then reaches the horizon paired already: it is not counted as given up.
 */
final class FlowIndex {
    private static final long NONE = -1;
    private static final byte FREE = 0;
    private static final byte HOST = 1;
    private static final byte DEVICE = 2;
    /** A launch end that has paired with a graph record and stays for the graph's other records. */
    private static final byte HOST_FANNED = 3;
    /** A graph record's end waiting for its launch, chained to earlier ones of the same correlation. */
    private static final byte GRAPH_DEVICE = 4;
    private static final long NODE_BITS = (1L << 20) - 1;

    private final int horizon;
    /** Correlation to the store sequence of its waiting end; ends live in a ring by that sequence. */
    private final NearbyKeyMap index = new NearbyKeyMap(1 << 12, NONE); // nearby ids, nearby slots: NearbyKeyMap
    private long[] correlation = new long[1 << 12];
    private long[] ts = new long[1 << 12];
    private long[] pid = new long[1 << 12];
    private long[] tid = new long[1 << 12];
    private byte[] end = new byte[1 << 12];
    /**
     * Graph ends only: the graph node of a waiting graph record; the previous waiting graph end of the
     * same correlation. Read only at a {@link #GRAPH_DEVICE} end, which writes both: made at the first
     * graph record, so that a capture without graphs grows and fills five columns, not seven.
     */
    private long[] node;
    private long[] previous;
    /** The graph ends a launch completes at once, handed out one by one ({@link #nextArrow}). */
    private long pendingFrom = NONE;
    private long pendingCorrelation;
    private long pendingHostTs;
    private long pendingHostPid;
    private long pendingHostTid;
    private long oldest;
    private long next;
    private long givenUp;
    /** The arrow the last call completed; one object, refilled (no allocation per arrow). */
    private final FlowArrow arrow = new FlowArrow();

    FlowIndex(int horizon) {
        this.horizon = horizon;
    }

    /**
     * The API call's end: the completed arrow when its device end was waiting (valid until the next
     * call), else null.
     */
    FlowArrow host(long corr, long hostTs, long hostPid, long hostTid) {
        pendingFrom = NONE;
        long s = index.get(corr);
        if (s == NONE) {
            store(corr, HOST, hostTs, hostPid, hostTid);
            return null;
        }
        int i = slot(s);
        if (end[i] == GRAPH_DEVICE) {
            return graphLaunch(corr, s, hostTs, hostPid, hostTid);
        }
        if (end[i] != DEVICE) {
            return null;
        }
        index.remove(corr);
        end[i] = FREE;
        return arrow.set(corr, corr, hostTs, hostPid, hostTid, ts[i], (int) pid[i], (int) tid[i]);
    }

    /**
     * A device record's end: the completed arrow when its launch was waiting (valid until the next
     * call), else null.
     */
    FlowArrow device(long corr, long deviceTs, int devicePid, int deviceTid) {
        return device(corr, deviceTs, devicePid, deviceTid, NONE);
    }

    /**
     * A device record's end; {@code graphNode} is its graph node id when it was launched from a
     * graph (its launch may have more), else -1: the completed arrow when its launch was waiting
     * (valid until the next call), else null.
     */
    FlowArrow device(long corr, long deviceTs, int devicePid, int deviceTid, long graphNode) {
        pendingFrom = NONE;
        boolean graph = graphNode != NONE;
        long s = index.get(corr);
        if (s == NONE) {
            store(corr, graph ? GRAPH_DEVICE : DEVICE, deviceTs, devicePid, deviceTid);
            if (graph) {
                graphEnd(graphNode, NONE);
            }
            return null;
        }
        int i = slot(s);
        if (graph && (end[i] == HOST || end[i] == HOST_FANNED)) {
            end[i] = HOST_FANNED;
            return arrow.set(graphArrowId(corr, graphNode), corr, ts[i], pid[i], tid[i], deviceTs, devicePid, deviceTid);
        }
        if (graph && end[i] == GRAPH_DEVICE) {
            long head = s;
            store(corr, GRAPH_DEVICE, deviceTs, devicePid, deviceTid);
            graphEnd(graphNode, head);
            return null;
        }
        if (end[i] == HOST_FANNED || end[i] == GRAPH_DEVICE) {
            return null; // a record outside the graph with a graph launch's correlation: no arrow of its own
        }
        if (end[i] == HOST) {
            index.remove(corr);
            end[i] = FREE;
            return arrow.set(corr, corr, ts[i], pid[i], tid[i], deviceTs, devicePid, deviceTid);
        }
        if (deviceTs < ts[i]) {
            ts[i] = deviceTs; // several device records, no launch yet: the arrow ends at the first
            pid[i] = devicePid;
            tid[i] = deviceTid;
        }
        return null;
    }

    /**
     * The graph records a launch completed at once: the first arrow came from {@link #host}, this
     * hands out the next (valid until the next call), null when there are no more.
     */
    FlowArrow nextArrow() {
        while (pendingFrom != NONE) {
            long s = pendingFrom;
            int i = slot(s);
            if (s < oldest || end[i] != GRAPH_DEVICE || correlation[i] != pendingCorrelation) {
                pendingFrom = NONE; // the rest of the chain was given up at the horizon
                return null;
            }
            pendingFrom = previous[i];
            end[i] = FREE;
            return arrow.set(graphArrowId(pendingCorrelation, node[i]), pendingCorrelation, pendingHostTs, pendingHostPid,
                    pendingHostTid, ts[i], (int) pid[i], (int) tid[i]);
        }
        return null;
    }

    /** The id of a graph record's arrow: its correlation and its node, see the class comment. */
    static long graphArrowId(long corr, long graphNode) {
        return corr + (((graphNode & NODE_BITS) + 1) << 32);
    }

    /**
     * A launch whose graph records are waiting (the newest at {@code head}): they are handed out one
     * by one from the newest, and the launch stays, paired, for graph records still to come.
     */
    private FlowArrow graphLaunch(long corr, long head, long hostTs, long hostPid, long hostTid) {
        index.remove(corr);
        pendingCorrelation = corr;
        pendingHostTs = hostTs;
        pendingHostPid = hostPid;
        pendingHostTid = hostTid;
        pendingFrom = head;
        FlowArrow first = nextArrow();
        long from = pendingFrom;
        store(corr, HOST_FANNED, hostTs, hostPid, hostTid); // the launch stays for graph records still to come
        pendingFrom = from;
        return first;
    }

    /**
     * The slot of the API call {@code corr} while it waits here unpaired (a malloc, which launches
     * nothing, waits a horizon), else -1; read its thread with {@link #pidAt} and {@link #tidAt}.
     */
    int waitingHost(long corr) {
        long s = index.get(corr);
        if (s == NONE) {
            return -1;
        }
        int i = slot(s);
        return end[i] == HOST ? i : -1;
    }

    long pidAt(int slot) {
        return pid[slot];
    }

    long tidAt(int slot) {
        return tid[slot];
    }

    /** Ends given up unpaired at the horizon. */
    long givenUp() {
        return givenUp;
    }

    /** Ends waiting now. */
    int waiting() {
        return index.size();
    }

    private void store(long corr, byte side, long t, long p, long th) {
        while (oldest < next && (end[slot(oldest)] == FREE || next - oldest >= horizon)) {
            long evicted = oldest++;
            int i = slot(evicted);
            if (end[i] != FREE) {
                if (index.get(correlation[i]) == evicted) { // a chain's older graph ends are not its index entry
                    index.remove(correlation[i]);
                }
                if (end[i] != HOST_FANNED) {
                    givenUp++;
                }
                end[i] = FREE;
            }
        }
        if (next - oldest == ts.length) {
            grow();
        }
        int i = slot(next);
        correlation[i] = corr;
        end[i] = side;
        ts[i] = t;
        pid[i] = p;
        tid[i] = th;
        index.put(corr, next++);
    }

    /** The graph node and the previous graph end of the same correlation, for the end just stored. */
    private void graphEnd(long graphNode, long previousEnd) {
        if (node == null) {
            node = new long[ts.length];
            previous = new long[ts.length];
        }
        int i = slot(next - 1);
        node[i] = graphNode;
        previous[i] = previousEnd;
    }

    private int slot(long sequence) {
        return (int) (sequence & (ts.length - 1));
    }

    private void grow() {
        int n = ts.length;
        long[] c = new long[n * 2];
        long[] t = new long[n * 2];
        long[] p = new long[n * 2];
        long[] th = new long[n * 2];
        byte[] e = new byte[n * 2];
        long[] no = node == null ? null : new long[n * 2];
        long[] pr = node == null ? null : new long[n * 2];
        for (long s = oldest; s < next; s++) {
            int from = (int) (s & (n - 1));
            int to = (int) (s & (n * 2 - 1));
            c[to] = correlation[from];
            t[to] = ts[from];
            p[to] = pid[from];
            th[to] = tid[from];
            e[to] = end[from];
            if (no != null) {
                no[to] = node[from];
                pr[to] = previous[from];
            }
        }
        node = no;
        previous = pr;
        correlation = c;
        ts = t;
        pid = p;
        tid = th;
        end = e;
    }
}
