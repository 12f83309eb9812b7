package org.flagos.trace.capture;

import java.util.ArrayDeque;

/**
 * Ops or marks as they arrive for an {@link ArrivingReplay}, taken in arrival order: each waits until one has
 * arrived, the window closed, or a tick vouches that none is still to come by the time asked for.
 */
final class ArrivingQueue<T> {
    /** What a queued item is counted as, against what the replay may hold waiting. */
    static final long ITEM_BYTES = 256;

    private final Arrivals arrivals;
    private final ArrayDeque<T> items;
    private long received;
    private long taken;
    // The replay's thread only.
    private long notYetNs = Long.MIN_VALUE;

    ArrivingQueue(Arrivals arrivals) {
        this.arrivals = arrivals;
        this.items = arrivals.queue(new ArrayDeque<>());
    }

    /** An item arrived (nothing once closed or given up). */
    void add(T item) {
        arrivals.add(ITEM_BYTES, () -> {
            items.add(item);
            received++;
        });
    }

    /**
     * The next item, waiting while none has arrived, the window is open and frames waiting are {@code waitBytes} or
     * less; null when none came by then.
     */
    T first(long waitBytes) {
        return arrivals.awaitWhile(() -> items.isEmpty() && !arrivals.closed() && arrivals.queuedBytes() <= waitBytes,
                () -> items.isEmpty() ? null : take());
    }

    /**
     * The next item; else null once the window closed, or {@code notYet} when the latest tick vouches that none still
     * to come is by {@code byNs} (remembered: {@link #notYetNs}); waits for one of them.
     */
    T next(long byNs, T notYet) {
        return arrivals.awaitWhile(() -> items.isEmpty() && !arrivals.closed() && arrivals.tick() < byNs, () -> {
            if (!items.isEmpty()) {
                return take();
            }
            if (arrivals.closed()) {
                return null;
            }
            notYetNs = Math.max(notYetNs, byNs);
            return notYet;
        });
    }

    private T take() {
        T item = items.poll();
        arrivals.taken(ITEM_BYTES);
        taken++;
        return item;
    }

    /** The latest time {@link #next} answered that none was still to come by; an item by then came too late. */
    long notYetNs() {
        return notYetNs;
    }

    /** Items that arrived and were not taken (under the lock): after the close, those that came after the replay went on. */
    long notTaken() {
        return received - taken;
    }
}
