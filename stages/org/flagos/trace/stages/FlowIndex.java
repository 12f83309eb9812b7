package org.flagos.trace.stages;

import java.util.Arrays;
import org.flagos.trace.pipeline.LongIntHashMap;

/**
 * Pairs the two ends of each flow arrow by vendor correlation id: the API call (the {@code s}
 * half) and the first device record it launched (the {@code f} half). An arrow is handed to the
 * writer the moment its second end arrives, and only then, so every arrow in the trace is paired;
 * the entry is then freed for reuse. Ends that never meet (an API call that launched nothing)
 * stay until the capture ends and produce no arrow.
 */
final class FlowIndex {
    private static final int NONE = -1;
    private static final byte HOST = 1;
    private static final byte DEVICE = 2;

    /** Receives one complete arrow. */
    interface ArrowSink {
        void arrow(long correlation, long hostTs, long hostPid, long hostTid, long deviceTs, int devicePid, int deviceTid)
                throws java.io.IOException;
    }

    private final LongIntHashMap index = new LongIntHashMap(1 << 12, NONE);
    private long[] ts = new long[1 << 12];
    private long[] pid = new long[1 << 12];
    private long[] tid = new long[1 << 12];
    private byte[] end = new byte[1 << 12];
    private int[] free = new int[1 << 12];
    private int freeCount;
    private int used;

    void host(long correlation, long hostTs, long hostPid, long hostTid, ArrowSink sink) throws java.io.IOException {
        int i = index.get(correlation);
        if (i != NONE && end[i] == DEVICE) {
            index.remove(correlation);
            release(i);
            sink.arrow(correlation, hostTs, hostPid, hostTid, ts[i], (int) pid[i], (int) tid[i]);
        } else if (i == NONE) {
            store(correlation, HOST, hostTs, hostPid, hostTid);
        }
    }

    void device(long correlation, long deviceTs, int devicePid, int deviceTid, ArrowSink sink) throws java.io.IOException {
        int i = index.get(correlation);
        if (i != NONE && end[i] == HOST) {
            index.remove(correlation);
            release(i);
            sink.arrow(correlation, ts[i], pid[i], tid[i], deviceTs, devicePid, deviceTid);
        } else if (i == NONE) {
            store(correlation, DEVICE, deviceTs, devicePid, deviceTid);
        } else if (i != NONE && deviceTs < ts[i]) {
            ts[i] = deviceTs; // several device records, no launch yet: the arrow ends at the first
            pid[i] = devicePid;
            tid[i] = deviceTid;
        }
    }

    private void store(long correlation, byte side, long t, long p, long th) {
        int i;
        if (freeCount > 0) {
            i = free[--freeCount];
        } else {
            if (used == ts.length) {
                int n = used * 2;
                ts = Arrays.copyOf(ts, n);
                pid = Arrays.copyOf(pid, n);
                tid = Arrays.copyOf(tid, n);
                end = Arrays.copyOf(end, n);
            }
            i = used++;
        }
        end[i] = side;
        ts[i] = t;
        pid[i] = p;
        tid[i] = th;
        index.put(correlation, i);
    }

    private void release(int i) {
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = i;
    }
}
