package org.flagos.trace.stages;

import com.lmax.disruptor.EventHandler;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * The last stage: walks the named, joined, windowed records, joined to their annotation ranges, once
 * and hands a {@link TraceSink} what to encode; it reads records, never writes them. Everything every
 * output format shares happens here and only here: the parked and released slots of the join, the
 * window's verdict, the join's clock that settles host ops ({@link HostOpLedger}: a horizon of records
 * after an op, on the row of the thread its API calls ran on), pairing flow ends ({@link FlowIndex}),
 * the op summary ({@link OpSummaryFold}), the capture span and the final accounting, and the failure
 * latch: after a failure nothing more is handed to the sink, and the end of the capture still releases
 * whoever waits for it.
 *
 * <p>GPU annotations (on unless {@link #withoutGpuAnnotations()}): each op's span on each stream it
 * ran device work on, its nested ops' included, is folded by the ledger as the op settles and handed
 * over right after the op's row ({@code gpuAnnotation}), once {@link SpanNesting} finds it keeps the
 * stream's spans a nest; what it refuses, and streams past an op's limit, are counted.
 */
public final class TraceWalk implements EventHandler<TraceRecord> {
    /** Host rows of a capture that never names its process: kept clear of device pids (0..n). */
    private static final long UNKNOWN_HOST_PID = 1_000_000;
    /**
     * One second: a launch's device work completes within it in all but deep queues of long kernels;
     * its record arriving after the op settled is still drawn, and counted.
     */
    public static final long DEFAULT_BARRIER_BOUND_LAG_NS = 1_000_000_000L;

    private final TraceSink sink;
    private final TraceHeader header;
    private final CaptureAccounting accounting;
    private final NameStage naming;
    private final ExternalCorrelationJoin join;
    private final CaptureWindowFilter window;
    private final FlowIndex flows;
    private final OpSummaryFold fold;
    private final HostOpLedger ops;
    private final HostOpRow row = new HostOpRow();
    private final GpuAnnotationRow annotation = new GpuAnnotationRow();
    private final SpanNesting nesting = new SpanNesting();
    private boolean gpuAnnotations = true;
    private long annotations;
    private long annotationsNotNested;
    private final MemoryRows memory;
    private final AnnotationRangeJoin ranges;
    private final MarkRow mark = new MarkRow();
    private final UnifiedMemoryTotals unifiedMemory = new UnifiedMemoryTotals();
    /** Annotation ranges and marks drawn (ranges are op rows too: not counted as host ops). */
    private long rangesDrawn;
    private long marksDrawn;
    private final CountDownLatch finished = new CountDownLatch(1);
    /** {@link System#nanoTime()} when the end of the capture was walked to, the held ops written, the footer written. */
    private volatile long endSeenNs;
    private volatile long opsWrittenNs;
    private volatile long footerWrittenNs;

    private boolean started;
    private long base;
    private long hostPid = -1;
    /** Device and API records handed to the sink. */
    private long records;
    private long arrows;
    /** The vendor's own overhead drawn, and its time: the profiler's cost, for the accounting. */
    private long overheadRecords;
    private long overheadNs;
    /** Row labels and the capture span's events: in the trace, not in {@link #events()}. */
    private long markers;
    private volatile OpSummary summary;
    private volatile Throwable failure;
    /** False when the capture has no host ops: nothing then needs the per-op tables. */
    private volatile boolean hostOpsExpected = true;
    /** How long before a flush barrier an op with records must have ended to settle at it. */
    private volatile long barrierBoundLagNs = DEFAULT_BARRIER_BOUND_LAG_NS;

    /**
     * Walks a capture into {@code sink}; {@code names} is read (op names for the summary), never
     * written. The stages before the walk are read once, at the end of the capture, for their counts
     * ({@link CaptureAccounting#chainCounts}, and the annotation ranges' in the accounting's
     * {@code annotations} block) and the window's bounds; the join also gives the horizon. A range's
     * closing marker and the records it enclosed arrive with its External id ({@link AnnotationRangeJoin}).
     */
    public TraceWalk(TraceSink sink, NameTable names, TraceHeader header, CaptureAccounting accounting,
                     StagesBeforeWalk stages) {
        this.sink = sink;
        this.header = header;
        this.accounting = accounting;
        this.naming = stages.names();
        this.join = stages.join();
        this.window = stages.window();
        int horizon = join.horizon();
        this.flows = new FlowIndex(horizon);
        this.fold = new OpSummaryFold(names);
        this.ops = new HostOpLedger(fold, horizon, horizon);
        this.memory = new MemoryRows(sink, ops::written);
        this.ranges = stages.ranges();
    }

    /**
     * Declares that this capture has no host ops (a replay without an ops file): device time per
     * op and API threads per op, kept for the summary and the op rows, are then not collected.
     */
    public void expectNoHostOps() {
        hostOpsExpected = false;
    }

    /**
     * Draws no GPU annotation spans (they are drawn by default, as torch draws them); before the first
     * record.
     */
    public void withoutGpuAnnotations() {
        gpuAnnotations = false;
    }

    /**
     * Declares that no device or API record will come (a session without a tracer): ops settled
     * because the walk holds its most lose no device time and are not counted as settled early.
     */
    public void expectNoDeviceRecords() {
        ops.expectNoRecords();
    }

    /**
     * Settles each host op once {@code records} (activity records and bindings) have arrived after it,
     * instead of the join's horizon: a live session whose tracer delivers an op's records within that
     * many ({@code DeviceTracer.opSettleRecords}), so that ops settle and their rows are written while
     * the session runs, not all at its close. Records that name an op settled already are drawn and
     * counted ({@code reorder_horizon.records_after_op_settled}). Zero, or not less than the join's
     * horizon, changes nothing (a replay). Before the first record.
     */
    public void settleOpsAfter(int records) {
        ops.settleAfter(records);
    }

    /**
     * Declares that flush barriers ({@code RecordType.FLUSH_BARRIER}) will come, and how long before one an op that launched
     * something must have ended to settle at it (ops that launched nothing settle at the first
     * barrier after their end): {@value #DEFAULT_BARRIER_BOUND_LAG_NS} ns by default. Before the first record.
     */
    public void barrierBoundLag(long ns) {
        barrierBoundLagNs = Math.max(0, ns);
        ops.expectBarriers();
    }

    @Override
    public void onEvent(TraceRecord slot, long sequence, boolean endOfBatch) {
        boolean end = slot.type == RecordType.END_OF_CAPTURE;
        try {
            if (end) {
                endSeenNs = System.nanoTime();
                accounting.chainCounts(naming, join, window); // complete even when the writing failed
            }
            if (failure != null) {
                return; // after a failure nothing more is written; the capture is discarded
            }
            if (!started && gpuAnnotations && hostOpsExpected && ops.spans == null) {
                ops.annotateStreams();
            }
            if (!slot.parked) {
                walk(slot);
            }
            for (int i = 0; i < slot.releasedCount(); i++) {
                walk(slot.released(i));
            }
            if (slot.type == RecordType.FLUSH_BARRIER) {
                if (started && hostOpsExpected) {
                    ops.barrier(slot.startNs, barrierBoundLagNs);
                }
            } else if (slot.type == RecordType.ACTIVITY || slot.type == RecordType.CORRELATION_BINDING) {
                ops.record(); // the join's clock: parked records come back within a horizon of these
                if (memory.held() > 0) {
                    memory.arrival();
                }
            }
            if (end) {
                finish(slot.nameId);
            } else if (started) {
                ops.settle();
                writeSettledOps();
                if (endOfBatch) {
                    sink.endOfBatch();
                }
            }
        } catch (Throwable e) { // Errors included (out of memory): the capture must end, never hang
            if (failure == null) {
                failure = e;
                abandonSink();
            }
        } finally {
            if (end) {
                finished.countDown();
            }
        }
    }

    private void walk(TraceRecord r) throws IOException {
        if (r.outsideWindow) {
            return;
        }
        if (r.type == RecordType.ACTIVITY) {
            startIfNeeded(r.startNs);
            if (r.kind == EventKind.MARKER) {
                marker(r);
                return;
            }
            if (r.kind == EventKind.UNIFIED_MEMORY) {
                sink.unifiedMemory(r); // no correlation, no thread: no op, no arrow, no memory row
                unifiedMemory.add(r);
            } else if (r.kind == EventKind.OVERHEAD) {
                sink.overheadSlice(r);
                fold.overhead(r.nameId, r.startNs, r.endNs); // a row of the summary, in the op around it
                overheadRecords++;
                overheadNs += r.durationNs();
            } else if (r.kind.isDevice()) {
                device(r);
            } else if (r.kind.isInstant()) {
                memory.record(r, flows); // drawn now or once its runtime call is walked (records counts it then)
                return;
            } else {
                api(r);
            }
            records++;
        } else if (r.type == RecordType.CORRELATION_BINDING) {
            if (hostOpsExpected && ops.live() && r.hasExternalId()) {
                ops.bound(r.externalId()); // its op launched something: a flush barrier leaves it to its records
            }
        } else if (r.type == RecordType.HOST_OP) {
            startIfNeeded(r.startNs);
            ops.op(r.nameId, r.externalId(), r.threadId, r.startNs, r.endNs, r.threadNameId);
            ops.detail(r.opArgs, r.opStack);
            if (r.opAnnotation) {
                ops.userAnnotation();
            }
        }
    }

    /**
     * An annotation marker: a range's end that {@link AnnotationRangeJoin} paired with its start
     * carries the whole range, which goes to the ledger as a host op of its own External id (it
     * settles, nests and sums device time like one); a mark is drawn now. A start, and an end paired
     * with nothing (counted by that stage), draw nothing.
     */
    private void marker(TraceRecord r) throws IOException {
        switch (r.markerPhase) {
            case START:
                break;
            case END:
                if (r.externalIdOfRange()) {
                    ops.op(r.nameId, r.externalId(), r.threadId, r.startNs, r.endNs, -1);
                    ops.annotation(r.domainNameId);
                }
                break;
            default:
                mark.nameId = r.nameId;
                mark.domainNameId = r.domainNameId;
                mark.pid = hostPid != -1 ? hostPid : r.processId;
                mark.tid = r.threadId;
                mark.tsNs = r.startNs;
                sink.markInstant(mark);
                marksDrawn++;
        }
    }

    private void startIfNeeded(long firstNs) throws IOException {
        if (started) {
            return;
        }
        started = true;
        // The base is a whole second at or before everything drawn, the capture span included: a
        // window opened in the second before the first record would otherwise get a negative ts, which
        // Perfetto's JSON reader (v20.1) mis-parses by the fraction's sign (-154392.982 read as
        // -154391.018 µs on a re-recorded H200 capture).
        long earliest = window.windowStart() != Long.MIN_VALUE ? Math.min(firstNs, window.windowStart()) : firstNs;
        base = header.baseTimeNs() != null ? header.baseTimeNs() : Math.floorDiv(earliest, 1_000_000_000L) * 1_000_000_000L;
        sink.header(base);
    }

    private void api(TraceRecord r) throws IOException {
        if (hostPid == -1) {
            hostPid = r.processId;
        }
        if (r.hasExternalId() && hostOpsExpected && !r.externalIdOfRange()) { // a range's id teaches no op its thread
            ops.api(r.externalId(), r.threadId);
        }
        sink.apiSlice(r);
        fold.call(r.nameId, r.threadId, r.startNs, r.endNs); // on its row, as the trace nests it
        memory.api(r);
        if (r.hasCorrelation()) {
            flow(flows.host(r.correlation(), r.startNs, r.processId, r.threadId));
            for (FlowArrow more; (more = flows.nextArrow()) != null; ) { // a graph launch's records that came before it
                flow(more);
            }
        }
    }

    private void device(TraceRecord r) throws IOException {
        // a synchronization is the host waiting, not device work: it keeps its op's id, not its device time;
        // a range's id (launched inside an annotation range, outside every op) counts with or without host ops
        if (r.kind != EventKind.SYNC && r.hasExternalId() && (hostOpsExpected || r.externalIdOfRange())) {
            ops.device(r.externalId(), StreamSpans.streamKey(r.device, r.stream), r.startNs, r.endNs);
        }
        int row = deviceRow(r);
        sink.deviceSlice(r, row);
        if (r.kind != EventKind.SYNC) { // a synchronization is no device row of the summary (KeyAveragesRule)
            fold.deviceEvent(r.nameId, r.startNs, r.endNs - r.startNs);
        }
        if (r.hasCorrelation()) {
            flow(flows.device(r.correlation(), r.startNs, r.device, row, r.has(RecordField.GRAPH) ? r.graphNodeId & Long.MAX_VALUE : -1));
        }
    }

    /**
     * The row of its device a device record is drawn on, and its flow arrow ends at: its stream's, but
     * a synchronization that concerns no stream (stream -1: a context or event sync) on torch's device
     * row. The one place this is decided; the sinks encode the row they are given.
     */
    static int deviceRow(TraceRecord r) {
        return r.kind == EventKind.SYNC && r.stream == -1 ? TraceSink.DEVICE_ROW : r.stream;
    }

    private void flow(FlowArrow arrow) throws IOException {
        if (arrow != null) {
            sink.flow(arrow);
            arrows++;
        }
    }

    /**
     * Hands over the op rows that are due. An op goes on the row of the thread its API calls ran
     * on, so an op and the launches inside it line up: an ops file may name threads differently
     * from the vendor (OS tid versus pthread id), so the ledger learns the mapping through the
     * External ids both sides carry.
     */
    private void writeSettledOps() throws IOException {
        for (int s; (s = ops.nextRow()) >= 0; ) {
            if (hostPid == -1) { // no API record yet: the rows of this capture's ops stay on one pid from now on
                hostPid = hostPid();
            }
            row.nameId = ops.nameId[s];
            row.pid = hostPid;
            row.tid = ops.row(s);
            row.threadNameId = ops.threadNameId[s];
            row.startNs = ops.start[s];
            row.endNs = ops.end[s];
            row.externalId = ops.externalId[s];
            row.thread = ops.thread[s];
            row.evIdx = ops.written() - 1 + memory.drawn(); // one numbering with the memory events (0 without)
            row.args = ops.args[s];
            row.stack = ops.stacks[s];
            row.annotation = ops.annotation[s];
            row.domainNameId = ops.domainId[s];
            if (ops.range[s]) {
                row.thread = -1; // the vendor's thread is the row; a range has no ops-file thread
                rangesDrawn++;
            }
            ops.args[s] = null; // the slot is free now: hold no op's args past its row
            ops.stacks[s] = null;
            sink.hostOpSlice(row);
            if (ops.spans != null) {
                writeAnnotations(s);
            }
        }
    }

    /**
     * The op's spans on the streams it ran work on, after its row: those that keep each stream's spans a
     * nest. Each is drawn 1 ns wider on both sides than its records, as torch 2.11 draws them (every span
     * of h200-kinds' torch trace): a span that began and ended with its records would tie with them, and
     * a viewer would nest the record first written outside it (Catapult then bound the launch's arrow to
     * the span, and Perfetto closed the span at the record's end).
     */
    private void writeAnnotations(int s) throws IOException {
        StreamSpans spans = ops.spans;
        for (int i = 0; i < spans.count(s); i++) {
            long stream = spans.key(s, i);
            long start = spans.start(s, i) - 1;
            long end = spans.end(s, i) + 1;
            if (!nesting.accept(stream, start, end)) {
                annotationsNotNested++;
                continue;
            }
            annotation.nameId = ops.nameId[s];
            annotation.device = StreamSpans.device(stream);
            annotation.stream = StreamSpans.stream(stream);
            annotation.startNs = start;
            annotation.endNs = end;
            annotation.externalId = ops.externalId[s];
            sink.gpuAnnotation(annotation);
            annotations++;
        }
    }

    private void finish(int spanNameId) throws IOException {
        boolean bounded = window.windowStart() != Long.MIN_VALUE && window.windowEnd() != Long.MAX_VALUE;
        startIfNeeded(bounded ? window.windowStart() : 0);
        ops.finish();
        writeSettledOps();
        opsWrittenNs = System.nanoTime();
        memory.finish();
        if (memory.drawn() > 0) {
            accounting.memory(memory.drawn(), memory.withoutThread(), memory.unseenReleases(), memory.maxHeld());
        }
        String crossing = fold.crossingNote();
        if (crossing != null) {
            accounting.note(crossing);
        }
        accounting.hostOps(ops.written() - rangesDrawn);
        if (rangesDrawn > 0 || marksDrawn > 0 || ranges.endsWithoutStart() > 0 || ranges.neverClosed() > 0
                || ranges.duplicateStarts() > 0 || ranges.openAtCapacity() > 0) {
            accounting.annotations(rangesDrawn, marksDrawn, ranges.endsWithoutStart(), ranges.duplicateStarts(),
                    ranges.neverClosed(), ranges.openAtCapacity(), ranges.callsAttributed(), ranges.deviceRecordsAttributed());
        }
        accounting.opsSettling(ops.unclaimedDeviceRecords(), ops.settledAtCapacity(), fold.approximate(),
                ops.drawnBeforeRowKnown(), ops.maxHeld());
        if (ops.live()) {
            accounting.opsSettledSooner(ops.settlesAfter(), ops.recordsAfterSettled());
            accounting.flushBarriers(ops.barriers(), ops.settledAtBarrier());
        }
        accounting.flowEndsGivenUp(flows.givenUp());
        accounting.profilerOverhead(overheadRecords, overheadNs);
        if (unifiedMemory.total() > 0) {
            accounting.unifiedMemory(unifiedMemory);
        }
        accounting.gpuAnnotations(annotations, annotationsNotNested, ops.spansPastLimit());
        markers = sink.footer(new TraceFooter(hostPid(), bounded, window.windowStart(), window.windowEnd(), spanNameId,
                events(), accounting));
        footerWrittenNs = System.nanoTime();
        summary = fold.summary();
    }

    /**
     * Where the walk's end went, for the close's diagnostic: {@link System#nanoTime()} when the
     * end-of-capture record reached the walk, when the ops still held were settled and written, and
     * when the footer was (0 where not reached). Read after {@link #awaitFinished()}.
     */
    public long[] endTimesNs() {
        return new long[] {endSeenNs, opsWrittenNs, footerWrittenNs};
    }

    /** The pid of the host rows: the first API record's, else the header's, else one clear of devices. */
    private long hostPid() {
        return hostPid != -1 ? hostPid : header.processId() != -1 ? header.processId() : UNKNOWN_HOST_PID;
    }

    /** Lets the sink release what it holds beside the stream; a failure there is the first one's companion, not news. */
    private void abandonSink() {
        try {
            sink.abandon();
        } catch (Throwable second) {
            failure.addSuppressed(second);
        }
    }

    /** Waits until the end-of-capture record was walked (or walking failed). */
    public void awaitFinished() throws InterruptedException {
        finished.await();
    }

    /** The op summary, available once the capture finished. */
    public OpSummary summary() {
        return summary;
    }

    /** The first failure while walking or encoding, or null. */
    public Throwable failure() {
        return failure;
    }

    /** Trace events written: records, host op rows, GPU annotations and, in a format that draws them as events, flow halves. */
    public long events() {
        return records + memory.drawn() + marksDrawn + ops.written() + annotations + arrows * sink.eventsPerFlow();
    }

    /** Every event the trace holds once the capture finished: {@link #events()} plus row labels and span markers. */
    public long traceEvents() {
        return events() + markers;
    }
}
