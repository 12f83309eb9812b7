package org.flagos.trace.capture;

import com.lmax.disruptor.AggregateEventHandler;
import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.EventTranslatorOneArg;
import com.lmax.disruptor.ExceptionHandler;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.EventHandlerGroup;
import com.lmax.disruptor.dsl.ProducerType;
import com.lmax.disruptor.util.DaemonThreadFactory;
import java.io.OutputStream;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.atomic.LongAdder;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.AccountedStage;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordCopies;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.AnnotationRangeJoin;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.ExternalCorrelationJoin;
import org.flagos.trace.stages.NameStage;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.StagesBeforeWalk;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.stages.TraceWalk;

/**
 * The ring and its chain of stages, wired in one place: names, then the vendor's own stages
 * (MSPTI's correlation remap; none for most vendors), then the external-correlation join, then the
 * capture window, then the annotation-range join ({@link AnnotationRangeJoin}), then the trace walk into the sink of the {@link TraceFormat} it is given (JSON,
 * Perfetto's protobuf or Parquet: the request or session options carry it). See {@link StageThreading} for how the
 * stages map to threads. Producers (a replay, a live tracer's buffer
 * callback, host ops) publish into it; {@link #finish()} publishes the end of the capture and
 * waits until the trace is complete.
 */
public final class CapturePipeline implements RecordSink, AutoCloseable {
    /** Ring slots, preallocated once. A power of two. */
    public static final int DEFAULT_RING_SIZE = 1 << 14;

    private final Disruptor<TraceRecord> disruptor;
    private final RingBuffer<TraceRecord> ring;
    private final TraceWalk writer;
    private final CaptureAccounting accounting;
    private volatile Throwable stageFailure;
    private volatile boolean stopped;
    /** {@link System#nanoTime()} at {@link #finish()}'s steps ({@link #finishBreakdown()}). */
    private volatile long[] finishTimesNs;
    /** Host ops that found the ring full: kept here in order, published as soon as there is room. */
    private final ConcurrentLinkedDeque<HostOp> spilledOps = new ConcurrentLinkedDeque<>();
    /** Held (never waited for) by the one thread moving kept-aside ops into the ring. */
    private final ReentrantLock draining = new ReentrantLock();
    private final LongAdder opsSpilled = new LongAdder();
    private final LongAdder producerWaits = new LongAdder();
    /** A replay's one producer publishes through here, a batch of slots at a time; null for several producers. */
    private final SlotBatch batch;

    /** A pipeline made part by part: see {@link Builder} for what is required and each default. */
    public static Builder builder() {
        return new Builder();
    }

    private CapturePipeline(Builder b) {
        NameTable names = b.names;
        ApiNames apiNames = b.apiNames;
        List<EventHandler<TraceRecord>> vendorStages = b.vendorStages;
        CaptureWindowFilter window = b.window;
        TraceHeader header = b.header;
        DecodeStats decodeStats = b.decodeStats;
        ProducerType producers = b.producers;
        int ringSize = b.ringSize;
        NameStage apiNameStage = new NameStage(apiNames, names, decodeStats);
        ExternalCorrelationJoin join = new ExternalCorrelationJoin();
        StagesBeforeWalk stages = StagesBeforeWalk.of(apiNameStage, join, window);
        AnnotationRangeJoin ranges = stages.ranges();
        this.accounting = new CaptureAccounting(decodeStats);
        for (EventHandler<TraceRecord> vendorStage : vendorStages) {
            if (vendorStage instanceof AccountedStage) {
                ((AccountedStage) vendorStage).notesTo(accounting::note);
            }
        }
        this.writer = new TraceWalk(b.format.sink(b.out, names, header, apiNames::category), names, header, accounting,
                stages);
        this.disruptor = new Disruptor<>(TraceRecord::new, ringSize, DaemonThreadFactory.INSTANCE, producers, waitStrategy());
        disruptor.setDefaultExceptionHandler(new RecordingExceptionHandler());
        if (StageThreading.current() == StageThreading.ONE_PER_STAGE) {
            EventHandlerGroup<TraceRecord> named = disruptor.handleEventsWith(guarded(apiNameStage));
            for (EventHandler<TraceRecord> vendorStage : vendorStages) {
                named = named.then(guarded(vendorStage));
            }
            named.then(guarded(join))
                    .then(guarded(window))
                    .then(guarded(ranges))
                    .then(writer);
        } else {
            disruptor.handleEventsWith(new AggregateEventHandler<>(light(apiNameStage, vendorStages, join, window, ranges)))
                    .then(writer);
        }
        this.ring = disruptor.start();
        this.batch = producers == ProducerType.SINGLE ? new SlotBatch(ring, batchSize(ringSize)) : null;
    }

    /**
     * A sixteenth of the ring: the stages still have the rest of it to work through while the
     * producer waits for a batch.
     */
    private static int batchSize(int ringSize) {
        return Math.max(1, ringSize / 16);
    }

    /** The light stages in chain order, for one shared thread. */
    @SuppressWarnings("unchecked")
    private EventHandler<TraceRecord>[] light(NameStage names, List<EventHandler<TraceRecord>> vendorStages,
                                              ExternalCorrelationJoin join, CaptureWindowFilter window,
                                              AnnotationRangeJoin ranges) {
        List<EventHandler<TraceRecord>> chain = new java.util.ArrayList<>();
        chain.add(names);
        chain.addAll(vendorStages);
        chain.add(join);
        chain.add(window);
        chain.add(ranges);
        return chain.stream().map(this::guarded).toArray(EventHandler[]::new);
    }

    /** A light stage that stops working once any stage failed (the writer ends the capture itself). */
    private EventHandler<TraceRecord> guarded(EventHandler<TraceRecord> stage) {
        return new StopAfterFailure(stage, () -> stageFailure != null);
    }

    /**
     * Sleeping by default: a profiler lives inside the user's process and must not burn its cores
     * spinning, and on the 2-core reference machine it was also the fastest (docs/benchmarks.md).
     * {@code -Dflagtrace.wait=yielding|blocking} for other trade-offs.
     */
    static WaitStrategy waitStrategy() {
        switch (System.getProperty("flagtrace.wait", "sleeping")) {
            case "blocking": return new BlockingWaitStrategy();
            case "yielding": return new YieldingWaitStrategy();
            default: return new SleepingWaitStrategy();
        }
    }

    /**
     * For vendor records: when the ring is full the producer (a vendor's buffer thread, or a
     * replay) waits for a slot, and every such wait is counted. Waiting is the policy because it
     * loses nothing: the vendor keeps recording into its other buffers meanwhile, and what it
     * drops when those run out it counts itself.
     */
    @Override
    public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
        if (batch != null) {
            batch.publish(translator, source);
            return;
        }
        if (!ring.tryPublishEvent(translator, source)) {
            producerWaits.increment();
            ring.publishEvent(translator, source);
        }
        if (!spilledOps.isEmpty()) {
            drainSpilled();
        }
    }

    /**
     * Publishes one host op range without ever blocking the calling (user) thread: when the ring is
     * full the op is kept aside, in order, and published as soon as a later publish finds room (at
     * the latest before the end of the capture), so it still arrives near its records: the writer
     * settles an op a horizon of records after it arrives. A pipeline of one producer (a replay)
     * has no other thread to wait for: the op waits for a slot like its records.
     */
    public void publish(HostOp op) {
        if (batch != null) {
            batch.publish(HostOpTranslator.HOST_OP, op);
            return;
        }
        if (!spilledOps.isEmpty()) {
            drainSpilled();
        }
        if (!spilledOps.isEmpty() || !ring.tryPublishEvent(HostOpTranslator.HOST_OP, op)) {
            opsSpilled.increment();
            spilledOps.addLast(op);
        }
    }

    /** Publishes one host op, waiting for a slot like a vendor record: for a replay's single producer. */
    public void publishWaiting(HostOp op) {
        if (batch != null) {
            batch.publish(HostOpTranslator.HOST_OP, op);
            return;
        }
        if (!ring.tryPublishEvent(HostOpTranslator.HOST_OP, op)) {
            producerWaits.increment();
            ring.publishEvent(HostOpTranslator.HOST_OP, op);
        }
    }

    /** Moves kept-aside ops into the ring while there is room; never waits, for the lock or a slot. */
    private void drainSpilled() {
        if (!draining.tryLock()) {
            return;
        }
        try {
            for (HostOp op; (op = spilledOps.pollFirst()) != null; ) {
                if (!ring.tryPublishEvent(HostOpTranslator.HOST_OP, op)) {
                    spilledOps.addFirst(op);
                    return;
                }
            }
        } finally {
            draining.unlock();
        }
    }

    /**
     * Publishes the end of the capture, waits for the writer to close the trace and stops the
     * stage threads. Throws when a stage failed; the output is then incomplete and must be discarded.
     */
    public OpSummary finish() throws InterruptedException {
        long began = System.nanoTime();
        draining.lock();
        try {
            for (HostOp op; (op = spilledOps.pollFirst()) != null; ) {
                ring.publishEvent(HostOpTranslator.HOST_OP, op);
            }
        } finally {
            draining.unlock();
        }
        if (batch != null) {
            producerWaits.add(batch.waits());
        }
        accounting.ringFull(producerWaits.sum(), opsSpilled.sum());
        if (batch != null) {
            batch.publish(HostOpTranslator.END_OF_CAPTURE, null);
            batch.flush();
        } else {
            ring.publishEvent(HostOpTranslator.END_OF_CAPTURE, null);
        }
        writer.awaitFinished();
        long walked = System.nanoTime();
        disruptor.shutdown();
        stopped = true;
        long[] end = writer.endTimesNs();
        finishTimesNs = new long[] {began, end[0], end[1], end[2], walked, System.nanoTime()};
        // A stage's failure comes first: the writer's own failure after it is a consequence (it was
        // handed slots the failed stages no longer filled in).
        Throwable failure = stageFailure != null ? stageFailure : writer.failure();
        if (failure != null) {
            throw new CaptureFailedException("writing the trace failed: " + FailureWords.of(failure), failure);
        }
        return writer.summary();
    }

    /**
     * Where {@link #finish()}'s time went, in µs, for the close's diagnostic: the backlog walked (until
     * the end of the capture reached the walk), the held ops settled and written, the footer, the
     * summary, the stage threads stopped; empty before it finished.
     */
    public String finishBreakdown() {
        long[] t = finishTimesNs;
        if (t == null || t[1] == 0 || t[2] == 0 || t[3] == 0) {
            return "";
        }
        return "backlog walked " + (t[1] - t[0]) / 1_000 + " µs, held ops settled and written " + (t[2] - t[1]) / 1_000
                + " µs, footer " + (t[3] - t[2]) / 1_000 + " µs, summary " + (t[4] - t[3]) / 1_000
                + " µs, stage threads stopped " + (t[5] - t[4]) / 1_000 + " µs";
    }

    /** Draws no GPU annotation spans (drawn by default); before the first publish. See {@link TraceWalk#withoutGpuAnnotations}. */
    public void withoutGpuAnnotations() {
        writer.withoutGpuAnnotations();
    }

    /** Declares that no host op will be published (a replay without an ops file); see {@link TraceWalk#expectNoHostOps}. */
    public void expectNoHostOps() {
        writer.expectNoHostOps();
    }

    /** Declares that no device or API record will come (no tracer): ops held at capacity then lose nothing. */
    public void expectNoDeviceRecords() {
        writer.expectNoDeviceRecords();
    }

    /** Settles host ops after {@code records} instead of the join's horizon; before the first publish. See {@link TraceWalk#settleOpsAfter}. */
    public void settleOpsAfter(int records) {
        writer.settleOpsAfter(records);
    }

    /** How long before a flush barrier an op with records must have ended to settle at it; see {@link TraceWalk#barrierBoundLag}. */
    public void barrierBoundLag(long ns) {
        writer.barrierBoundLag(ns);
    }

    /**
     * Publishes a flush barrier at host time {@code ns}, once the tracer's {@code flush()} returned true
     * for a flush begun at or after it: ops that ended before it and that no record named settle.
     * Waits for a slot like a vendor record (the caller is the session's barrier thread, never a user's).
     */
    public void publishFlushBarrier(long ns) {
        publish(HostOpTranslator.FLUSH_BARRIER, ns);
    }

    public CaptureAccounting accounting() {
        return accounting;
    }

    /**
     * Stops the stage threads if {@link #finish()} did not (a producer failed midway): no thread of
     * a failed capture outlives it. Idempotent.
     */
    @Override
    public void close() {
        if (!stopped) {
            stopped = true;
            disruptor.halt();
        }
    }

    /** Trace events written. */
    public long events() {
        return writer.events();
    }

    /** Every element of the trace's {@code traceEvents} array (events, row labels, span markers), once finished. */
    public long traceEvents() {
        return writer.traceEvents();
    }

    /**
     * A pipeline made one part at a time, its parts checked in {@link #build()} only. Required: the
     * name table, the API names, the capture window, the trace header, the format, the output stream,
     * the decode counts and the producer type. Defaults: no vendor stages, {@link #DEFAULT_RING_SIZE}
     * slots. The stages' threads start when {@link #build()} returns the pipeline.
     */
    public static final class Builder {
        private NameTable names;
        private ApiNames apiNames;
        private List<EventHandler<TraceRecord>> vendorStages = List.of();
        private CaptureWindowFilter window;
        private TraceHeader header;
        private TraceFormat format;
        private OutputStream out;
        private DecodeStats decodeStats;
        private ProducerType producers;
        private int ringSize = DEFAULT_RING_SIZE;

        private Builder() {
        }

        /** The capture's name table: written by the name stage only, read by the walk and the sink. */
        public Builder names(NameTable names) {
            this.names = names;
            return this;
        }

        /** The vendor's API names (runtime and driver ids to names, and the API category). */
        public Builder apiNames(ApiNames apiNames) {
            this.apiNames = apiNames;
            return this;
        }

        /**
         * What the vendor's records need between API naming and the join (MSPTI's correlation remap),
         * in order; none by default, as for most vendors.
         */
        public Builder vendorStages(List<EventHandler<TraceRecord>> vendorStages) {
            this.vendorStages = vendorStages;
            return this;
        }

        /** The capture window: what starts before it or ends after it is dropped and counted. */
        public Builder window(CaptureWindowFilter window) {
            this.window = window;
            return this;
        }

        /** What the trace's header says: its name, devices, base time, metadata, process. */
        public Builder header(TraceHeader header) {
            this.header = header;
            return this;
        }

        /** The trace's format, as the request or the session options give it (never read from the stream). */
        public Builder format(TraceFormat format) {
            this.format = format;
            return this;
        }

        /** Where the trace is written. */
        public Builder out(OutputStream out) {
            this.out = out;
            return this;
        }

        /** The decoders' counts, which the accounting reports (the producers fill them). */
        public Builder decodeStats(DecodeStats decodeStats) {
            this.decodeStats = decodeStats;
            return this;
        }

        /**
         * {@link ProducerType#SINGLE} for one publishing thread (a replay: slots are then published a
         * batch at a time), {@link ProducerType#MULTI} for several (a live session's buffer callbacks and
         * host ops).
         */
        public Builder producers(ProducerType producers) {
            this.producers = producers;
            return this;
        }

        /** Ring slots: a power of two, at most {@link RecordCopies#REUSE_DISTANCE}; {@link #DEFAULT_RING_SIZE} by default. */
        public Builder ringSize(int ringSize) {
            this.ringSize = ringSize;
            return this;
        }

        /**
         * The pipeline, its stage threads started. Throws {@link NullPointerException} naming a missing
         * part, {@link IllegalArgumentException} for a ring larger than the stages' copies allow or not
         * a power of two.
         */
        public CapturePipeline build() {
            Objects.requireNonNull(names, "names");
            Objects.requireNonNull(apiNames, "apiNames");
            Objects.requireNonNull(vendorStages, "vendorStages");
            Objects.requireNonNull(window, "window");
            Objects.requireNonNull(header, "header");
            Objects.requireNonNull(format, "format");
            Objects.requireNonNull(out, "out");
            Objects.requireNonNull(decodeStats, "decodeStats");
            Objects.requireNonNull(producers, "producers");
            if (ringSize > RecordCopies.REUSE_DISTANCE) {
                throw new IllegalArgumentException("ring of " + ringSize + " slots: stages reuse the copies they park after "
                        + RecordCopies.REUSE_DISTANCE + " slots, so no ring may be larger");
            }
            if (ringSize < 1 || Integer.bitCount(ringSize) != 1) {
                throw new IllegalArgumentException("ring of " + ringSize + " slots: the ring's size must be a power of two");
            }
            return new CapturePipeline(this);
        }
    }

    private final class RecordingExceptionHandler implements ExceptionHandler<TraceRecord> {
        @Override
        public void handleEventException(Throwable ex, long sequence, TraceRecord event) {
            if (stageFailure == null) {
                stageFailure = ex;
            }
        }

        @Override
        public void handleOnStartException(Throwable ex) {
            stageFailure = ex;
        }

        @Override
        public void handleOnShutdownException(Throwable ex) {
            if (stageFailure == null) {
                stageFailure = ex;
            }
        }
    }
}
