package org.flagos.trace.vendors.cupti;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.BytePointer;

/**
 * Native activity buffers allocated once, when the tracer initializes, and handed to CUPTI on
 * request: nothing is allocated on the launch path (kineto users report launch-latency spikes when
 * buffers are allocated mid-capture). If every buffer is in flight, one more is allocated and
 * counted, rather than letting CUPTI drop records.
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
    /** 64 MiB in all, whatever the buffer size: the same room for bursts. */
    private static final int PREALLOCATED = Math.min(256, Math.max(2, (64 << 20) / BUFFER_BYTES));

    private static int bufferBytes() {
        return bufferBytes(Integer.getInteger("flagtrace.cupti.bufferMiB"), Integer.getInteger("flagtrace.cupti.bufferKiB"));
    }

    /** The buffer size these settings give: {@code mib} (the older one) first, else {@code kib}, else 1 MiB; 64 KiB to 64 MiB. */
    static int bufferBytes(Integer mib, Integer kib) {
        long asked = mib != null ? (long) mib << 10 : kib != null ? kib : 1 << 10;
        return (int) Math.max(64, Math.min(64 << 10, asked)) << 10;
    }

    private final ArrayBlockingQueue<BytePointer> free = new ArrayBlockingQueue<>(256);
    private final BytePointer[] all = new BytePointer[256];
    private int count;
    private final AtomicLong grown = new AtomicLong();

    CuptiBufferPool() {
        for (int i = 0; i < PREALLOCATED; i++) {
            add();
        }
    }

    private synchronized BytePointer add() {
        if (count == all.length) {
            return null;
        }
        BytePointer buffer = new BytePointer(BUFFER_BYTES);
        all[count++] = buffer;
        free.offer(buffer);
        return buffer;
    }

    /** A free buffer, or a newly allocated one when none is free; null past the pool's cap. */
    BytePointer take() {
        BytePointer buffer = free.poll();
        if (buffer == null && add() != null) {
            grown.incrementAndGet();
            buffer = free.poll();
        }
        return buffer;
    }

    /** Returns the buffer at {@code address} to the pool; false if the pool does not own it. */
    boolean give(long address) {
        synchronized (this) {
            for (int i = 0; i < count; i++) {
                if (all[i].address() == address) {
                    free.offer(all[i]);
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Makes every buffer free again, once CUPTI is detached: {@code cuptiFinalize} forgets the
     * buffers it had requested and not handed back (the forced flush before it returns only those
     * holding records), so without this each detach leaked them. Measured on the H200
     * (TeardownStress, 8 launching threads, detaching at every stop): the pool reached its cap
     * after 80 sessions and CUPTI dropped the records it had no buffer for. Returns how many
     * buffers came back.
     */
    synchronized int reclaimAfterDetach() {
        int reclaimed = count - free.size();
        free.clear();
        for (int i = 0; i < count; i++) {
            free.offer(all[i]);
        }
        return reclaimed;
    }

    long grown() {
        return grown.get();
    }
}
