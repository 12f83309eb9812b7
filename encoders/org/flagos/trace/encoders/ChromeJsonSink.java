package org.flagos.trace.encoders;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Map;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.JsonText;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.model.UnifiedMemoryCounter;
import org.flagos.trace.stages.FlowArrow;
import org.flagos.trace.stages.GpuAnnotationRow;
import org.flagos.trace.stages.HostOpRow;
import org.flagos.trace.stages.MarkRow;
import org.flagos.trace.stages.MemoryRow;
import org.flagos.trace.stages.TraceFooter;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.stages.TraceSink;
import org.flagos.trace.stages.TraceWalk;

/**
 * The torch-compatible Chrome trace JSON: Jackson's generator writes the document's structure (header,
 * row labels, the capture span and the accounting block that close it); each event the walk hands
 * over ({@link TraceWalk}) is assembled from Jackson-escaped fragments, ts/dur in µs with three
 * decimals from the base time, and gathered with the events before it into one large write
 * ({@link #emit}). Reads only vendor-neutral records.
 */
public final class ChromeJsonSink implements TraceSink {
    private static final JsonFactory JSON = new JsonFactory();

    /**
     * Events gathered before they are handed to the stream, in one write: the stream below takes a
     * write this large without copying it into a buffer of its own ({@code AtomicOutput}'s 64 KiB
     * one), and a {@code .gz} stream cuts its blocks of the same size.
     */
    static final int HAND_ON_AT = 1 << 18;
    /** Room left after {@link #HAND_ON_AT} for the event that crosses it (a longer one grows the buffer once). */
    private static final int EVENT_ROOM = 1 << 14;

    private static final byte[] CPU_OP_HEAD = EventBytes.ascii("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":");
    private static final byte[] USER_ANNOTATION_HEAD = EventBytes.ascii("{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":");
    /** Chrome's thread-scoped instant in torch's instant category (its {@code [memory]} events' shape). */
    private static final byte[] MARK_HEAD = EventBytes.ascii("{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":");
    private static final byte[] DOMAIN_ = EventBytes.ascii(",\"domain\":");
    private static final byte[] FIRST_DOMAIN_ = EventBytes.ascii(",\"args\":{\"domain\":");
    private static final byte[][] DEVICE_HEAD = new byte[EventKind.count()][];
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
    /** kineto's args of a peer copy (CUpti_ActivityMemcpyPtoP), in its order, where a copy has device and context. */
    private static final byte[] FROM_DEVICE_ = EventBytes.ascii("\"fromDevice\":");
    private static final byte[] IN_DEVICE_ = EventBytes.ascii(",\"inDevice\":");
    private static final byte[] TO_DEVICE_ = EventBytes.ascii(",\"toDevice\":");
    private static final byte[] FROM_CONTEXT_ = EventBytes.ascii(",\"fromContext\":");
    private static final byte[] IN_CONTEXT_ = EventBytes.ascii(",\"inContext\":");
    private static final byte[] TO_CONTEXT_ = EventBytes.ascii(",\"toContext\":");
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
    /** torch's input keys, in {@link OpArgs#TORCH_INPUT_KEYS}' order: the same bytes as {@link #CPU_OP_EMPTY_INPUTS}' keys. */
    private static final byte[][] CPU_OP_INPUT_KEYS = {
        EventBytes.ascii(",\"Input Dims\":"), EventBytes.ascii(",\"Input Strides\":"),
        EventBytes.ascii(",\"Input type\":"), EventBytes.ascii(",\"Concrete Inputs\":"),
    };
    private static final byte[] EMPTY_LIST = EventBytes.ascii("[]");
    private static final byte[] CALL_STACK_ = EventBytes.ascii(",\"" + OpStack.KEY + "\":");
    private static final byte[] THREAD_ = EventBytes.ascii(",\"thread\":");
    private static final byte[] FLOW_S_HEAD = EventBytes.ascii("{\"ph\":\"s\",\"id\":");
    private static final byte[] FLOW_F_HEAD = EventBytes.ascii("{\"ph\":\"f\",\"id\":");
    private static final byte[] FLOW_S_TAIL = EventBytes.ascii(",\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
    private static final byte[] GRAPH_ID_ = EventBytes.ascii(",\"graph id\":");
    private static final byte[] GRAPH_NODE_ID_ = EventBytes.ascii(",\"graph node id\":");
    private static final byte[] SYNC_KIND_ = EventBytes.ascii("\"cuda_sync_kind\":");
    /** kineto's event-sync args when the event's record is unknown (it needs CUDA_EVENT records, not captured). */
    private static final byte[] SYNC_WAIT_UNKNOWN_ = EventBytes.ascii(
            ",\"wait_on_stream\":-1,\"wait_on_cuda_event_record_corr_id\":-1,\"wait_on_cuda_event_id\":");
    private static final byte[] STREAM_FIRST_ = EventBytes.ascii(",\"stream\":");
    private static final byte[] DEVICE_NEXT_ = EventBytes.ascii(",\"device\":");
    /** torch's row of the profiler's own overhead: pid -1, tid 0. */
    private static final byte[] OVERHEAD_ROW = EventBytes.ascii(",\"pid\":-1,\"tid\":0");
    private static final byte[] END_EVENT = EventBytes.ascii("}");
    private static final byte[] FLOW_F_TAIL = EventBytes.ascii(",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");

    private static final byte[] GPU_ANNOTATION_HEAD = EventBytes.ascii("{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":");
    private static final byte[] MEMORY_HEAD =
            EventBytes.ascii("{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\"");
    private static final byte[] MEMORY_ARGS_ = EventBytes.ascii(",\"args\":{\"Total Reserved\":");
    private static final byte[] TOTAL_ALLOCATED_ = EventBytes.ascii(",\"Total Allocated\":");
    private static final byte[] MEMORY_BYTES_ = EventBytes.ascii(",\"Bytes\":");
    private static final byte[] DEVICE_ID_ = EventBytes.ascii(",\"Device Id\":");
    private static final byte[] DEVICE_TYPE_ = EventBytes.ascii(",\"Device Type\":");
    private static final byte[] ADDR_ = EventBytes.ascii(",\"Addr\":");
    private static final byte[] MEMORY_TAIL_ = EventBytes.ascii(",\"finished\":false,\"Ev Idx\":");

    private static final byte[] UM_SLICE_HEAD = EventBytes.ascii("{\"ph\":\"X\",\"cat\":\"unified_memory\",\"name\":");
    private static final byte[] UM_INSTANT_HEAD =
            EventBytes.ascii("{\"ph\":\"i\",\"cat\":\"unified_memory\",\"s\":\"t\",\"name\":");
    private static final byte[] UM_BYTES_ = EventBytes.ascii(",\"args\":{\"bytes\":");
    private static final byte[] UM_FAULT_GROUPS_ = EventBytes.ascii(",\"args\":{\"fault groups\":");
    private static final byte[] UM_PC_ = EventBytes.ascii(",\"args\":{\"PC\":");
    private static final byte[] UM_FIRST_ADDRESS_ = EventBytes.ascii(",\"args\":{\"address\":");
    private static final byte[] UM_ADDRESS_ = EventBytes.ascii(",\"address\":");
    private static final byte[] UM_MIGRATION_CAUSE_ = EventBytes.ascii(",\"migration cause\":");
    private static final byte[] UM_ACCESS_TYPE_ = EventBytes.ascii(",\"access type\":");
    private static final byte[] UM_REMOTE_MAP_CAUSE_ = EventBytes.ascii(",\"remote map cause\":");
    private static final byte[] UM_SRC_ID_ = EventBytes.ascii(",\"src id\":");
    private static final byte[] UM_DST_ID_ = EventBytes.ascii(",\"dst id\":");
    private static final byte[] UM_DEVICES_ = EventBytes.ascii(",\"devices\":");
    /** The hex digits of an address or PC as a quoted {@code 0x...} string, as Nsight Systems shows them. */
    private final byte[] hex = new byte[20];
    /** The flag words (a migration's cause, a fault's access type), each quoted once. */
    private final java.util.HashMap<String, byte[]> flagWords = new java.util.HashMap<>();

    static {
        for (int k = 0; k < EventKind.count(); k++) {
            DEVICE_HEAD[k] = EventBytes.ascii("{\"ph\":\"X\",\"cat\":\"" + EventKind.ofOrdinal(k).category() + "\",\"name\":");
        }
    }

    private final OutputStream out;
    private final NameTable names;
    private final TraceHeader header;
    private final EventBytes event = new EventBytes(HAND_ON_AT + EVENT_ROOM);
    private final FixedDecimal sixDecimals = new FixedDecimal();
    private final TraceRows rows = new TraceRows();
    private final CaptureSpan span = new CaptureSpan();
    private byte[][] nameCache = new byte[256][];

    private JsonGenerator g;
    /** True once the first event went through Jackson: the rest are gathered in {@link #event}, behind commas. */
    private boolean gathering;
    private long base;
    private final byte[] runtimeHead;
    private final byte[] driverHead;

    /** JSON into {@code out}, API records under CUDA's categories. */
    public ChromeJsonSink(OutputStream out, NameTable names, TraceHeader header) {
        this(out, names, header, EventKind::category);
    }

    /** @param apiCategory the category of API records per kind, as the vendor names it ({@link org.flagos.trace.model.ApiNames#category}) */
    public ChromeJsonSink(OutputStream out, NameTable names, TraceHeader header,
                          java.util.function.Function<EventKind, String> apiCategory) {
        this.runtimeHead = apiHead(apiCategory.apply(EventKind.RUNTIME));
        this.driverHead = apiHead(apiCategory.apply(EventKind.DRIVER));
        this.out = out;
        this.names = names;
        this.header = header;
    }

    @Override
    public void header(long baseNs) throws IOException {
        base = baseNs;
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
        if (header.identity() != null) {
            org.flagos.trace.model.ProcessFacts.writeTopLevel(g, header.identity());
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

    @Override
    public void apiSlice(TraceRecord r) throws IOException {
        rows.hostThread(r.threadId);
        EventBytes e = begin()
                .raw(r.kind == EventKind.DRIVER ? driverHead : runtimeHead).string(name(r.nameId))
                .row(r.processId, r.threadId).micros(r.startNs - base).raw(DUR_).micros(r.endNs - r.startNs)
                .raw(ARGS_);
        boolean first = true;
        if (r.hasExternalId()) {
            e.raw(EXTERNAL_ID_).number(r.externalId());
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
    }

    @Override
    public void deviceSlice(TraceRecord r, int row) throws IOException {
        rows.deviceStream(r.device, r.stream);
        if (r.kind == EventKind.SYNC) {
            syncSlice(r, row);
            return;
        }
        EventBytes e = begin()
                .raw(DEVICE_HEAD[r.kind.ordinal()]).string(name(r.nameId))
                .row(r.device, row).micros(r.startNs - base).raw(DUR_).micros(r.endNs - r.startNs)
                .raw(ARGS_);
        if (r.hasExternalId()) {
            e.raw(EXTERNAL_ID_).number(r.externalId()).raw(COMMA);
        }
        if (r.has(RecordField.QUEUED)) {
            e.raw(QUEUED_).number(r.queued).raw(COMMA);
        }
        if (r.has(RecordField.PEER)) {
            e.raw(FROM_DEVICE_).number(Integer.toUnsignedLong(r.srcDevice))
                    .raw(IN_DEVICE_).number(Integer.toUnsignedLong(r.device))
                    .raw(TO_DEVICE_).number(Integer.toUnsignedLong(r.dstDevice))
                    .raw(FROM_CONTEXT_).number(Integer.toUnsignedLong(r.srcContext))
                    .raw(IN_CONTEXT_).number(Integer.toUnsignedLong(r.context))
                    .raw(TO_CONTEXT_).number(Integer.toUnsignedLong(r.dstContext));
        } else {
            e.raw(DEVICE_).repeated(r.device);
            if (r.has(RecordField.CONTEXT)) {
                e.raw(CONTEXT_).number(r.context);
            }
        }
        e.raw(STREAM_).repeated(r.stream);
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
        if (r.has(RecordField.GRAPH)) {
            e.raw(GRAPH_ID_).number(r.graphId).raw(GRAPH_NODE_ID_).unsigned(r.graphNodeId);
        }
        emit(e.raw(END_ARGS_AND_EVENT));
    }

    /** A synchronization on the row the walk chose, with kineto's {@code cuda_sync} args in kineto's order. */
    private void syncSlice(TraceRecord r, int row) throws IOException {
        EventBytes e = begin()
                .raw(DEVICE_HEAD[r.kind.ordinal()]).string(name(r.nameId))
                .row(r.device, row)
                .micros(r.startNs - base).raw(DUR_).micros(r.endNs - r.startNs)
                .raw(ARGS_);
        if (r.hasExternalId()) {
            e.raw(EXTERNAL_ID_).number(r.externalId()).raw(COMMA);
        }
        e.raw(SYNC_KIND_).string(name(r.nameId));
        if (r.syncKind != null && r.syncKind.onEvent()) {
            e.raw(SYNC_WAIT_UNKNOWN_).number(r.syncEventId);
        }
        e.raw(STREAM_FIRST_).repeated(r.stream);
        if (r.hasCorrelation()) {
            e.raw(CORRELATION_).unsigned(r.correlation());
        }
        e.raw(DEVICE_NEXT_).repeated(r.device);
        if (r.has(RecordField.CONTEXT)) {
            e.raw(CONTEXT_).number(r.context);
        }
        emit(e.raw(END_ARGS_AND_EVENT));
    }

    /** The profiler's own time, on torch's overhead row (pid -1, tid 0), without args (as torch writes it). */
    @Override
    public void overheadSlice(TraceRecord r) throws IOException {
        emit(begin().raw(DEVICE_HEAD[r.kind.ordinal()]).string(name(r.nameId)).raw(OVERHEAD_ROW)
                .raw(TS_).micros(r.startNs - base).raw(DUR_).micros(r.endNs - r.startNs)
                .raw(END_EVENT));
    }

    /**
     * A unified-memory record on its device's {@code Unified Memory} row: a complete event when it
     * lasts, else a thread-scoped instant; args by counter (docs/vendors/cupti.md, "Unified memory").
     */
    @Override
    public void unifiedMemory(TraceRecord r) throws IOException {
        rows.deviceStream(r.device, TraceSink.UNIFIED_MEMORY_ROW);
        UnifiedMemoryCounter c = r.umCounter;
        EventBytes e = begin().raw(c.lasting() ? UM_SLICE_HEAD : UM_INSTANT_HEAD).string(name(r.nameId))
                .row(r.device, TraceSink.UNIFIED_MEMORY_ROW).micros(r.startNs - base);
        if (c.lasting()) {
            e.raw(DUR_).micros(r.endNs - r.startNs);
        }
        switch (c) {
            case GPU_PAGE_FAULT_GROUP:
                e.raw(UM_FAULT_GROUPS_).unsigned(r.umValue);
                break;
            case CPU_PAGE_FAULT:
                e.raw(UM_PC_);
                hexString(e, r.umValue);
                break;
            case THROTTLING:
                e.raw(UM_FIRST_ADDRESS_);
                hexString(e, r.address);
                break;
            default:
                e.raw(UM_BYTES_).number(r.bytes);
        }
        if (c != UnifiedMemoryCounter.THROTTLING) {
            e.raw(UM_ADDRESS_);
            hexString(e, r.address);
        }
        if (r.umFlag != null) {
            e.raw(c.transfer() ? UM_MIGRATION_CAUSE_ : c == UnifiedMemoryCounter.REMOTE_MAP ? UM_REMOTE_MAP_CAUSE_ : UM_ACCESS_TYPE_)
                    .string(flagWords.computeIfAbsent(r.umFlag, JsonText::quotedUtf8));
        }
        switch (c) {
            case CPU_PAGE_FAULT:
                break; // CUPTI names no processor for it
            case THRASHING:
                e.raw(UM_DEVICES_).number(Integer.toUnsignedLong(r.umSrcId)); // a mask of the devices fighting
                break;
            case GPU_PAGE_FAULT_GROUP:
            case THROTTLING:
                e.raw(UM_SRC_ID_).number(Integer.toUnsignedLong(r.umSrcId));
                break;
            default:
                e.raw(UM_SRC_ID_).number(Integer.toUnsignedLong(r.umSrcId)).raw(UM_DST_ID_).number(Integer.toUnsignedLong(r.umDstId));
        }
        emit(e.raw(END_ARGS_AND_EVENT));
    }

    private void hexString(EventBytes e, long value) {
        int n = hex.length;
        hex[--n] = '"';
        do {
            hex[--n] = HEX_DIGITS[(int) (value & 0xF)];
            value >>>= 4;
        } while (value != 0);
        hex[--n] = 'x';
        hex[--n] = '0';
        hex[--n] = '"';
        e.raw(hex, n, hex.length - n);
    }

    private static final byte[] HEX_DIGITS = EventBytes.ascii("0123456789abcdef");

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

    /** Starts an event: after the first, behind the events gathered and a comma. */
    private EventBytes begin() {
        return gathering ? event.next() : event.reset();
    }

    /**
     * Ends an event. The first goes to Jackson as one raw value, so that Jackson's array knows it
     * holds an element and writes a comma before whatever the footer adds; the others are gathered
     * and handed to the stream about {@link #HAND_ON_AT} bytes at a time, in one write. Copying each
     * event into Jackson's 8,000-byte buffer and that into the output's 64 KiB buffer cost two copies
     * of the whole document and a context check per event (docs/benchmarks.md, "Where the time goes").
     */
    private void emit(EventBytes e) throws IOException {
        if (!gathering) {
            first(e);
        } else if (e.size() >= HAND_ON_AT) {
            handOn();
        }
    }

    private void first(EventBytes e) throws IOException {
        g.writeRawValue(e);
        g.flush(); // FLUSH_PASSED_TO_STREAM is off: this writes Jackson's buffer, no syscall flush
        e.reset();
        gathering = true;
    }

    /** Writes the gathered events to the stream. */
    private void handOn() throws IOException {
        if (event.size() > 0) {
            out.write(event.buffer(), 0, event.size());
            event.reset();
        }
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

    @Override
    public void flow(FlowArrow a) throws IOException {
        emit(begin().raw(FLOW_S_HEAD).unsigned(a.id()).row(a.hostPid(), a.hostTid()).micros(a.hostTs() - base).raw(FLOW_S_TAIL));
        emit(begin().raw(FLOW_F_HEAD).unsigned(a.id()).row(a.devicePid(), a.deviceTid()).micros(a.deviceTs() - base).raw(FLOW_F_TAIL));
    }

    /** The {@code s} and the {@code f} half. */
    @Override
    public int eventsPerFlow() {
        return 2;
    }

    @Override
    public void hostOpSlice(HostOpRow op) throws IOException {
        if (op.annotation) {
            annotationSlice(op);
            return;
        }
        hostRow(op);
        EventBytes e = begin().raw(CPU_OP_HEAD).string(name(op.nameId))
                .row(op.pid, op.tid).micros(op.startNs - base).raw(DUR_).micros(op.endNs - op.startNs)
                .raw(ARGS_).raw(EXTERNAL_ID_).number(op.externalId)
                .raw(CPU_OP_ARGS_).number(op.evIdx);
        if (op.args == null) {
            // an op without args records no tensor inputs: the shape fields torch writes are present and empty.
            e.raw(CPU_OP_EMPTY_INPUTS);
        } else {
            for (int k = 0; k < CPU_OP_INPUT_KEYS.length; k++) {
                byte[] value = op.args.torchInputJson(k);
                e.raw(CPU_OP_INPUT_KEYS[k]).raw(value == null ? EMPTY_LIST : value);
            }
            e.raw(op.args.extraMembersJson());
        }
        if (op.stack != null) {
            e.raw(CALL_STACK_).raw(op.stack.json());
        }
        if (op.thread >= 0) {
            e.raw(THREAD_).number(op.thread);
        }
        emit(e.raw(END_ARGS_AND_EVENT));
    }

    /** The op's row, named as the program knows its thread when the op says (an annotation range does not). */
    private void hostRow(HostOpRow op) {
        rows.hostThread(op.tid);
        if (op.threadNameId >= 0) {
            rows.hostThreadName(op.tid, names.name(op.threadNameId));
        }
    }

    /** torch 2.11's {@code gpu_user_annotation}: on the stream's row, its one arg the op's External id. */
    @Override
    public void gpuAnnotation(GpuAnnotationRow a) throws IOException {
        rows.deviceStream(a.device, a.stream);
        emit(begin().raw(GPU_ANNOTATION_HEAD).string(name(a.nameId))
                .row(a.device, a.stream).micros(a.startNs - base).raw(DUR_).micros(a.endNs - a.startNs)
                .raw(ARGS_).raw(EXTERNAL_ID_).number(a.externalId)
                .raw(END_ARGS_AND_EVENT));
    }

    /**
     * An annotation range as torch writes a {@code record_function} range ({@code user_annotation}:
     * External id, Record function id, Ev Idx), and its NVTX domain when not the default one.
     */
    private void annotationSlice(HostOpRow op) throws IOException {
        hostRow(op);
        EventBytes e = begin().raw(USER_ANNOTATION_HEAD).string(name(op.nameId))
                .row(op.pid, op.tid).micros(op.startNs - base).raw(DUR_).micros(op.endNs - op.startNs)
                .raw(ARGS_).raw(EXTERNAL_ID_).number(op.externalId)
                .raw(CPU_OP_ARGS_).number(op.evIdx);
        if (op.domainNameId >= 0) {
            e.raw(DOMAIN_).string(name(op.domainNameId));
        }
        emit(e.raw(END_ARGS_AND_EVENT));
    }

    /**
     * An annotation mark: Chrome's thread-scoped instant ({@code "s":"t"}) in torch's instant
     * category, the shape torch gives its {@code [memory]} instants; args only for a domain.
     */
    @Override
    public void markInstant(MarkRow m) throws IOException {
        rows.hostThread(m.tid);
        EventBytes e = begin().raw(MARK_HEAD).string(name(m.nameId))
                .row(m.pid, m.tid).micros(m.tsNs - base);
        if (m.domainNameId >= 0) {
            e.raw(FIRST_DOMAIN_).string(name(m.domainNameId)).raw(END_ARGS_AND_EVENT);
        } else {
            e.raw(END_EVENT);
        }
        emit(e);
    }

    /**
     * torch's {@code [memory]} instant, with torch 2.11's args in its order (seen in a torch 2.11
     * trace on the H200): {@code finished} is always false there, {@code Ev Idx} numbers op rows and
     * memory events together.
     */
    @Override
    public void memoryInstant(MemoryRow m) throws IOException {
        rows.hostThread(m.tid);
        emit(begin().raw(MEMORY_HEAD).row(m.pid, m.tid).micros(m.tsNs - base)
                .raw(MEMORY_ARGS_).number(m.totalReserved).raw(TOTAL_ALLOCATED_).number(m.totalAllocated)
                .raw(MEMORY_BYTES_).number(m.bytes).raw(DEVICE_ID_).number(m.deviceId)
                .raw(DEVICE_TYPE_).number(m.deviceType).raw(ADDR_).unsigned(m.address)
                .raw(MEMORY_TAIL_).number(m.evIdx)
                .raw(END_ARGS_AND_EVENT));
    }

    @Override
    public void endOfBatch() throws IOException {
        g.flush();
        handOn();
        out.flush();
    }

    /** Row labels, torch's capture span, the fields known only at the end, the {@code flagtrace} accounting block; closes the document. */
    @Override
    public long footer(TraceFooter end) throws IOException {
        g.flush();
        handOn(); // Jackson's buffer holds nothing of the events: it goes on after them
        long labelTs = (end.windowBounded() ? end.windowStartNs() : base) - base;
        long markers = rows.writeLabels(g, end.hostPid(), header.processName(), labelTs);
        if (end.windowBounded()) {
            span.write(g, end.windowStartNs(), end.windowEndNs(), base);
            markers += CaptureSpan.EVENTS;
        }
        g.writeEndArray();
        for (Map.Entry<String, String> e : end.accounting().endFacts().entrySet()) {
            g.writeFieldName(e.getKey());
            writeMetadataValue(g, e.getValue());
        }
        g.writeObjectFieldStart("flagtrace");
        g.writeNumberField("events", end.events());
        end.accounting().write(g);
        g.writeEndObject();
        g.writeEndObject();
        g.flush();
        g.close();
        return markers;
    }
}
