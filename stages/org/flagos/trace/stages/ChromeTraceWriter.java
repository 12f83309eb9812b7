package org.flagos.trace.stages;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.JsonText;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Stage 4, last: streams the torch-compatible Chrome trace with Jackson's generator. Device and API
 * records are written as they arrive, a flow arrow as soon as both its ends have, a host op once it
 * settles ({@link HostOpLedger}: a horizon of records after it, on the row of the thread its API
 * calls ran on); row labels and the capture span are written when the capture ends, followed by the
 * accounting block. Reads only vendor-neutral records.
 */
public final class ChromeTraceWriter implements TraceWriter, FlowIndex.ArrowSink, HostOpLedger.RowSink {
    private static final JsonFactory JSON = new JsonFactory();

    /** Host rows of a capture that never names its process: kept clear of device pids (0..n). */
    private static final long UNKNOWN_HOST_PID = 1_000_000;
    /** Jackson's default output buffer size (BufferRecycler's write-encoding buffer). */
    private static final int JACKSON_OUTPUT_BUFFER = 8000;

    private static final byte[] CPU_OP_HEAD = EventBytes.ascii("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":");
    private static final byte[][] DEVICE_HEAD = new byte[EventKind.count()][];
    private static final byte[] PID_ = EventBytes.ascii(",\"pid\":");
    private static final byte[] TID_ = EventBytes.ascii(",\"tid\":");
    private static final byte[] TS_ = EventBytes.ascii(",\"ts\":");
    private static final byte[] DUR_ = EventBytes.ascii(",\"dur\":");
    private static final byte[] ARGS_ = EventBytes.ascii(",\"args\":{");
    private static final byte[] END_ARGS_AND_EVENT = EventBytes.ascii("}}");
    private static final byte[] COMMA = EventBytes.ascii(",");
    private static final byte[] CLOSE_ARRAY = EventBytes.ascii("]");
    private static final byte[] EXTERNAL_ID_ = EventBytes.ascii("\"External id\":");
    private static final byte[] CBID_ = EventBytes.ascii("\"cbid\":");
    private static final byte[] COMMA_CBID_ = EventBytes.ascii(",\"cbid\":");
    private static final byte[] CORRELATION_ = EventBytes.ascii(",\"correlation\":");
    private static final byte[] FIRST_CORRELATION_ = EventBytes.ascii("\"correlation\":");
    private static final byte[] QUEUED_ = EventBytes.ascii("\"queued\":");
    private static final byte[] DEVICE_ = EventBytes.ascii("\"device\":");
    private static final byte[] CONTEXT_ = EventBytes.ascii(",\"context\":");
    private static final byte[] STREAM_ = EventBytes.ascii(",\"stream\":");
    private static final byte[] REGISTERS_ = EventBytes.ascii(",\"registers per thread\":");
    private static final byte[] SHARED_MEMORY_ = EventBytes.ascii(",\"shared memory\":");
    private static final byte[] BLOCKS_PER_SM_ = EventBytes.ascii(",\"blocks per SM\":");
    private static final byte[] WARPS_PER_SM_ = EventBytes.ascii(",\"warps per SM\":");
    private static final byte[] GRID_ = EventBytes.ascii(",\"grid\":[");
    private static final byte[] BLOCK_ = EventBytes.ascii(",\"block\":[");
    private static final byte[] OCCUPANCY_ = EventBytes.ascii(",\"est. achieved occupancy %\":");
    private static final byte[] BYTES_ = EventBytes.ascii(",\"bytes\":");
    private static final byte[] BANDWIDTH_ = EventBytes.ascii(",\"memory bandwidth (GB/s)\":");
    private static final byte[] VALUE_ = EventBytes.ascii(",\"value\":");
    private static final byte[] CPU_OP_ARGS_ = EventBytes.ascii(",\"Record function id\":0,\"Ev Idx\":");
    private static final byte[] CPU_OP_EMPTY_INPUTS =
            EventBytes.ascii(",\"Input Dims\":[],\"Input Strides\":[],\"Input type\":[],\"Concrete Inputs\":[]");
    private static final byte[] THREAD_ = EventBytes.ascii(",\"thread\":");
    private static final byte[] FLOW_S_HEAD = EventBytes.ascii("{\"ph\":\"s\",\"id\":");
    private static final byte[] FLOW_F_HEAD = EventBytes.ascii("{\"ph\":\"f\",\"id\":");
    private static final byte[] FLOW_S_TAIL = EventBytes.ascii(",\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
    private static final byte[] FLOW_F_TAIL = EventBytes.ascii(",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");

    static {
        for (int k = 0; k < EventKind.count(); k++) {
            DEVICE_HEAD[k] = EventBytes.ascii("{\"ph\":\"X\",\"cat\":\"" + EventKind.ofOrdinal(k).category() + "\",\"name\":");
        }
    }

    private final OutputStream out;
    private final NameTable names;
    private final TraceHeader header;
    private final CaptureAccounting accounting;
    private final EventBytes event = new EventBytes();
    private final FixedDecimal sixDecimals = new FixedDecimal();
    private final FlowIndex flows;
    private final OpSummaryFold fold;
    private final HostOpLedger ops;
    private final TraceRows rows = new TraceRows();
    private final CaptureSpan span = new CaptureSpan();
    private byte[][] nameCache = new byte[256][];
    private final CountDownLatch finished = new CountDownLatch(1);

    private JsonGenerator g;
    private long base;
    private long hostPid = -1;
    private long events;
    /** Row labels and the capture span's events: in {@code traceEvents}, not in {@link #events()}. */
    private long markers;
    private volatile OpSummary summary;
    private volatile Throwable failure;
    /** False when the capture has no host ops: nothing then needs the per-op tables. */
    private volatile boolean hostOpsExpected = true;
    private final byte[] runtimeHead;
    private final byte[] driverHead;

    public ChromeTraceWriter(OutputStream out, NameTable names, TraceHeader header, CaptureAccounting accounting) {
        this(out, names, header, accounting, EventKind::category);
    }

    /** @param apiCategory the category of API records per kind, as the vendor names it ({@link org.flagos.trace.model.ApiNames#category}) */
    public ChromeTraceWriter(OutputStream out, NameTable names, TraceHeader header, CaptureAccounting accounting,
                             java.util.function.Function<EventKind, String> apiCategory) {
        this.runtimeHead = apiHead(apiCategory.apply(EventKind.RUNTIME));
        this.driverHead = apiHead(apiCategory.apply(EventKind.DRIVER));
        this.out = out;
        this.names = names;
        this.header = header;
        this.accounting = accounting;
        this.flows = new FlowIndex(accounting.join().horizon());
        this.fold = new OpSummaryFold(names);
        this.ops = new HostOpLedger(fold, accounting.join().horizon(), accounting.join().horizon());
    }

    /**
     * Declares that this capture has no host ops (a replay without an ops file): device time per
     * op and API threads per op, kept for the summary and the op rows, are then not collected.
     */
    @Override
    public void expectNoHostOps() {
        hostOpsExpected = false;
    }

    /**
     * Declares that no device or API record will come (a session without a tracer): ops settled
     * because the writer holds its most lose no device time and are not counted as settled early.
     */
    @Override
    public void expectNoDeviceRecords() {
        ops.expectNoRecords();
    }

    @Override
    public void onEvent(TraceRecord slot, long sequence, boolean endOfBatch) {
        boolean end = slot.type == RecordType.END_OF_CAPTURE;
        try {
            if (failure != null) {
                return; // after a failure nothing more is written; the capture is discarded
            }
            if (!slot.parked) {
                write(slot);
            }
            for (int i = 0; i < slot.releasedCount(); i++) {
                write(slot.released(i));
            }
            if (slot.type == RecordType.ACTIVITY || slot.type == RecordType.CORRELATION_BINDING) {
                ops.record(); // the join's clock: parked records come back within a horizon of these
            }
            if (g != null && !end) {
                ops.settle(this);
            }
            if (end) {
                finish();
            } else if (endOfBatch && g != null) {
                g.flush();
                out.flush();
            }
        } catch (Throwable e) { // Errors included (out of memory): the capture must end, never hang
            if (failure == null) {
                failure = e;
            }
        } finally {
            if (end) {
                finished.countDown();
            }
        }
    }

    private void write(TraceRecord r) throws IOException {
        if (r.outsideWindow) {
            return;
        }
        if (r.type == RecordType.ACTIVITY) {
            startIfNeeded(r.startNs);
            if (r.kind.isDevice()) {
                writeDevice(r);
            } else {
                writeApi(r);
            }
            events++;
        } else if (r.type == RecordType.HOST_OP) {
            startIfNeeded(r.startNs);
            ops.op(r.nameId, r.externalId(), r.threadId, r.startNs, r.endNs, r.threadNameId);
        }
    }

    private void startIfNeeded(long firstNs) throws IOException {
        if (g != null) {
            return;
        }
        base = header.baseTimeNs() != null ? header.baseTimeNs() : Math.floorDiv(firstNs, 1_000_000_000L) * 1_000_000_000L;
        g = JSON.createGenerator(out, JsonEncoding.UTF8);
        g.disable(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM);
        g.writeStartObject();
        g.writeNumberField("schemaVersion", 1);
        g.writeArrayFieldStart("deviceProperties");
        for (DeviceProperties p : header.devices()) {
            writeDeviceProperties(p);
        }
        g.writeEndArray();
        JsonText.writeStringField(g, "traceName", header.traceName());
        for (Map.Entry<String, String> e : header.metadata().entrySet()) {
            g.writeFieldName(e.getKey());
            writeMetadataValue(g, e.getValue());
        }
        g.writeStringField("displayTimeUnit", "ms");
        g.writeNumberField("baseTimeNanoseconds", base);
        g.writeArrayFieldStart("traceEvents");
    }

    private static byte[] apiHead(String category) {
        byte[] quoted = JsonText.quotedUtf8(category);
        byte[] start = EventBytes.ascii("{\"ph\":\"X\",\"cat\":\"");
        byte[] end = EventBytes.ascii("\",\"name\":");
        byte[] head = java.util.Arrays.copyOf(start, start.length + quoted.length + end.length);
        System.arraycopy(quoted, 0, head, start.length, quoted.length);
        System.arraycopy(end, 0, head, start.length + quoted.length, end.length);
        return head;
    }

    /** Writes {@code text} raw when it is a JSON literal, quoted otherwise. */
    static void writeMetadataValue(JsonGenerator g, String text) throws IOException {
        if (text != null && JsonLiteral.isLiteral(text)) {
            g.writeRawValue(text);
        } else if (text == null) {
            g.writeNull();
        } else {
            JsonText.writeString(g, text);
        }
    }

    private void writeDeviceProperties(DeviceProperties p) throws IOException {
        p.writeJson(g);
    }

    private void writeApi(TraceRecord r) throws IOException {
        if (hostPid == -1) {
            hostPid = r.processId;
        }
        rows.hostThread(r.threadId);
        EventBytes e = event.reset()
                .raw(r.kind == EventKind.DRIVER ? driverHead : runtimeHead).string(name(r.nameId))
                .raw(PID_).number(r.processId).raw(TID_).number(r.threadId)
                .raw(TS_).micros(r.startNs - base).raw(DUR_).micros(r.endNs - r.startNs)
                .raw(ARGS_);
        boolean first = true;
        if (r.hasExternalId()) {
            e.raw(EXTERNAL_ID_).number(r.externalId());
            if (hostOpsExpected) {
                rememberApiThread(r.externalId(), r.threadId);
            }
            first = false;
        }
        if (r.has(RecordField.CBID)) {
            e.raw(first ? CBID_ : COMMA_CBID_).number(r.cbid);
            first = false;
        }
        if (r.hasCorrelation()) {
            e.raw(first ? FIRST_CORRELATION_ : CORRELATION_).unsigned(r.correlation());
        }
        emit(e.raw(END_ARGS_AND_EVENT));
        if (r.hasCorrelation()) {
            flows.host(r.correlation(), r.startNs, r.processId, r.threadId, this);
        }
    }

    private void writeDevice(TraceRecord r) throws IOException {
        rows.deviceStream(r.device, r.stream);
        int nameId = r.nameId;
        if (nameId < 0) {
            nameId = names.intern(transferName(r));
            r.nameId = nameId;
        }
        EventBytes e = event.reset()
                .raw(DEVICE_HEAD[r.kind.ordinal()]).string(name(nameId))
                .raw(PID_).number(r.device).raw(TID_).number(r.stream)
                .raw(TS_).micros(r.startNs - base).raw(DUR_).micros(r.endNs - r.startNs)
                .raw(ARGS_);
        if (r.hasExternalId()) {
            e.raw(EXTERNAL_ID_).number(r.externalId()).raw(COMMA);
            if (hostOpsExpected) {
                addDeviceTime(r.externalId(), r.durationNs());
            }
        }
        if (r.has(RecordField.QUEUED)) {
            e.raw(QUEUED_).number(r.queued).raw(COMMA);
        }
        e.raw(DEVICE_).number(r.device);
        if (r.has(RecordField.CONTEXT)) {
            e.raw(CONTEXT_).number(r.context);
        }
        e.raw(STREAM_).number(r.stream);
        if (r.hasCorrelation()) {
            e.raw(CORRELATION_).unsigned(r.correlation());
        }
        if (r.kind == EventKind.KERNEL) {
            writeKernelArgs(e, r);
        } else {
            if (r.has(RecordField.BYTES)) {
                long dur = r.durationNs();
                e.raw(BYTES_).number(r.bytes).raw(BANDWIDTH_);
                if (dur > 0) {
                    e.number((double) r.bytes / dur); // bytes per ns is GB/s
                } else {
                    e.number(0);
                }
            }
            if (r.has(RecordField.MEMSET_VALUE)) {
                e.raw(VALUE_).number(r.memsetValue);
            }
        }
        emit(e.raw(END_ARGS_AND_EVENT));
        if (r.hasCorrelation()) {
            flows.device(r.correlation(), r.startNs, r.device, r.stream, this);
        }
    }

    /** torch's name for a copy or memset; a vendor without memory kinds gets the shorter form. */
    static String transferName(TraceRecord r) {
        if (r.kind == EventKind.MEMCPY) {
            String direction = r.copyKind == null ? "" : " " + r.copyKind.label();
            return r.srcKind == null || r.dstKind == null ? "Memcpy" + direction
                    : "Memcpy" + direction + " (" + r.srcKind.label() + " -> " + r.dstKind.label() + ")";
        }
        return r.memoryKind == null ? "Memset" : "Memset (" + r.memoryKind.label() + ")";
    }

    private void writeKernelArgs(EventBytes e, TraceRecord r) {
        if (r.has(RecordField.REGISTERS)) {
            e.raw(REGISTERS_).number(r.registersPerThread);
        }
        if (r.has(RecordField.SHARED_MEMORY)) {
            e.raw(SHARED_MEMORY_).number((long) r.staticSharedMemory + r.dynamicSharedMemory);
        }
        if (!Float.isNaN(r.blocksPerSm)) {
            e.raw(BLOCKS_PER_SM_);
            sixDecimals(e, r.blocksPerSm);
            e.raw(WARPS_PER_SM_);
            sixDecimals(e, r.warpsPerSm);
        }
        if (r.has(RecordField.GRID)) {
            e.raw(GRID_).number(r.gridX).raw(COMMA).number(r.gridY).raw(COMMA).number(r.gridZ).raw(CLOSE_ARRAY);
        }
        if (r.has(RecordField.BLOCK)) {
            e.raw(BLOCK_).number(r.blockX).raw(COMMA).number(r.blockY).raw(COMMA).number(r.blockZ).raw(CLOSE_ARRAY);
        }
        if (r.occupancyPercent != TraceRecord.NO_OCCUPANCY) {
            e.raw(OCCUPANCY_).number(r.occupancyPercent);
        }
    }

    private void sixDecimals(EventBytes e, float value) {
        e.number(sixDecimals.format(value));
    }

    /**
     * Hands one assembled event to Jackson. When the event would not fit in Jackson's output buffer,
     * the buffer is written out first, so Jackson copies the event instead of allocating for it.
     */
    private void emit(EventBytes e) throws IOException {
        if (g.getOutputBuffered() + e.length() + 1 > JACKSON_OUTPUT_BUFFER) {
            g.flush(); // FLUSH_PASSED_TO_STREAM is off: this writes Jackson's buffer, no syscall flush
        }
        g.writeRawValue(e);
    }

    private byte[] name(int id) {
        if (id >= nameCache.length) {
            nameCache = Arrays.copyOf(nameCache, Math.max(id + 1, nameCache.length * 2));
        }
        byte[] s = nameCache[id];
        if (s == null) {
            s = JsonText.quotedUtf8(names.name(id));
            nameCache[id] = s;
        }
        return s;
    }

    private void addDeviceTime(long externalId, long ns) {
        ops.device(externalId, ns);
    }

    private void rememberApiThread(long externalId, long thread) {
        ops.api(externalId, thread);
    }

    private void finish() throws IOException {
        startIfNeeded(windowBounded() ? accounting.window().windowStart() : 0);
        ops.finish(this);
        String crossing = fold.crossingNote();
        if (crossing != null) {
            accounting.note(crossing);
        }
        long pid = hostPid();
        long labelTs = (windowBounded() ? accounting.window().windowStart() : base) - base;
        markers = rows.writeLabels(g, pid, header.processName(), labelTs);
        if (windowBounded()) {
            span.write(g, accounting.window().windowStart(), accounting.window().windowEnd(), base);
            markers += CaptureSpan.EVENTS;
        }
        g.writeEndArray();
        g.writeObjectFieldStart("flagtrace");
        g.writeNumberField("events", events + ops.written());
        accounting.hostOps(ops.written());
        accounting.opsSettling(ops.unclaimedDeviceRecords(), ops.settledAtCapacity(), fold.approximate(),
                ops.drawnBeforeRowKnown(), ops.maxHeld());
        accounting.flowEndsGivenUp(flows.givenUp());
        accounting.write(g);
        g.writeEndObject();
        g.writeEndObject();
        g.flush();
        g.close();
        summary = fold.summary();
    }

    @Override
    public void arrow(long correlation, long hostTs, long hostPid, long hostTid, long deviceTs, int devicePid, int deviceTid)
            throws IOException {
        emit(event.reset().raw(FLOW_S_HEAD).unsigned(correlation).raw(PID_).number(hostPid).raw(TID_).number(hostTid)
                .raw(TS_).micros(hostTs - base).raw(FLOW_S_TAIL));
        emit(event.reset().raw(FLOW_F_HEAD).unsigned(correlation).raw(PID_).number(devicePid).raw(TID_).number(deviceTid)
                .raw(TS_).micros(deviceTs - base).raw(FLOW_F_TAIL));
        events += 2;
    }

    /**
     * Host ops go on the row of the thread their API calls ran on, so an op and the launches inside
     * it line up. An ops file may name threads differently from the vendor (OS tid versus pthread
     * id), so the mapping is learned through the External ids both sides carry.
     */
    @Override
    public void cpuOp(HostOpLedger settled, int i, long evIdx) throws IOException {
        long tid = settled.row(i);
        rows.hostThread(tid);
        if (settled.threadNameId[i] >= 0) {
            rows.hostThreadName(tid, names.name(settled.threadNameId[i]));
        }
        if (hostPid == -1) { // no API record yet: the rows of this capture's ops stay on one pid from now on
            hostPid = hostPid();
        }
        EventBytes e = event.reset().raw(CPU_OP_HEAD).string(name(settled.nameId[i]))
                .raw(PID_).number(hostPid).raw(TID_).number(tid)
                .raw(TS_).micros(settled.start[i] - base).raw(DUR_).micros(settled.end[i] - settled.start[i])
                .raw(ARGS_).raw(EXTERNAL_ID_).number(settled.externalId[i])
                .raw(CPU_OP_ARGS_).number(evIdx)
                // flagtrace ops record no tensor inputs: the shape fields torch writes are present and empty.
                .raw(CPU_OP_EMPTY_INPUTS);
        if (settled.thread[i] >= 0) {
            e.raw(THREAD_).number(settled.thread[i]);
        }
        emit(e.raw(END_ARGS_AND_EVENT));
    }

    /** The pid of the host rows: the first API record's, else the header's, else one clear of devices. */
    private long hostPid() {
        return hostPid != -1 ? hostPid : header.processId() != -1 ? header.processId() : UNKNOWN_HOST_PID;
    }

    private boolean windowBounded() {
        return accounting.window().windowStart() != Long.MIN_VALUE && accounting.window().windowEnd() != Long.MAX_VALUE;
    }

    /** Waits until the end-of-capture record was written (or writing failed). */
    @Override
    public void awaitFinished() throws InterruptedException {
        finished.await();
    }

    /** The op summary, available once the capture finished. */
    @Override
    public OpSummary summary() {
        return summary;
    }

    /** The first failure while writing, or null. */
    @Override
    public Throwable failure() {
        return failure;
    }

    /** Trace events written (device, API, host ops, flow halves). */
    @Override
    public long events() {
        return events + ops.written();
    }

    /**
     * Every element of the trace's {@code traceEvents} array once the capture finished: {@link
     * #events()} plus the row labels and the capture span's markers.
     */
    @Override
    public long traceEvents() {
        return events() + markers;
    }
}
