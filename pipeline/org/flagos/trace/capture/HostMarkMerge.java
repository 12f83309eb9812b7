package org.flagos.trace.capture;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.util.PriorityQueue;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.HostMarkCursor;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.MarkerPhase;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Interleaves a replay's marks ({@code .marks.jsonl}) with its records by time, as {@link HostOpMerge} does ops: a
 * mark goes into the ring once a record that ends at or after it has been published, as an annotation mark (a
 * {@link EventKind#MARKER} record of phase {@link MarkerPhase#INSTANT}, the one a vendor's NVTX marker records give),
 * so the window, the walk and every format draw it as they draw those: an instant on its thread, never an op. Marks
 * are read as needed through a lookahead of at most {@link #LOOKAHEAD}, ordered by time (the file holds them as they
 * arrived, each thread's in its order). Held: the lookahead.
 */
final class HostMarkMerge implements RecordSink {
    static final int LOOKAHEAD = 1 << 12;

    /** Translates the record it forwards, then notes how far in time the records have come. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final EventTranslatorOneArg<TraceRecord, HostMarkMerge> OBSERVED = (slot, sequence, merge) -> {
        ((EventTranslatorOneArg) merge.translator).translateTo(slot, sequence, merge.source);
        if (slot.type == RecordType.ACTIVITY && slot.endNs > merge.latestNs) {
            merge.latestNs = slot.endNs;
        }
    };

    /** A mark read, with its texts' handles and its place in the file. */
    private record Pending(HostMark mark, long order, long nameHandle, long domainHandle, HostMarkNames naming) {
    }

    private static final EventTranslatorOneArg<TraceRecord, Pending> MARK = (slot, sequence, p) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.MARKER;
        slot.markerPhase = MarkerPhase.INSTANT;
        slot.startNs = p.mark().tsNs();
        slot.endNs = slot.startNs;
        slot.processId = (int) p.mark().pid();
        slot.threadId = p.mark().thread();
        slot.nameHandle = p.nameHandle();
        slot.domainHandle = p.domainHandle();
        slot.naming = p.naming();
    };

    private final CapturePipeline pipeline;
    private final RecordSink next;
    private final HostMarkCursor marks;
    private final HostMarkNames names = new HostMarkNames();
    private final PriorityQueue<Pending> ahead = new PriorityQueue<>(LOOKAHEAD,
            (a, b) -> a.mark().tsNs() != b.mark().tsNs() ? Long.compare(a.mark().tsNs(), b.mark().tsNs())
                    : Long.compare(a.order(), b.order()));
    private EventTranslatorOneArg<TraceRecord, ?> translator;
    private Object source;
    private long latestNs = Long.MIN_VALUE;
    private long read;
    private boolean marksDone;

    /** Records go on to {@code next} (the op merge, or the pipeline itself); marks straight into {@code pipeline}. */
    HostMarkMerge(CapturePipeline pipeline, RecordSink next, HostMarkCursor marks) {
        this.pipeline = pipeline;
        this.next = next;
        this.marks = marks;
    }

    @Override
    public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
        this.translator = translator;
        this.source = source;
        next.publish(OBSERVED, this);
        this.source = null;
        publishUpTo(latestNs);
    }

    /** Publishes every mark left (after the last frame). */
    void publishRest() {
        publishUpTo(Long.MAX_VALUE);
    }

    private void publishUpTo(long ns) {
        while (true) {
            fill(ns);
            Pending first = ahead.peek();
            if (first == null || first.mark().tsNs() > ns) {
                return;
            }
            pipeline.publish(MARK, ahead.poll());
        }
    }

    /** Fills the lookahead; marks still arriving fill it as far as those that may lie at or before {@code ns}. */
    private void fill(long ns) {
        while (!marksDone && ahead.size() < LOOKAHEAD) {
            HostMark mark = marks.next(ns);
            if (mark == HostMarkCursor.NOT_YET) {
                return;
            }
            if (mark == null) {
                marksDone = true;
                return;
            }
            ahead.add(new Pending(mark, read++, names.handle(mark.name()), names.handle(mark.domain()), names));
        }
    }
}
