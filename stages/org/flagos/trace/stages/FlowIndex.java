package org.flagos.trace.stages;

/**
 * Pairs the two ends of each flow arrow by vendor correlation id: the API call (the {@code s}
 * half) and the first device record it launched (the {@code f} half). An arrow is returned to the
 * walk the moment its second end arrives, and only then, so every arrow in the trace is paired;
 * the entry is then freed. An end that waits longer than the horizon (counted in ends stored
 * after it) is given up and counted: most are API calls that launched nothing (a synchronize, a
 * malloc), which never make an arrow anyway. So the index holds at most a horizon's worth of
 * ends, whatever the length of the capture.
 */
final class FlowIndex {
    private static final long NONE = -1;
    private static final byte FREE = 0;
    private static final byte HOST = 1;
    private static final byte DEVICE = 2;

    private final int horizon;
    /** Correlation to the store sequence of its waiting end; ends live in a ring by that sequence. */
    private final NearbyKeyMap index = new NearbyKeyMap(1 << 12, NONE); // nearby ids, nearby slots: NearbyKeyMap
    private long[] correlation = new long[1 << 12];
    private long[] ts = new long[1 << 12];
    private long[] pid = new long[1 << 12];
    private long[] tid = new long[1 << 12];
    private byte[] end = new byte[1 << 12];
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
        long s = index.get(corr);
        if (s == NONE) {
            store(corr, HOST, hostTs, hostPid, hostTid);
            return null;
        }
        int i = slot(s);
        if (end[i] != DEVICE) {
            return null;
        }
        index.remove(corr);
        end[i] = FREE;
        return arrow.set(corr, hostTs, hostPid, hostTid, ts[i], (int) pid[i], (int) tid[i]);
    }

    /**
     * A device record's end: the completed arrow when its launch was waiting (valid until the next
     * call), else null.
     */
    FlowArrow device(long corr, long deviceTs, int devicePid, int deviceTid) {
        long s = index.get(corr);
        if (s == NONE) {
            store(corr, DEVICE, deviceTs, devicePid, deviceTid);
            return null;
        }
        int i = slot(s);
        if (end[i] == HOST) {
            index.remove(corr);
            end[i] = FREE;
            return arrow.set(corr, ts[i], pid[i], tid[i], deviceTs, devicePid, deviceTid);
        }
        if (deviceTs < ts[i]) {
            ts[i] = deviceTs; // several device records, no launch yet: the arrow ends at the first
            pid[i] = devicePid;
            tid[i] = deviceTid;
        }
        return null;
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
            int i = slot(oldest++);
            if (end[i] != FREE) {
                index.remove(correlation[i]);
                end[i] = FREE;
                givenUp++;
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
        for (long s = oldest; s < next; s++) {
            int from = (int) (s & (n - 1));
            int to = (int) (s & (n * 2 - 1));
            c[to] = correlation[from];
            t[to] = ts[from];
            p[to] = pid[from];
            th[to] = tid[from];
            e[to] = end[from];
        }
        correlation = c;
        ts = t;
        pid = p;
        tid = th;
        end = e;
    }
}
