package org.flagos.trace.capture;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What an {@link ArrivingReplay}'s queues share: one lock and the condition every arrival signals, what waits to be
 * decoded against its bound, the latest tick, the close, and giving up. The receiving thread adds; the replay's thread
 * waits through {@link #awaitWhile}, the one way any of its cursors waits.
 */
final class Arrivals {
    /** Thrown into the replay's thread when the replay gave up: nothing it wrote is kept. */
    static final class GivenUp extends RuntimeException {
        GivenUp(String why) {
            super(why, null, false, false);
        }
    }

    private final long maxQueuedBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** The queues {@link #giveUp} empties. */
    private final List<Collection<?>> queues = new ArrayList<>();
    private long tick = Long.MIN_VALUE;
    private long queuedBytes;
    private boolean closed;
    private String givenUp;
    private ArrivingReplay.Closing closing;

    /** @param maxQueuedBytes what may wait to be decoded: beyond it the replay fell behind and gives up */
    Arrivals(long maxQueuedBytes) {
        this.maxQueuedBytes = maxQueuedBytes;
    }

    /** Registers a queue of what arrives: giving up empties it. */
    <Q extends Collection<?>> Q queue(Q queue) {
        queues.add(queue);
        return queue;
    }

    /** Adds ({@code add}, under the lock) what counts {@code bytes}, unless closed or given up; past the bound, gives up. */
    void add(long bytes, Runnable add) {
        locked(() -> {
            if (givenUp != null || closed) {
                return null;
            }
            add.run();
            queuedBytes += bytes;
            if (queuedBytes > maxQueuedBytes) {
                giveUpLocked("the replay fell " + (queuedBytes >> 20) + " MB behind the stream");
            }
            changed.signalAll();
            return null;
        });
    }

    /** A buffer completed at {@code ns}: every op and mark made before was sent before this. */
    void tick(long ns) {
        locked(() -> {
            if (ns > tick) {
                tick = ns;
                changed.signalAll();
            }
            return null;
        });
    }

    /** The window closed: nothing more is added. */
    void close(ArrivingReplay.Closing closing) {
        Objects.requireNonNull(closing, "closing");
        locked(() -> {
            this.closing = closing;
            closed = true;
            changed.signalAll();
            return null;
        });
    }

    /** Gives up (the first reason stands): every queue emptied, nothing more held, the waiting replay told. */
    void giveUp(String why) {
        locked(() -> {
            giveUpLocked(why);
            return null;
        });
    }

    private void giveUpLocked(String why) {
        if (givenUp == null) {
            givenUp = why;
            queues.forEach(Collection::clear);
            queuedBytes = 0;
        }
        changed.signalAll();
    }

    /** The window's close, or null while open. */
    ArrivingReplay.Closing closing() {
        return locked(() -> closing);
    }

    /** {@code what}, under the lock. */
    <T> T locked(Supplier<T> what) {
        lock.lock();
        try {
            return what.get();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits while {@code waiting} holds, then answers {@code then}, both under the lock (where {@link #closed},
     * {@link #tick}, {@link #queuedBytes} and {@link #taken} may be used).
     *
     * @throws GivenUp the replay gave up, before or while waiting, or its thread was interrupted (run is closing)
     */
    <T> T awaitWhile(BooleanSupplier waiting, Supplier<T> then) {
        return locked(() -> {
            stopIfGivenUp();
            while (waiting.getAsBoolean()) {
                try {
                    changed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new GivenUp("interrupted: flagtrace run is closing");
                }
                stopIfGivenUp();
            }
            return then.get();
        });
    }

    private void stopIfGivenUp() {
        if (givenUp != null) {
            throw new GivenUp(givenUp);
        }
    }

    /** Whether the window closed (under the lock). */
    boolean closed() {
        return closed;
    }

    /** The latest tick (under the lock). */
    long tick() {
        return tick;
    }

    /** What waits to be decoded (under the lock). */
    long queuedBytes() {
        return queuedBytes;
    }

    /** {@code bytes} taken to be decoded (under the lock). */
    void taken(long bytes) {
        queuedBytes -= bytes;
    }
}
