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
 * <p>Why: a replay decodes faster than the writer writes, so the ring is full most of the time and
 * a producer claiming one slot per record runs in lock step with the writer: every claim takes
 * Disruptor's slow path (a fenced store of the cursor and a read of the stages' sequences, cache
 * lines the other core holds), and every slot is filled just after the writer let go of it, its
 * cache lines still in the writer's core. A batch claims once per sixteenth of the ring and fills
 * slots the writer left a while ago. Profiles of the cold 10M-record replay (async-profiler, one
 * each; benchmarks/results/2026-12-01-vm/replay-batch.txt): the claim and publish frames were 7% of
 * the producer's samples and {@code TraceRecord.clear} (the first write to a slot) 11%; with
 * batches 2% and 4%.
 */
final class SlotBatch {
    /**
     * How long the producer sleeps between looks at a full ring: short against the work the rest of
     * the ring holds for the stages (15/16 of a ring of 16,384 is about 10 ms of the writer's work).
     */
    private static final long PARK_NS = 100_000L;

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
