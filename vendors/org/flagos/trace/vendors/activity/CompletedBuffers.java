package org.flagos.trace.vendors.activity;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.model.CallGate;
import org.flagos.trace.model.DecodeStats;

/**
 * What every tracer's buffer-completion callback shares. Completions are gated: a buffer completed
 * while no session runs is counted (when it holds records) and left alone; one completed during a
 * session goes to that session under the session's lock (a vendor may complete buffers on several
 * threads at once), and a failure there is counted as an invalid buffer in the session's stats, so
 * it never unwinds into the vendor's native frame. Stop {@link #closeAndDrain() closes the gate} and
 * waits for the completions inside.
 */
public final class CompletedBuffers {
    /** A session's side of a completion. */
    public interface Receiver {
        /**
         * One completed buffer, called under this receiver's lock; {@code validSize} may be 0 (the
         * vendor completed an empty buffer).
         */
        void completed(BytePointer buffer, long validSize);

        /** Where a buffer that failed to decode is counted. */
        DecodeStats stats();
    }

    private final CallGate gate = new CallGate();
    private final AtomicLong outsideSession = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong deliveredBytes = new AtomicLong();
    private final AtomicLong receivingNs = new AtomicLong();
    private final String buffers;

    /** @param buffers what a buffer is called in a failure, e.g. {@code "a CUPTI buffer"} */
    public CompletedBuffers(String buffers) {
        this.buffers = buffers;
    }

    /** A session started: completions go to it from now on. */
    public void open() {
        gate.open();
    }

    /** Shuts the gate and waits until every completion inside it has returned. */
    public void closeAndDrain() {
        gate.closeAndDrain();
    }

    /** Buffers holding records that completed while no session ran. */
    public long outsideSession() {
        return outsideSession.get();
    }

    /** Buffers handed to a session so far (every session's), for the close's breakdown. */
    public long delivered() {
        return delivered.get();
    }

    /** Their valid bytes. */
    public long deliveredBytes() {
        return deliveredBytes.get();
    }

    /** Nanoseconds the sessions spent receiving them (decoding and publishing, under their lock). */
    public long receivingNs() {
        return receivingNs.get();
    }

    /**
     * Hands a completed buffer to {@code receiver} (the session of the moment, or null) when the gate
     * is open; false when it is shut (the buffer is then counted if it holds records).
     */
    public boolean deliver(Receiver receiver, BytePointer buffer, long validSize) {
        if (!gate.enter()) {
            if (validSize > 0) {
                outsideSession.incrementAndGet();
            }
            return false;
        }
        try {
            if (receiver != null) {
                synchronized (receiver) {
                    long began = System.nanoTime();
                    try {
                        receiver.completed(buffer, validSize);
                    } catch (Throwable e) {
                        receiver.stats().invalid("decoding " + buffers + " failed: " + e);
                    }
                    receivingNs.addAndGet(System.nanoTime() - began);
                    delivered.incrementAndGet();
                    deliveredBytes.addAndGet(validSize);
                }
            }
        } finally {
            gate.exit();
        }
        return true;
    }

    /** The first {@code validSize} bytes of {@code buffer}, little-endian, without a copy. */
    public static ByteBuffer bytes(BytePointer buffer, long validSize) {
        return buffer.position(0).capacity(validSize).limit(validSize).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }
}
