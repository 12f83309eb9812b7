package org.flagos.trace.capture;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import org.flagos.trace.ingest.FrameCursor;

/** An {@link ArrivingReplay}'s frames: queued as they arrive, read by its replay as a capture's frames are. */
final class ArrivingFrames implements FrameCursor {
    private final Arrivals arrivals;
    private final ArrayDeque<byte[]> frames;
    private final ArrayDeque<Integer> vendors;
    // The replay's thread only.
    private ByteBuffer payload;
    private int vendor;
    private long read = 8; // the magic

    ArrivingFrames(Arrivals arrivals) {
        this.arrivals = arrivals;
        this.frames = arrivals.queue(new ArrayDeque<>());
        this.vendors = arrivals.queue(new ArrayDeque<>());
    }

    /** A vendor's buffer, as the capture holds it; {@code payload} is kept, not copied. */
    void add(int vendor, byte[] payload) {
        arrivals.add(payload.length, () -> {
            frames.add(payload);
            vendors.add(vendor);
        });
    }

    /** Frames waiting to be decoded. */
    int waiting() {
        return arrivals.locked(frames::size);
    }

    /** Waits for the first frame: false when the window closed without one. */
    boolean awaitFirst() {
        return arrivals.awaitWhile(this::nothingYet, () -> !frames.isEmpty());
    }

    @Override
    public boolean next() {
        return arrivals.awaitWhile(this::nothingYet, () -> {
            if (frames.isEmpty()) {
                return false;
            }
            byte[] bytes = frames.poll();
            vendor = vendors.poll();
            arrivals.taken(bytes.length);
            payload = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            read += 16 + bytes.length;
            return true;
        });
    }

    /** Nothing to take yet, and more may come (under the lock). */
    private boolean nothingYet() {
        return frames.isEmpty() && !arrivals.closed();
    }

    @Override
    public ByteBuffer payload() {
        return payload;
    }

    @Override
    public int vendor() {
        return vendor;
    }

    @Override
    public long bytesRead() {
        return read;
    }

    @Override
    public String truncation() {
        return null;
    }
}
