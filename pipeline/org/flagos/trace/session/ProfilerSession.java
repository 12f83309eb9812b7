package org.flagos.trace.session;

import com.lmax.disruptor.dsl.ProducerType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CaptureFailedException;
import org.flagos.trace.capture.CapturePipeline;
import org.flagos.trace.ingest.CaptureSidecars;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.ingest.ProcessFactsFile;
import org.flagos.trace.ingest.FltrbufWriter;
import org.flagos.trace.ingest.OpsJsonlWriter;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.journal.JournalSession;
import org.flagos.trace.journal.JournalWriter;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.CallGate;
import org.flagos.trace.model.ClockAlignment;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.HostOpMarker;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;
import org.flagos.trace.model.ProcessFacts;
import org.flagos.trace.model.RealtimeClock;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.TraceHeader;

/**
 * A live profiling session: from {@link Profiler#start} to {@link #close()}, host ops and the
 * device tracer's records stream through the pipeline into the trace. Closing stops the tracer,
 * flushes its buffers, completes the trace and renames it into place.
 */
public final class ProfilerSession implements AutoCloseable, HostOpMarker {
    private static final AtomicBoolean ACTIVE = new AtomicBoolean();
    private static final int RING_SIZE = 1 << 16;
    /**
     * Overrides the tracer's {@link DeviceTracer#opSettleRecords()} ({@code -Dflagtrace.opSettleRecords=N};
     * 0 settles after the join's horizon, as before it was sized per tracer): for the stress runs that
     * check late records are counted, and for measuring the close.
     */
    private static final String SETTLE_PROPERTY = "flagtrace.opSettleRecords";

    private final DeviceTracer tracer;
    private final SessionOptions options;

    /** The records after which a session of {@code tracer} settles its ops: the tracer's bound unless the property sets one. */
    static int opSettleRecords(DeviceTracer tracer) {
        return Integer.getInteger(SETTLE_PROPERTY, tracer.opSettleRecords());
    }
    private final HostClock clock;
    private final CaptureWindowFilter window;
    private final CapturePipeline pipeline;
    private final AtomicOutput trace;
    private final FltrbufWriter dump;
    private final OpsJsonlWriter dumpOps;
    private final JournalWriter journal;
    /** The clock anchor taken at stop, journaled beside the stop marker. */
    private ClockAnchor stopAnchor;
    /**
     * The process's External ids: one sequence across its sessions, the first op's id 0. An op still
     * open when its session stopped keeps its id on the vendor's stack and stamps it on its later
     * launches, in the next session too; a sequence per session would give that id to a new op of
     * the next session and credit it with the old op's device work. Ids above this session's first
     * are its own; an earlier one finds no op here and its records are counted as without one.
     */
    private static final AtomicLong NEXT_EXTERNAL_ID = new AtomicLong();
    /** Ops opened in this session (ids taken), for what was still open at its stop. */
    private final AtomicLong opsOpened = new AtomicLong();
    /**
     * Op opens enter it to take an id and push it, op ends to reach the ring, the journal and the ops
     * file; the stop shuts it and waits for those inside, before it disarms the tracer. So an op is
     * either wholly in the session (its id on the vendor's stack) or inert, and no op is written into
     * an output the close has already closed.
     */
    private final CallGate recording = new CallGate();
    private final AtomicLong opsRecorded = new AtomicLong();
    private final ThreadLocal<ArrayDeque<OpScope>> openOps = ThreadLocal.withInitial(ArrayDeque::new);
    private final long startNs;
    private final List<DeviceProperties> devices;
    /** Who captured and the clock anchor taken at start; the stop anchor is added when the tracer stops. */
    private volatile ProcessFacts process;
    private volatile boolean closed;
    private OpSummary summary;
    /** False for one cycle of a {@link ScheduledSession}, which holds the process's slot itself. */
    private final boolean ownsSlot;
    private long endNs;
    /** Whether the dump was committed or discarded. */
    private boolean dumpSettled;
    private long stopTookNs;
    /** Null when the session publishes no flush barriers. */
    private SettleBarrier barrier;
    private long alignTookNs;

    private ProfilerSession(DeviceTracer tracer, SessionOptions options) throws IOException {
        this(tracer, options, true);
    }

    /**
     * {@code ownsSlot} false: one cycle of a step schedule, armed from its first warmup step. Its
     * window opens only at {@link #record()}, so what the tracer delivers while warming up is
     * dropped (and counted) as torch's does.
     */
    private ProfilerSession(DeviceTracer tracer, SessionOptions options, boolean ownsSlot) throws IOException {
        // The barrier settings first: one refused leaves nothing open behind it.
        long barrierPeriodMs = SettleBarrier.periodMs();
        long barrierBoundLagNs = SettleBarrier.boundLagNs();
        this.ownsSlot = ownsSlot;
        this.tracer = tracer;
        this.options = options;
        this.clock = new HostClock(tracer::timestampNs);
        this.trace = new AtomicOutput(options.trace());
        this.dump = options.dumpBuffers() == null ? null : new FltrbufWriter(options.dumpBuffers());
        List<DeviceProperties> devices = options.devices().isEmpty() ? tracer.deviceProperties() : options.devices();
        NameTable names = new NameTable();
        DecodeStats stats = new DecodeStats();
        this.startNs = clock.now();
        this.devices = devices;
        this.process = new ProcessFacts(options.resolvedIdentity(), List.of(anchor("start")));
        if (dump != null) {
            // A cycle's window opens at record(): its ops file says so then.
            this.dumpOps = ownsSlot ? new OpsJsonlWriter(OpsJsonlWriter.besides(options.dumpBuffers()), startNs)
                    : new OpsJsonlWriter(OpsJsonlWriter.besides(options.dumpBuffers()));
        } else {
            this.dumpOps = null;
        }
        this.journal = options.journal() == null ? null : JournalWriter.open(options.journal(),
                new JournalSession(options.trace().getFileName().toString(), processName(), startNs, devices, journalMetadata(),
                        ProcessHandle.current().pid(), true));
        this.window = new CaptureWindowFilter(ownsSlot ? startNs : Long.MAX_VALUE, Long.MAX_VALUE);
        TraceHeader header = new TraceHeader(options.trace().getFileName().toString(), devices, null,
                options.metadata(), processName(), ProcessHandle.current().pid(), process.identity());
        this.pipeline = CapturePipeline.builder().names(names).apiNames(tracer.apiNames()).vendorStages(tracer.stages())
                .window(window).header(header).format(options.traceFormat()).out(trace.stream()).decodeStats(stats)
                .producers(ProducerType.MULTI).ringSize(RING_SIZE).build();
        if (!options.gpuAnnotations()) {
            pipeline.withoutGpuAnnotations();
        }
        // Ops settle while the session runs, not all at its close (docs/architecture.md, "Host ops").
        pipeline.settleOpsAfter(opSettleRecords(tracer));
        if (!tracer.available()) {
            pipeline.accounting().note("device tracer unavailable: " + tracer.unavailableReason());
            pipeline.expectNoDeviceRecords();
        }
        boolean barriers = SettleBarrier.prepare(tracer, pipeline, barrierPeriodMs, barrierBoundLagNs);
        try {
            tracer.start(pipeline, names, stats, BufferTap.both(dump == null ? BufferTap.NONE : dump,
                    journal == null ? BufferTap.NONE : journal));
        } catch (RuntimeException | Error e) {
            pipeline.close();
            trace.close();
            if (journal != null) {
                journal.close();
            }
            if (dump != null) {
                dump.discard();
                dumpOps.close();
            }
            throw e;
        }
        barrier = barriers ? SettleBarrier.start(tracer, pipeline, clock::now, opsOpened, barrierPeriodMs) : null;
        recording.open();
        Diagnostics.trace("session", "started with tracer " + tracer.name() + ", window from " + startNs);
    }

    static ProfilerSession open(DeviceTracer tracer, SessionOptions options) {
        claimSlot();
        try {
            return new ProfilerSession(tracer, options);
        } catch (IOException | RuntimeException e) {
            ACTIVE.set(false);
            if (e instanceof IOException) {
                throw new UncheckedIOException((IOException) e);
            }
            throw (RuntimeException) e;
        }
    }

    /** Takes the process's one session slot, or says that a session holds it. */
    static void claimSlot() {
        if (!ACTIVE.compareAndSet(false, true)) {
            throw new IllegalStateException("a profiler session is already active in this process");
        }
        SessionWarmup.sessionStarted();
    }

    static void releaseSlot() {
        ACTIVE.set(false);
    }

    /** One cycle of a step schedule: arms the tracer now; records nothing before {@link #record()}. */
    static ProfilerSession cycle(DeviceTracer tracer, SessionOptions options) throws IOException {
        return new ProfilerSession(tracer, options, false);
    }

    /** Opens the window of a cycle now; returns its start. */
    long record() {
        long now = clock.now();
        window.windowStart(now);
        if (dumpOps != null) {
            try {
                dumpOps.windowStart(now);
            } catch (IOException e) {
                throw new UncheckedIOException("writing the ops beside the buffer dump failed", e);
            }
        }
        return now;
    }

    /** Where the trace is committed. */
    Path traceTarget() {
        return options.trace();
    }

    /** Where the buffer dump is committed; null: no dump. */
    Path dumpTarget() {
        return options.dumpBuffers();
    }

    /** Whether {@code op} is the innermost open op of the calling thread. */
    boolean innermost(OpScope op) {
        return openOps.get().peek() == op;
    }

    /**
     * Opens a host op on the calling thread. Device work this thread launches until the op closes
     * is attributed to it (or to an op nested inside it).
     */
    @Override
    public OpScope op(String name) {
        return op(name, null);
    }

    /**
     * Opens a host op with args ({@code Input Dims} and the like, built once: {@link OpArgs#builder()})
     * that its {@code cpu_op} carries. The args are immutable and were checked and encoded when built:
     * passing the same object to every op of a kind costs a reference. Null: no args.
     */
    @Override
    public OpScope op(String name, OpArgs args) {
        if (closed) {
            return OpScope.inert(name);
        }
        // Before the clock: the walk is the op's caller's cost, not the op's time.
        OpStack stack = options.stackDepth() == 0 ? null : OpStacks.capture(options.stackDepth());
        return open(name, args, stack, false);
    }

    /**
     * Opens a user annotation on the calling thread: an op drawn as torch draws a
     * {@code record_function} scope ({@code user_annotation}: no args, no stack), which device work
     * launched inside it outside other ops is attributed to, as to any op. The scheduled session's
     * {@code ProfilerStep#N}.
     */
    OpScope annotation(String name) {
        if (closed) {
            return OpScope.inert(name);
        }
        return open(name, null, null, true);
    }

    private OpScope open(String name, OpArgs args, OpStack stack, boolean annotation) {
        if (!recording.enter()) {
            return OpScope.inert(name); // the session is stopping: its tracer may no longer take the id
        }
        OpScope op;
        try {
            long id = NEXT_EXTERNAL_ID.getAndIncrement();
            opsOpened.incrementAndGet();
            // The op's times bracket its id's stay on the vendor's stack: start read before the push,
            // end after the pop, so no call it launched can fall outside it.
            long start = clock.now();
            boolean pushed = tracer.pushCorrelation(new ExternalId(id));
            op = new OpScope(this, name, id, Thread.currentThread().getId(), start, pushed, args, stack, annotation);
        } finally {
            recording.exit();
        }
        openOps.get().push(op);
        return op;
    }

    void close(OpScope op) {
        ArrayDeque<OpScope> stack = openOps.get();
        if (stack.peek() != op) {
            throw new IllegalStateException("op '" + op.name() + "' closed out of order or on another thread"
                    + " (innermost open op here: " + (stack.peek() == null ? "none" : stack.peek().name()) + ")");
        }
        stack.pop();
        if (op.pushed()) {
            tracer.popCorrelation();
        }
        long end = clock.now();
        if (!recording.enter()) {
            return; // the session stopped while the op was open: counted at the stop
        }
        try {
            HostOp line = new HostOp(op.name(), new ExternalId(op.externalId()), op.thread(), op.startNs(), end,
                    Thread.currentThread().getName(), op.args(), op.stack(), op.annotation()); // close runs on the op's own thread
            pipeline.publish(line);
            if (journal != null) {
                journal.op(line);
            }
            if (dumpOps != null) {
                try {
                    dumpOps.op(line);
                } catch (IOException e) {
                    throw new UncheckedIOException("writing the ops beside the buffer dump failed", e);
                }
            }
        } finally {
            opsRecorded.incrementAndGet();
            recording.exit();
        }
    }

    /** Stops the tracer, flushes, completes and commits the trace. Idempotent. */
    @Override
    public synchronized void close() {
        finish(true);
    }

    /**
     * Ends the session without keeping its outputs (the traced program failed): the tracer is
     * stopped and no trace or dump file is left behind.
     */
    public synchronized void discard() {
        finish(false);
    }

    private void finish(boolean keep) {
        if (closed) {
            return;
        }
        stopTracer();
        complete(keep);
    }

    /**
     * The first half of closing: the window closes, the tracer is disarmed and flushed into the ring.
     * After it the tracer is free for another session while {@link #complete} writes this one.
     */
    synchronized void stopTracer() {
        closed = true;
        recording.closeAndDrain();
        boolean stopped = false;
        try {
            // Ops opened (ids taken) less ops recorded: those still open now end after the window.
            pipeline.accounting().hostOpsOpenAtStop(opsOpened.get() - opsRecorded.get());
            endNs = clock.now();
            window.windowEnd(endNs);
            long t0 = System.nanoTime();
            if (barrier != null) {
                barrier.stop(); // before the tracer: no flush may race its stop, no barrier follow the end
                barrier = null;
            }
            tracer.stop();
            long t1 = System.nanoTime();
            ClockAlignment alignment = alignHostClock();
            stopAnchor = anchor("stop");
            process = process.with(stopAnchor);
            pipeline.accounting().clockAnchors(process.anchors());
            pipeline.accounting().vendorDropped(tracer.droppedByVendor());
            stopTookNs = t1 - t0;
            alignTookNs = System.nanoTime() - t1;
            if (Diagnostics.enabled()) { // built only when printed, after the re-check's time was taken: a first build costs ms
                Diagnostics.trace("session", "host clock: bound " + alignment.startBoundNs() + " ns at start, " + alignment.endBoundNs()
                        + " ns at stop, drift " + alignment.driftNs() + " ns over " + alignment.spanNs() + " ns");
            }
            stopped = true;
        } finally {
            if (!stopped) {
                release();
            }
        }
    }

    /** The second half of closing, once {@link #stopTracer()} returned: the trace completed and committed (or discarded). */
    void complete(boolean keep) {
        try {
            long aligned = System.nanoTime();
            try {
                summary = pipeline.finish();
            } finally {
                // After the pipeline: the name stage reads kernel names (and the tap saves them) as
                // it goes. The records are real whether or not the trace is kept: so is the journal.
                if (journal != null) {
                    journal.anchor(stopAnchor);
                    journal.stop(endNs);
                    journal.close();
                }
            }
            if (Diagnostics.enabled()) { // the message is built only when printed: its first build costs milliseconds
                Diagnostics.trace("session", "closing: tracer stop (flush, decode) " + stopTookNs / 1_000 + " µs, clock re-check "
                        + alignTookNs / 1_000 + " µs, trace completed " + (System.nanoTime() - aligned) / 1_000 + " µs ("
                        + pipeline.finishBreakdown() + ")");
            }
            warnIfNothingLinked();
            if (keep) {
                trace.commit();
            }
            if (dump != null) {
                if (keep) {
                    dump.close();
                    dumpOps.close(endNs);
                    DevicePropertiesFile.write(DevicePropertiesFile.besides(options.dumpBuffers()), devices);
                    ProcessFactsFile.write(CaptureSidecars.PROCESS.besides(options.dumpBuffers()), process);
                } else {
                    dump.discard();
                    dumpOps.close();
                }
                dumpSettled = true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CaptureFailedException("interrupted while completing the trace", e);
        } catch (CaptureFailedException e) {
            if (keep) {
                throw e;
            }
        } catch (IOException e) {
            throw new CaptureFailedException("writing the trace failed: " + org.flagos.trace.capture.FailureWords.of(e), e);
        } finally {
            release();
        }
    }

    private void release() {
        pipeline.close();
        trace.close();
        if (dump != null && !dumpSettled) { // completing failed first: no partial dump is left
            dumpSettled = true;
            try {
                dump.discard();
                dumpOps.close();
            } catch (IOException e) {
                Diagnostics.warn("session", "deleting the partial buffer dump failed: " + e.getMessage());
            }
        }
        if (journal != null) {
            try {
                journal.close();
            } catch (IOException e) {
                Diagnostics.warn("session", "closing the journal failed: " + e.getMessage());
            }
        }
        if (ownsSlot) {
            ACTIVE.set(false);
        }
    }

    /** Pairs the real-time and monotonic clocks with the trace clock now ({@link ClockAnchor#take}). */
    private ClockAnchor anchor(String at) {
        return ClockAnchor.take(at, System::nanoTime, RealtimeClock::nowNs, clock::at);
    }

    /** The session's metadata for the journal, with who captured and the start anchor under {@link JournalSession#PROCESS_KEY}. */
    private Map<String, String> journalMetadata() {
        Map<String, String> metadata = new java.util.LinkedHashMap<>(options.metadata());
        metadata.put(JournalSession.PROCESS_KEY, ProcessFactsFile.text(process));
        return metadata;
    }

    /** Measures the host clock against the vendor's again; the drift and the bound go into the trace. Returns them. */
    private ClockAlignment alignHostClock() {
        ClockAlignment alignment = clock.recheck();
        pipeline.accounting().hostClock(alignment);
        if (alignment.drifted()) {
            String warning = "the host clock drifted " + alignment.driftNs() + " ns from " + tracer.name() + "'s over "
                    + alignment.spanNs() / 1_000_000 + " ms: op times may be off by up to " + alignment.errorBoundNs() + " ns";
            Diagnostics.warn("session", warning);
            pipeline.accounting().note(warning);
        }
        return alignment;
    }

    /**
     * Two silent failures, warned about whatever FLAGOS_TRACE says. First, the vendor delivered
     * nothing at all (callbacks registered too late). Second, the counterpart of kineto's missing
     * linked-activity resolver, as silent when it happens:
     * ops ran and device work was recorded, yet no device record reached an op through the vendor's
     * correlation bindings, so every self device time reads 0. Never gated by FLAGOS_TRACE.
     */
    private void warnIfNothingLinked() {
        CaptureAccounting counts = pipeline.accounting();
        long device = 0;
        long linked = 0;
        for (EventKind kind : EventKind.values()) {
            if (kind.isDevice()) {
                device += counts.decode().published(kind);
                linked += counts.joined(kind);
            }
        }
        if (tracer.available() && opsOpened.get() > 0 && counts.decode().publishedTotal() == 0) {
            String warning = tracer.name() + " delivered no activity record although ops ran: if they launched GPU work,"
                    + " the tracer was initialized after the process's first CUDA call (Profiler.init() must come first)";
            Diagnostics.warn("session", warning);
            counts.note(warning);
        }
        if (opsOpened.get() > 0 && device > 0 && linked == 0) {
            String warning = "no device record was linked to a host op (no " + tracer.name() + " correlation bindings"
                    + " arrived): device time cannot be attributed and every self device time reads 0";
            Diagnostics.warn("session", warning);
            counts.note(warning);
        }
    }

    /** Copies the completed trace to {@code path}; the session must be closed. */
    public void export(Path path) throws IOException {
        if (!closed) {
            throw new IllegalStateException("export after close: the trace is complete only then");
        }
        Files.copy(options.trace(), path, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The op summary; available after {@link #close()}. */
    public OpSummary summary() {
        return summary;
    }

    /** Every count of the session; complete after {@link #close()}. */
    public CaptureAccounting accounting() {
        return pipeline.accounting();
    }

    public DeviceTracer tracer() {
        return tracer;
    }

    /** Trace events written. */
    public long events() {
        return pipeline.events();
    }

    /** Every element of the trace file's {@code traceEvents} array (events, row labels, span markers), once closed. */
    public long traceEvents() {
        return pipeline.traceEvents();
    }

    private static String processName() {
        return "java " + ProcessHandle.current().pid();
    }
}
