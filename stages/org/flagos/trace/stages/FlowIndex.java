package org.flagos.trace.stages;

import java.util.Arrays;
import org.flagos.trace.pipeline.LongIntHashMap;

/**
 * Where each vendor correlation id's two flow-arrow ends were written: the API call (the
 * {@code s} half) and its first device record (the {@code f} half). Arrows are emitted at the end
 * of the capture, only for ids that have both ends inside the trace, so every arrow a viewer sees
 * is paired.
 */
final class FlowIndex {
    private static final int NONE = -1;

    private final LongIntHashMap index = new LongIntHashMap(1 << 12, NONE);
    private long[] correlation = new long[1 << 12];
    private long[] hostTs = new long[1 << 12];
    private long[] hostPid = new long[1 << 12];
    private long[] hostTid = new long[1 << 12];
    private long[] deviceTs = new long[1 << 12];
    private int[] devicePid = new int[1 << 12];
    private int[] deviceTid = new int[1 << 12];
    private byte[] ends = new byte[1 << 12];
    private int size;

    private static final byte HOST = 1;
    private static final byte DEVICE = 2;

    void host(long correlationId, long ts, long pid, long tid) {
        int i = slot(correlationId);
        if ((ends[i] & HOST) == 0) {
            ends[i] |= HOST;
            hostTs[i] = ts;
            hostPid[i] = pid;
            hostTid[i] = tid;
        }
    }

    void device(long correlationId, long ts, int pid, int tid) {
        int i = slot(correlationId);
        if ((ends[i] & DEVICE) == 0 || ts < deviceTs[i]) {
            ends[i] |= DEVICE;
            deviceTs[i] = ts;
            devicePid[i] = pid;
            deviceTid[i] = tid;
        }
    }

    private int slot(long correlationId) {
        int i = index.get(correlationId);
        if (i != NONE) {
            return i;
        }
        if (size == correlation.length) {
            int n = size * 2;
            correlation = Arrays.copyOf(correlation, n);
            hostTs = Arrays.copyOf(hostTs, n);
            hostPid = Arrays.copyOf(hostPid, n);
            hostTid = Arrays.copyOf(hostTid, n);
            deviceTs = Arrays.copyOf(deviceTs, n);
            devicePid = Arrays.copyOf(devicePid, n);
            deviceTid = Arrays.copyOf(deviceTid, n);
            ends = Arrays.copyOf(ends, n);
        }
        i = size++;
        correlation[i] = correlationId;
        ends[i] = 0;
        index.put(correlationId, i);
        return i;
    }

    int size() {
        return size;
    }

    boolean paired(int i) {
        return ends[i] == (HOST | DEVICE);
    }

    long correlation(int i) {
        return correlation[i];
    }

    long hostTs(int i) {
        return hostTs[i];
    }

    long hostPid(int i) {
        return hostPid[i];
    }

    long hostTid(int i) {
        return hostTid[i];
    }

    long deviceTs(int i) {
        return deviceTs[i];
    }

    int devicePid(int i) {
        return devicePid[i];
    }

    int deviceTid(int i) {
        return deviceTid[i];
    }
}
