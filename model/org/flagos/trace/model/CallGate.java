package org.flagos.trace.model;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Lets many threads make calls that must not overlap a teardown, and lets the teardown wait until
 * every such call has left. A thread {@link #enter() enters} (counting itself in), then reads
 * whether the gate is open; the closer shuts it, then waits until every count is back to zero.
 * Both sides write before they read, through atomics, so either the caller sees the gate shut and
 * backs out or the closer sees its count and waits: no call can slip past a close.
 *
 * <p>Counts are striped by thread and padded to their own cache lines, so threads that open ops
 * concurrently do not contend on one counter.
 */
public final class CallGate {
    private static final int STRIPES = 32;
    /** Longs per stripe: 128 bytes, two cache lines, so neighbours never share one. */
    private static final int PAD = 16;

    private final AtomicLongArray counts = new AtomicLongArray(STRIPES * PAD);
    private volatile boolean open;

    /** Opens the gate: calls may enter. */
    public void open() {
        open = true;
    }

    /** Whether calls may enter now. */
    public boolean isOpen() {
        return open;
    }

    /**
     * Counts the calling thread in; true when the gate is open, and {@link #exit()} must follow.
     * False when it is shut: nothing to undo.
     */
    public boolean enter() {
        int stripe = stripe();
        counts.getAndIncrement(stripe);
        if (open) {
            return true;
        }
        counts.getAndDecrement(stripe);
        return false;
    }

    /** Counts the calling thread out; on the thread that entered. */
    public void exit() {
        counts.getAndDecrement(stripe());
    }

    /** Shuts the gate and waits until every call that entered has left. */
    public void closeAndDrain() {
        open = false;
        for (int i = 0; i < STRIPES; i++) {
            while (counts.get(i * PAD) != 0) {
                Thread.onSpinWait();
            }
        }
    }

    private static int stripe() {
        long id = Thread.currentThread().getId();
        return (int) ((id ^ (id >>> 16)) & (STRIPES - 1)) * PAD;
    }
}
