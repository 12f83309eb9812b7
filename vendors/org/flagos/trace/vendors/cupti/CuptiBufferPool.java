package org.flagos.trace.vendors.cupti;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * Native activity buffers allocated once, when the tracer initializes, and handed to CUPTI on
 * request: nothing is allocated on the launch path (kineto users report launch-latency spikes when
 * buffers are allocated mid-capture). If every buffer is in flight, one more is allocated and
 * counted, rather than letting CUPTI drop records.
 *
 * <p>Each buffer is free, lent to CUPTI, being returned (zeroed), set aside (handed back by a stop's
 * forced flush, for a session), or orphaned: lent when CUPTI was detached. Every buffer is lent all zeros. A buffer is lent
 * to one CUPTI request at a time: one handed back twice is counted and ignored, never queued twice
 * (two requests given one buffer would interleave two streams of records in it). Calls are rare (one
 * per buffer, 1 MiB by default), so every state change holds the pool's lock; zeroing a returned
 * buffer does not.
 */
final class CuptiBufferPool {
    /**
     * 1 MiB (~11,000 records, about 7,000 launches of a kernel or memset with their API call and
     * binding) by default: {@code -Dflagtrace.cupti.bufferKiB=N} (64 to 65,536) sets another size.
     * A whole buffer fits in the live ring's 65,536 slots, so a delivery does not stall the callback
     * mid-buffer and starve user threads' ops of slots; and what CUPTI still holds when a session
     * closes (one buffer per context at most) and the ops held for it are what a close must still walk.
     * Measured on the H200 (2026-12-02, 100,000-op sessions, fresh JVMs): from close to trace 0.083 s
     * median with 2 MiB buffers (0.065-0.148, the JVM's first session), 0.057 s with 1 MiB (0.051-0.070);
     * earlier, 8 MiB took 0.14-0.18 s. CUPTI requires 8-byte aligned buffers; malloc gives 16.
     */
    static final int BUFFER_BYTES = bufferBytes();
    /** The most buffers the pool ever holds. */
    static final int CAPACITY = 256;
    /** 64 MiB in all, whatever the buffer size: the same room for bursts. */
    private static final int PREALLOCATED = Math.min(CAPACITY, Math.max(2, (64 << 20) / BUFFER_BYTES));
    private static final byte FREE = 0;
    private static final byte LENT = 1;
    private static final byte ORPHANED = 2;
    /** Handed back and being zeroed, outside the lock; free once zeroed. */
    private static final byte RETURNING = 3;
    /** Handed back by a stop's forced flush: set aside, untouched, until the next stop. */
    private static final byte SET_ASIDE = 4;

    private static int bufferBytes() {
        return bufferBytes(Integer.getInteger("flagtrace.cupti.bufferMiB"), Integer.getInteger("flagtrace.cupti.bufferKiB"));
    }

    /** The buffer size these settings give: {@code mib} (the older one) first, else {@code kib}, else 1 MiB; 64 KiB to 64 MiB. */
    static int bufferBytes(Integer mib, Integer kib) {
        long asked = mib != null ? (long) mib << 10 : kib != null ? kib : 1 << 10;
        return (int) Math.max(64, Math.min(64 << 10, asked)) << 10;
    }

    private final int bufferBytes;
    private final BytePointer[] all = new BytePointer[CAPACITY];
    private final byte[] state = new byte[CAPACITY];
    /** The detach that orphaned each orphaned buffer. */
    private final int[] orphanedAt = new int[CAPACITY];
    /** Indexes of the free buffers, a stack: the most recently returned (warm in cache) goes out first. */
    private final int[] free = new int[CAPACITY];
    private int freeCount;
    private int count;
    private int detaches;
    private long grown;
    private long returnedTwice;
    private long setAsideTotal;

    CuptiBufferPool() {
        this(BUFFER_BYTES, PREALLOCATED);
    }

    /** A pool of {@code preallocated} buffers of {@code bufferBytes} each, growing to {@link #CAPACITY}. */
    CuptiBufferPool(int bufferBytes, int preallocated) {
        this.bufferBytes = bufferBytes;
        for (int i = 0; i < Math.min(preallocated, CAPACITY); i++) {
            free[freeCount++] = allocate();
        }
    }

    private int allocate() {
        all[count] = new BytePointer(bufferBytes);
        Pointer.memset(all[count], 0, bufferBytes);
        return count++;
    }

    /** A buffer lent to CUPTI: a free one, or a newly allocated one when none is free; null past the cap. */
    synchronized BytePointer take() {
        int i;
        if (freeCount > 0) {
            i = free[--freeCount];
        } else if (count < CAPACITY) {
            i = allocate();
            grown++;
        } else {
            return null;
        }
        state[i] = LENT;
        return all[i];
    }

    /**
     * CUPTI handed the buffer at {@code address} back: it is free again. False when the pool does not
     * own it; a buffer already free is counted ({@link #returnedTwice()}) and stays free once.
     */
    boolean give(long address) {
        return give(address, bufferBytes);
    }

    /**
     * CUPTI handed the buffer at {@code address} back with {@code validSize} bytes written: they are
     * zeroed, outside the lock (a request for a buffer never waits on it), and the buffer is free
     * again. Every buffer is lent all zeros, so a record CUPTI had reserved but not yet written when it
     * handed a buffer over reads as kind 0 ({@code DecodeStats#unwritten}), never as an older
     * record left in the buffer. False when the pool does not own it; one already free or being
     * returned is counted ({@link #returnedTwice()}) and left alone.
     */
    boolean give(long address, long validSize) {
        return give(address, validSize, false);
    }

    /**
     * As {@link #give(long, long)}; {@code setAside}: the buffer came back from a stop's forced flush,
     * which hands over buffers with records still being written (their launching threads fill them in
     * after the hand-over): it is neither zeroed nor lent again until {@link #releaseSetAside()} at the
     * next stop, a session later, so no late write lands in a zeroed or re-lent buffer.
     */
    boolean give(long address, long validSize, boolean setAside) {
        int i;
        synchronized (this) {
            i = indexOf(address);
            if (i < 0) {
                return false;
            }
            if (state[i] == FREE || state[i] == RETURNING || state[i] == SET_ASIDE) {
                returnedTwice++;
                return true;
            }
            if (setAside) {
                state[i] = SET_ASIDE;
                setAsideTotal++;
                return true;
            }
            state[i] = RETURNING;
        }
        Pointer.memset(all[i], 0, Math.max(0, Math.min(validSize, bufferBytes)));
        synchronized (this) {
            release(i);
        }
        return true;
    }

    private int indexOf(long address) {
        for (int i = 0; i < count; i++) {
            if (all[i].address() == address) {
                return i;
            }
        }
        return -1;
    }

    private void release(int i) {
        state[i] = FREE;
        free[freeCount++] = i;
    }

    /**
     * CUPTI was detached. {@code cuptiFinalize} forgets the buffers it had requested and not handed
     * back (the forced flush before it returns only those holding records), so without taking them
     * back each detach leaked them: measured on the H200 (TeardownStress, 8 launching threads,
     * detaching at every stop), the pool reached its cap after 80 sessions and CUPTI dropped the
     * records it had no buffer for. But a completion may still be on its way back from CUPTI's own
     * thread when the detach returns, so the buffers still lent are orphaned, not freed: one that
     * comes back is free again, and one still out at the next detach (a whole session later) is
     * taken back then. Returns how many buffers this detach orphaned.
     */
    synchronized int orphanAtDetach() {
        detaches++;
        int orphaned = 0;
        for (int i = 0; i < count; i++) {
            if (state[i] == ORPHANED && orphanedAt[i] < detaches) {
                Pointer.memset(all[i], 0, bufferBytes); // what CUPTI wrote into it is unknown
                release(i);
            } else if (state[i] == LENT) {
                state[i] = ORPHANED;
                orphanedAt[i] = detaches;
                orphaned++;
            }
        }
        return orphaned;
    }

    /**
     * Frees the buffers set aside at the last stop (zeroed: what was written into them after the
     * hand-over is unknown); called at a stop, before its flush. Returns how many.
     */
    synchronized int releaseSetAside() {
        int released = 0;
        for (int i = 0; i < count; i++) {
            if (state[i] == SET_ASIDE) {
                Pointer.memset(all[i], 0, bufferBytes);
                release(i);
                released++;
            }
        }
        return released;
    }

    /** Buffers set aside at stops so far. */
    synchronized long setAsideTotal() {
        return setAsideTotal;
    }

    /** Buffers allocated past the preallocated ones. */
    synchronized long grown() {
        return grown;
    }

    /** Buffers handed back while already free: CUPTI completed one twice, or a detach raced a completion. */
    synchronized long returnedTwice() {
        return returnedTwice;
    }

    /** Buffers free now. */
    synchronized int free() {
        return freeCount;
    }
}
