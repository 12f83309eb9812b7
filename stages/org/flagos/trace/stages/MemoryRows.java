package org.flagos.trace.stages;

import java.io.IOException;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.NearbyKeyMap;
import org.flagos.trace.model.RecordLimits;
import org.flagos.trace.model.TraceRecord;

/**
 * Device-memory records (allocations and releases) on their way to the sink as torch's
 * {@code [memory]} instants: each goes on the host thread of the runtime call that asked for it,
 * found by correlation id, and carries the running total allocated on its device.
 *
 * <p>The vendor's memory record has no thread. Its runtime call is found either waiting in the
 * walk's {@link FlowIndex} (a malloc launches nothing, so its call waits there for a horizon) or,
 * when the memory record comes first (CUPTI writes it inside the call, before the call's own record),
 * by holding the memory record until its call is walked. One waits for its call at most {@link
 * #HORIZON} arrivals at the walk, as ten numbers (no record copy); then, or at the end of the
 * capture, it goes on thread 0 of its process and is counted ({@link #withoutThread()}).
 *
 * <p>Events are drawn in time order (then arrival order), each once a horizon of arrivals has
 * passed since it came (or at the end of the capture), so the totals, summed per device as they are
 * drawn, do not depend on the order buffers complete in. A release of memory allocated before the
 * capture would take the total below zero: the total stays at zero and the release is counted
 * ({@link #unseenReleases()}).
 */
final class MemoryRows {
    /** Arrivals a memory record waits (for its runtime call, then for time order): at most 2 × 65,536 × 80 B held. */
    static final int HORIZON = 1 << 16;
    private static final long NONE = -1;
    private static final MemoryKind[] KINDS = MemoryKind.values();

    private final TraceSink sink;
    private final MemoryRow row = new MemoryRow();
    /** Per device (index = device + 1; 0 is host memory): bytes allocated and not released. */
    private final long[] total = new long[RecordLimits.MAX_DEVICES + 1];
    /** Correlation to the sequence of the first record waiting for its call with it. */
    private final NearbyKeyMap waitingByCorrelation = new NearbyKeyMap(1 << 8, NONE);

    // The records not drawn yet, in a ring by arrival sequence.
    private long[] correlation = new long[1 << 8];
    private long[] tsNs = new long[1 << 8];
    private long[] pid = new long[1 << 8];
    private long[] tid = new long[1 << 8];
    private long[] address = new long[1 << 8];
    private long[] bytes = new long[1 << 8];
    /** Device ordinal, memory-kind ordinal and release flag, packed. */
    private long[] what = new long[1 << 8];
    private long[] arrivedAt = new long[1 << 8];
    /** The next record waiting for the same call, or NONE. */
    private long[] next = new long[1 << 8];
    private byte[] state = new byte[1 << 8];
    private static final byte DRAWN = 0;
    private static final byte WAITING = 1;
    private static final byte READY = 2;
    /** READY records by time, then sequence: a binary heap of sequences. */
    private long[] heap = new long[1 << 8];
    private int heapSize;

    private long oldest;
    private long nextSequence;
    private long held;
    private long clock;
    private long maxHeld;

    private long withoutThread;
    private long unseenReleases;
    private long drawn;

    private final java.util.function.LongSupplier opRowsWritten;

    /** @param opRowsWritten the op rows written so far: {@code Ev Idx} numbers op rows and memory events together */
    MemoryRows(TraceSink sink, java.util.function.LongSupplier opRowsWritten) {
        this.sink = sink;
        this.opRowsWritten = opRowsWritten;
    }

    /** A memory record reaching the walk: ready when its call's thread is known, else waiting for the call. */
    void record(TraceRecord r, FlowIndex flows) throws IOException {
        long s = store(r);
        int i = slot(s);
        if (!r.hasCorrelation()) {
            ready(s, r.processId, 0);
            withoutThread++;
        } else {
            int call = flows.waitingHost(r.correlation());
            if (call >= 0) {
                ready(s, flows.pidAt(call), flows.tidAt(call));
            } else {
                state[i] = WAITING;
                long head = waitingByCorrelation.get(r.correlation());
                if (head == NONE) {
                    waitingByCorrelation.put(r.correlation(), s);
                } else {
                    long t = head;
                    while (next[slot(t)] != NONE) {
                        t = next[slot(t)];
                    }
                    next[slot(t)] = s; // a second record of one call (a duplicate): drawn after the first
                }
            }
        }
    }

    /** Memory records not drawn yet. */
    long held() {
        return held;
    }

    /** A runtime call reaching the walk: the memory records waiting for it go on its thread. */
    void api(TraceRecord api) {
        if (held == 0 || !api.hasCorrelation()) {
            return;
        }
        long s = waitingByCorrelation.remove(api.correlation());
        while (s != NONE) {
            int i = slot(s);
            ready(s, api.processId, api.threadId);
            s = next[i];
        }
    }

    /**
     * One more arrival at the walk while records are held: those that waited a horizon for their
     * call go on thread 0; those ready a horizon are drawn, in time order.
     */
    void arrival() throws IOException {
        clock++;
        while (oldest < nextSequence) {
            int i = slot(oldest);
            if (state[i] == DRAWN) {
                oldest++;
            } else if (clock - arrivedAt[i] <= HORIZON) {
                break;
            } else {
                if (state[i] == WAITING) {
                    giveUpWaiting(oldest);
                }
                drawEarliest(); // the oldest is ready now: draw up to it, earliest first
            }
        }
    }

    /** The end of the capture: no call can come any more; everything held is drawn, in time order. */
    void finish() throws IOException {
        for (long s = oldest; s < nextSequence; s++) {
            if (state[slot(s)] == WAITING) {
                giveUpWaiting(s);
            }
        }
        while (heapSize > 0) {
            drawEarliest();
        }
        oldest = nextSequence;
    }

    /** Records drawn on thread 0: no correlation, or no runtime call seen within the horizon. */
    long withoutThread() {
        return withoutThread;
    }

    /** Releases that would have taken a device's total below zero (memory allocated before the capture). */
    long unseenReleases() {
        return unseenReleases;
    }

    /** Memory events drawn. */
    long drawn() {
        return drawn;
    }

    /** The most records held at once. */
    long maxHeld() {
        return maxHeld;
    }

    private void giveUpWaiting(long s) {
        int i = slot(s);
        long corr = correlation[i];
        long head = waitingByCorrelation.get(corr);
        if (head == s) { // the oldest of a chain is its head
            if (next[i] != NONE) {
                waitingByCorrelation.put(corr, next[i]);
            } else {
                waitingByCorrelation.remove(corr);
            }
        }
        ready(s, pid[i], 0);
        withoutThread++;
    }

    private long store(TraceRecord r) {
        if (nextSequence - oldest == tsNs.length) {
            grow();
        }
        long s = nextSequence++;
        int i = slot(s);
        correlation[i] = r.correlation();
        tsNs[i] = r.startNs;
        pid[i] = r.processId;
        tid[i] = 0;
        address[i] = r.address;
        bytes[i] = r.bytes;
        what[i] = ((long) r.device << 32) | ((long) (r.memoryKind == null ? 0 : r.memoryKind.ordinal()) << 1)
                | (r.memoryRelease ? 1 : 0);
        arrivedAt[i] = clock;
        next[i] = NONE;
        held++;
        maxHeld = Math.max(maxHeld, held);
        return s;
    }

    private void ready(long s, long p, long t) {
        int i = slot(s);
        state[i] = READY;
        pid[i] = p;
        tid[i] = t;
        if (heapSize == heap.length) {
            heap = java.util.Arrays.copyOf(heap, heapSize * 2);
        }
        int k = heapSize++;
        while (k > 0) {
            int parent = (k - 1) >>> 1;
            if (!before(s, heap[parent])) {
                break;
            }
            heap[k] = heap[parent];
            k = parent;
        }
        heap[k] = s;
    }

    /** True when sequence {@code a} is drawn before {@code b}: earlier time, then earlier arrival. */
    private boolean before(long a, long b) {
        long ta = tsNs[slot(a)];
        long tb = tsNs[slot(b)];
        return ta < tb || (ta == tb && a < b);
    }

    private void drawEarliest() throws IOException {
        long s = heap[0];
        long last = heap[--heapSize];
        int k = 0;
        while (true) {
            int c = 2 * k + 1;
            if (c >= heapSize) {
                break;
            }
            if (c + 1 < heapSize && before(heap[c + 1], heap[c])) {
                c++;
            }
            if (!before(heap[c], last)) {
                break;
            }
            heap[k] = heap[c];
            k = c;
        }
        if (heapSize > 0) {
            heap[k] = last;
        }
        int i = slot(s);
        state[i] = DRAWN;
        held--;
        long w = what[i];
        draw(tsNs[i], pid[i], tid[i], (int) (w >> 32), KINDS[(int) ((w >> 1) & 0x7FFF)], address[i], bytes[i], (w & 1) != 0);
    }

    private void draw(long ts, long p, long t, int device, MemoryKind kind, long addr, long size, boolean release)
            throws IOException {
        boolean host = kind == MemoryKind.PINNED || kind == MemoryKind.PAGEABLE;
        int index = host || device < 0 || device >= RecordLimits.MAX_DEVICES ? 0 : device + 1;
        long after = release ? total[index] - size : total[index] + size;
        if (after < 0) {
            after = 0;
            unseenReleases++;
        }
        total[index] = after;
        row.pid = p;
        row.tid = t;
        row.tsNs = ts;
        row.deviceType = host ? MemoryRow.DEVICE_TYPE_CPU : MemoryRow.DEVICE_TYPE_CUDA;
        row.deviceId = host ? -1 : device;
        row.address = addr;
        row.bytes = release ? -size : size;
        row.totalAllocated = after;
        row.totalReserved = after;
        row.evIdx = opRowsWritten.getAsLong() + drawn;
        drawn++;
        sink.memoryInstant(row);
    }

    private int slot(long sequence) {
        return (int) (sequence & (tsNs.length - 1));
    }

    private void grow() {
        int n = tsNs.length;
        long[] c = new long[n * 2];
        long[] ts = new long[n * 2];
        long[] p = new long[n * 2];
        long[] th = new long[n * 2];
        long[] a = new long[n * 2];
        long[] b = new long[n * 2];
        long[] w = new long[n * 2];
        long[] at = new long[n * 2];
        long[] nx = new long[n * 2];
        byte[] st = new byte[n * 2];
        for (long s = oldest; s < nextSequence; s++) {
            int from = (int) (s & (n - 1));
            int to = (int) (s & (n * 2 - 1));
            c[to] = correlation[from];
            ts[to] = tsNs[from];
            p[to] = pid[from];
            th[to] = tid[from];
            a[to] = address[from];
            b[to] = bytes[from];
            w[to] = what[from];
            at[to] = arrivedAt[from];
            nx[to] = next[from];
            st[to] = state[from];
        }
        correlation = c;
        tsNs = ts;
        pid = p;
        tid = th;
        address = a;
        bytes = b;
        what = w;
        arrivedAt = at;
        next = nx;
        state = st;
    }
}
