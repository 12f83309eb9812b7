package org.flagos.trace.capture;

import com.lmax.disruptor.EventTranslatorOneArg;
import com.lmax.disruptor.RingBuffer;
import java.util.concurrent.locks.LockSupport;
import org.flagos.trace.model.TraceRecord;

/**
 * A single producer's way into the ring: it claims slots a batch at a time, fills them one record at
 * a time, and publishes each batch at once ({@link #flush()} publishes what is filled of the current
 * one). Only for a ring with one producer thread (a replay): claimed slots are invisible to the
 * stages until published, so every record of the capture must come through here, in order.
 *
 * <p>Why: a replay decodes faster than the writer writes, so the ring is full most of the time. One
 * claim per record then took Disruptor's slow path on nearly every record (a fenced store of the
 * cursor and a read of the stages' sequences, cache lines the other core holds), and parked the
 * producer for Disruptor's shortest sleep each time one slot was still missing: about one park per
 * hundred records. A batch waits until a whole batch of slots is free, and sleeps longer while it
 * waits, since the rest of the ring keeps the stages busy meanwhile.
 */
final class SlotBatch {
    /** How long the producer sleeps between looks at a full ring. */
    static final long PARK_NS = Long.getLong("flagtrace.parkNs", 100_000L);

    private final RingBuffer<TraceRecord> ring;
    private final int size;
    /** The first claimed slot not yet published. */
    private long first;
    /** The next claimed slot to fill. */
    private long next;
    /** The last claimed slot: none is left to fill when {@code next > last}. */
    private long last = -1;
    private long waits;

    /** @param size slots per batch, at most the ring's */
    SlotBatch(RingBuffer<TraceRecord> ring, int size) {
        this.ring = ring;
        this.size = size;
    }

    /** Fills the next slot through {@code translator}; the batch is published when it is full. */
    <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
        if (next > last) {
            claim();
        }
        translator.translateTo(ring.get(next), next, source);
        if (next++ == last) {
            ring.publish(first, last);
            first = next;
        }
    }

    /** Publishes the slots filled so far; the rest of the batch stays claimed for the next records. */
    void flush() {
        if (next > first) {
            ring.publish(first, next - 1);
            first = next;
        }
    }

    /** How many batches had to wait for room: the ring was full. */
    long waits() {
        return waits;
    }

    private void claim() {
        if (!ring.hasAvailableCapacity(size)) {
            waits++;
            do {
                LockSupport.parkNanos(PARK_NS);
            } while (!ring.hasAvailableCapacity(size));
        }
        last = ring.next(size);
        first = next = last - size + 1;
    }
}
