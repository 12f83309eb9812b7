package org.flagos.trace.stages;

import com.lmax.disruptor.EventHandler;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Stage 3: keeps a record only when it lies wholly inside the capture window
 * ({@code start >= windowStart && end <= windowEnd}), the containment libkineto itself applies.
 * Overlap is not enough: vendor kinds armed before the session keep recording, and activity from
 * before the profiled region must not leak into the trace. Host ops are filtered the same way.
 * Every record dropped is counted by kind.
 */
public final class CaptureWindowFilter implements EventHandler<TraceRecord> {
    private volatile long windowStart;
    private volatile long windowEnd;
    private final long[] dropped = new long[EventKind.count()];
    private long droppedHostOps;
    /** The latest end of the records and ops kept: a window that ends at or after it keeps what was kept. */
    private long latestKeptEndNs = Long.MIN_VALUE;

    public CaptureWindowFilter(long windowStartNs, long windowEndNs) {
        this.windowStart = windowStartNs;
        this.windowEnd = windowEndNs;
    }

    /** A filter that keeps everything: for captures that come without a window. */
    public static CaptureWindowFilter unbounded() {
        return new CaptureWindowFilter(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /**
     * Opens the window of a live session that was armed before it (a step schedule's warmup): records
     * processed after this see the bound; everything before it is dropped and counted.
     */
    public void windowStart(long startNs) {
        this.windowStart = startNs;
    }

    /** Closes the window of a live session; records processed after this see the final bound. */
    public void windowEnd(long endNs) {
        this.windowEnd = endNs;
    }

    @Override
    public void onEvent(TraceRecord slot, long sequence, boolean endOfBatch) {
        long lo = windowStart;
        long hi = windowEnd;
        if (!slot.parked) {
            filter(slot, lo, hi);
        }
        for (int i = 0; i < slot.releasedCount(); i++) {
            filter(slot.released(i), lo, hi);
        }
    }

    private void filter(TraceRecord record, long lo, long hi) {
        if (record.type != RecordType.ACTIVITY && record.type != RecordType.HOST_OP) {
            return;
        }
        if (record.startNs >= lo && record.endNs <= hi) {
            if (record.endNs > latestKeptEndNs) {
                latestKeptEndNs = record.endNs;
            }
            return;
        }
        record.outsideWindow = true;
        if (record.type == RecordType.HOST_OP) {
            droppedHostOps++;
        } else {
            dropped[record.kind.ordinal()]++;
        }
    }

    public long dropped(EventKind kind) {
        return dropped[kind.ordinal()];
    }

    public long droppedHostOps() {
        return droppedHostOps;
    }

    /**
     * The latest end of the records and host ops kept so far ({@link Long#MIN_VALUE} for none): a capture replayed as it
     * arrives, its window's end not known yet, kept what a replay bounded by the end keeps if that end is not before it.
     * Read by the thread that waited for the capture's end.
     */
    public long latestKeptEndNs() {
        return latestKeptEndNs;
    }

    public long windowStart() {
        return windowStart;
    }

    public long windowEnd() {
        return windowEnd;
    }
}
