package org.flagos.trace.capture;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.util.PriorityQueue;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpCursor;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Interleaves a replay's host ops with its records by time, as a live session publishes them: an
 * op goes into the ring once a record that ends at or after the op's end has been published. The
 * writer settles an op a horizon of records after it arrives, so an op must arrive near its
 * records, neither all before them (its device records would come too late) nor all after.
 *
 * <p>Ops are read from the cursor as they are needed, through a lookahead of at most
 * {@link #LOOKAHEAD} ops ordered by end: an ops file is written as ops end, so a parent follows its
 * children and the lookahead only smooths threads that wrote out of step. Held: the lookahead.
 */
final class HostOpMerge implements RecordSink {
    static final int LOOKAHEAD = 1 << 12;

    /** Translates the decoder's record, then notes how far in time the records have come. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final EventTranslatorOneArg<TraceRecord, HostOpMerge> OBSERVED = (slot, sequence, merge) -> {
        ((EventTranslatorOneArg) merge.translator).translateTo(slot, sequence, merge.source);
        if (slot.type == RecordType.ACTIVITY && slot.endNs > merge.latestNs) {
            merge.latestNs = slot.endNs;
        }
    };

    private final CapturePipeline pipeline;
    private final HostOpCursor cursor;
    private final PriorityQueue<HostOp> ahead = new PriorityQueue<>(LOOKAHEAD,
            (a, b) -> a.endNs() != b.endNs() ? Long.compare(a.endNs(), b.endNs())
                    : Long.compare(a.externalId().value(), b.externalId().value()));
    private EventTranslatorOneArg<TraceRecord, ?> translator;
    private Object source;
    private long latestNs = Long.MIN_VALUE;
    private boolean cursorDone;

    HostOpMerge(CapturePipeline pipeline, HostOpCursor cursor) {
        this.pipeline = pipeline;
        this.cursor = cursor;
    }

    @Override
    public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
        this.translator = translator;
        this.source = source;
        pipeline.publish(OBSERVED, this);
        this.source = null;
        publishEndedBy(latestNs);
    }

    /**
     * Publishes the ops up to the first that lies in the window, in file order, before any record:
     * the trace's times are relative to the second its first written event starts in, and a replay
     * has always made that the first op's.
     */
    void publishFirstInWindow(long windowStartNs, long windowEndNs) {
        for (HostOp op; (op = cursor.next()) != null; ) {
            pipeline.publishWaiting(op);
            if (op.startNs() >= windowStartNs && op.endNs() <= windowEndNs) {
                return;
            }
        }
        cursorDone = true;
    }

    /** Publishes every op left (after the last frame). */
    void publishRest() {
        publishEndedBy(Long.MAX_VALUE);
    }

    private void publishEndedBy(long ns) {
        while (true) {
            fill(ns);
            HostOp next = ahead.peek();
            if (next == null || next.endNs() > ns) {
                return;
            }
            pipeline.publishWaiting(ahead.poll());
        }
    }

    /** Fills the lookahead; ops still arriving fill it as far as those that may end at or before {@code ns}. */
    private void fill(long ns) {
        while (!cursorDone && ahead.size() < LOOKAHEAD) {
            HostOp op = cursor.next(ns);
            if (op == HostOpCursor.NOT_YET) {
                return; // every op still to come ends after ns: what is at hand decides, as the whole file would
            }
            if (op == null) {
                cursorDone = true;
                return;
            }
            ahead.add(op);
        }
    }
}
