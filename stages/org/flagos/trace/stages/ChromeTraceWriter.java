package org.flagos.trace.stages;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import com.lmax.disruptor.EventHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.flagos.trace.pipeline.DeviceProperties;
import org.flagos.trace.pipeline.EventKind;
import org.flagos.trace.pipeline.LongIntHashMap;
import org.flagos.trace.pipeline.NameTable;
import org.flagos.trace.pipeline.RecordType;
import org.flagos.trace.pipeline.TraceRecord;

/**
 * Stage 4, last: streams the torch-compatible Chrome trace with Jackson's generator. Device and API
 * records are written as they arrive, a flow arrow as soon as both its ends have; host ops (whose
 * rows follow the threads their API calls ran on), row labels and the capture span are written when
 * the capture ends, followed by the accounting block. Reads only vendor-neutral records.
 */
public final class ChromeTraceWriter implements EventHandler<TraceRecord>, FlowIndex.ArrowSink {
    private static final JsonFactory JSON = new JsonFactory();
    private static final int NONE = -1;

    private static final SerializedString PH = new SerializedString("ph");
    private static final SerializedString X = new SerializedString("X");
    private static final SerializedString CAT = new SerializedString("cat");
    private static final SerializedString NAME = new SerializedString("name");
    private static final SerializedString PID = new SerializedString("pid");
    private static final SerializedString TID = new SerializedString("tid");
    private static final SerializedString TS = new SerializedString("ts");
    private static final SerializedString DUR = new SerializedString("dur");
    private static final SerializedString ARGS = new SerializedString("args");
    private static final SerializedString EXTERNAL_ID = new SerializedString("External id");
    private static final SerializedString CBID = new SerializedString("cbid");
    private static final SerializedString CORRELATION = new SerializedString("correlation");
    private static final SerializedString QUEUED = new SerializedString("queued");
    private static final SerializedString DEVICE = new SerializedString("device");
    private static final SerializedString CONTEXT = new SerializedString("context");
    private static final SerializedString STREAM = new SerializedString("stream");
    private static final SerializedString REGISTERS = new SerializedString("registers per thread");
    private static final SerializedString SHARED_MEMORY = new SerializedString("shared memory");
    private static final SerializedString BLOCKS_PER_SM = new SerializedString("blocks per SM");
    private static final SerializedString WARPS_PER_SM = new SerializedString("warps per SM");
    private static final SerializedString GRID = new SerializedString("grid");
    private static final SerializedString BLOCK = new SerializedString("block");
    private static final SerializedString OCCUPANCY = new SerializedString("est. achieved occupancy %");
    private static final SerializedString BYTES = new SerializedString("bytes");
    private static final SerializedString BANDWIDTH = new SerializedString("memory bandwidth (GB/s)");
    private static final SerializedString VALUE = new SerializedString("value");
    private static final SerializedString CPU_OP = new SerializedString("cpu_op");
    private static final SerializedString RECORD_FUNCTION_ID = new SerializedString("Record function id");
    private static final SerializedString EV_IDX = new SerializedString("Ev Idx");
    private static final SerializedString THREAD = new SerializedString("thread");
    private static final SerializedString[] EMPTY_INPUT_FIELDS = {
        new SerializedString("Input Dims"), new SerializedString("Input Strides"),
        new SerializedString("Input type"), new SerializedString("Concrete Inputs"),
    };
    private static final SerializedString FLOW_START = new SerializedString("s");
    private static final SerializedString FLOW_END = new SerializedString("f");
    private static final SerializedString ID = new SerializedString("id");
    private static final SerializedString AC2G = new SerializedString("ac2g");
    private static final SerializedString BP = new SerializedString("bp");
    private static final SerializedString ENCLOSING = new SerializedString("e");
    private static final SerializedString[] CATEGORY = new SerializedString[EventKind.count()];

    static {
        for (int k = 0; k < EventKind.count(); k++) {
            CATEGORY[k] = new SerializedString(EventKind.ofOrdinal(k).category());
        }
    }

    private final OutputStream out;
    private final NameTable names;
    private final TraceHeader header;
    private final CaptureAccounting accounting;
    private final MicrosFormat micros = new MicrosFormat();
    private final FixedDecimal sixDecimals = new FixedDecimal();
    private final FlowIndex flows = new FlowIndex();
    private final HostOpColumns ops = new HostOpColumns();
    private final LongIntHashMap deviceTimeIndex = new LongIntHashMap(1 << 10, NONE);
    private long[] deviceNsByOp = new long[1 << 10];
    private final LongIntHashMap apiThreadByExternal = new LongIntHashMap(1 << 10, NONE);
    private long[] apiThreads = new long[16];
    private int apiThreadCount;
    private final LongIntHashMap streamsSeen = new LongIntHashMap(64, NONE);
    private final LongIntHashMap hostThreadsSeen = new LongIntHashMap(64, NONE);
    private boolean[] devicesSeen = new boolean[8];
    private SerializableString[] nameCache = new SerializableString[256];
    private final CountDownLatch finished = new CountDownLatch(1);

    private JsonGenerator g;
    private long base;
    private long hostPid = -1;
    private long events;
    private volatile OpSummary summary;
    private volatile Throwable failure;

    public ChromeTraceWriter(OutputStream out, NameTable names, TraceHeader header, CaptureAccounting accounting) {
        this.out = out;
        this.names = names;
        this.header = header;
        this.accounting = accounting;
    }

    @Override
    public void onEvent(TraceRecord slot, long sequence, boolean endOfBatch) throws IOException {
        if (failure != null) {
            if (slot.type == RecordType.END_OF_CAPTURE) {
                finished.countDown();
            }
            return;
        }
        try {
            if (!slot.parked) {
                write(slot);
            }
            for (int i = 0; i < slot.releasedCount(); i++) {
                write(slot.released(i));
            }
            if (slot.type == RecordType.END_OF_CAPTURE) {
                finish();
            } else if (endOfBatch && g != null) {
                g.flush();
            }
        } catch (IOException | RuntimeException e) {
            failure = e;
            if (slot.type == RecordType.END_OF_CAPTURE) {
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
            ops.add(r.nameId, r.externalId(), r.threadId, r.startNs, r.endNs);
        }
    }

    private void startIfNeeded(long firstNs) throws IOException {
        if (g != null) {
            return;
        }
        base = header.baseTimeNs() != null ? header.baseTimeNs() : Math.floorDiv(firstNs, 1_000_000_000L) * 1_000_000_000L;
        g = JSON.createGenerator(out, JsonEncoding.UTF8);
        g.writeStartObject();
        g.writeNumberField("schemaVersion", 1);
        g.writeArrayFieldStart("deviceProperties");
        for (DeviceProperties p : header.devices()) {
            writeDeviceProperties(p);
        }
        g.writeEndArray();
        g.writeStringField("traceName", header.traceName());
        for (Map.Entry<String, String> e : header.metadata().entrySet()) {
            g.writeFieldName(e.getKey());
            writeMetadataValue(g, e.getValue());
        }
        g.writeStringField("displayTimeUnit", "ms");
        g.writeNumberField("baseTimeNanoseconds", base);
        g.writeArrayFieldStart("traceEvents");
    }

    /** Writes {@code text} raw when it is a JSON literal, quoted otherwise. */
    static void writeMetadataValue(JsonGenerator g, String text) throws IOException {
        if (text != null && JsonLiteral.isLiteral(text)) {
            g.writeRawValue(text);
        } else if (text == null) {
            g.writeNull();
        } else {
            g.writeString(text);
        }
    }

    private void writeDeviceProperties(DeviceProperties p) throws IOException {
        g.writeStartObject();
        g.writeNumberField("id", p.id());
        g.writeStringField("name", p.name());
        g.writeNumberField("totalGlobalMem", p.totalGlobalMem());
        g.writeNumberField("computeMajor", p.computeMajor());
        g.writeNumberField("computeMinor", p.computeMinor());
        g.writeNumberField("maxThreadsPerBlock", p.maxThreadsPerBlock());
        g.writeNumberField("maxThreadsPerMultiprocessor", p.maxThreadsPerMultiprocessor());
        g.writeNumberField("regsPerBlock", p.regsPerBlock());
        g.writeNumberField("warpSize", p.warpSize());
        g.writeNumberField("sharedMemPerBlock", p.sharedMemPerBlock());
        g.writeNumberField("numSms", p.numSms());
        g.writeNumberField("regsPerMultiprocessor", p.regsPerMultiprocessor());
        g.writeNumberField("sharedMemPerBlockOptin", p.sharedMemPerBlockOptin());
        g.writeNumberField("sharedMemPerMultiprocessor", p.sharedMemPerMultiprocessor());
        g.writeEndObject();
    }

    private void writeEventStart(int kindOrdinal, int nameId, long pid, long tid, long startNs, long endNs) throws IOException {
        g.writeStartObject();
        g.writeFieldName(PH);
        g.writeString(X);
        g.writeFieldName(CAT);
        g.writeString(CATEGORY[kindOrdinal]);
        g.writeFieldName(NAME);
        g.writeString(name(nameId));
        g.writeFieldName(PID);
        g.writeNumber(pid);
        g.writeFieldName(TID);
        g.writeNumber(tid);
        writeTime(TS, startNs - base);
        writeTime(DUR, endNs - startNs);
        g.writeFieldName(ARGS);
        g.writeStartObject();
    }

    private void writeTime(SerializableString field, long nanos) throws IOException {
        g.writeFieldName(field);
        g.writeRawValue(micros.format(nanos));
    }

    private void writeApi(TraceRecord r) throws IOException {
        if (hostPid == -1) {
            hostPid = r.processId;
        }
        hostThreadsSeen.put(r.threadId, 0);
        writeEventStart(r.kind.ordinal(), r.nameId, r.processId, r.threadId, r.startNs, r.endNs);
        if (r.hasExternalId()) {
            g.writeFieldName(EXTERNAL_ID);
            g.writeNumber(r.externalId());
            rememberApiThread(r.externalId(), r.threadId);
        }
        g.writeFieldName(CBID);
        g.writeNumber(r.cbid);
        if (r.correlation != TraceRecord.NO_CORRELATION) {
            g.writeFieldName(CORRELATION);
            g.writeNumber(r.correlation);
        }
        g.writeEndObject();
        g.writeEndObject();
        if (r.correlation != TraceRecord.NO_CORRELATION) {
            flows.host(r.correlation, r.startNs, r.processId, r.threadId, this);
        }
    }

    private void writeDevice(TraceRecord r) throws IOException {
        seenStream(r.device, r.stream);
        int nameId = r.nameId;
        if (nameId < 0) {
            nameId = names.intern(r.kind == EventKind.MEMCPY
                    ? "Memcpy " + r.copyKind.label() + " (" + r.srcKind.label() + " -> " + r.dstKind.label() + ")"
                    : "Memset (" + r.memoryKind.label() + ")");
            r.nameId = nameId;
        }
        writeEventStart(r.kind.ordinal(), nameId, r.device, r.stream, r.startNs, r.endNs);
        if (r.hasExternalId()) {
            g.writeFieldName(EXTERNAL_ID);
            g.writeNumber(r.externalId());
            addDeviceTime(r.externalId(), r.durationNs());
        }
        if (r.kind == EventKind.KERNEL) {
            g.writeFieldName(QUEUED);
            g.writeNumber(r.queued);
        }
        g.writeFieldName(DEVICE);
        g.writeNumber(r.device);
        g.writeFieldName(CONTEXT);
        g.writeNumber(r.context);
        g.writeFieldName(STREAM);
        g.writeNumber(r.stream);
        if (r.correlation != TraceRecord.NO_CORRELATION) {
            g.writeFieldName(CORRELATION);
            g.writeNumber(r.correlation);
        }
        if (r.kind == EventKind.KERNEL) {
            writeKernelArgs(r);
        } else {
            g.writeFieldName(BYTES);
            g.writeNumber(r.bytes);
            g.writeFieldName(BANDWIDTH);
            long dur = r.durationNs();
            if (dur > 0) {
                g.writeNumber((double) r.bytes / dur); // bytes per ns is GB/s
            } else {
                g.writeNumber(0);
            }
            if (r.kind == EventKind.MEMSET) {
                g.writeFieldName(VALUE);
                g.writeNumber(r.memsetValue);
            }
        }
        g.writeEndObject();
        g.writeEndObject();
        if (r.correlation != TraceRecord.NO_CORRELATION) {
            flows.device(r.correlation, r.startNs, r.device, r.stream, this);
        }
    }

    private void writeKernelArgs(TraceRecord r) throws IOException {
        g.writeFieldName(REGISTERS);
        g.writeNumber(r.registersPerThread);
        g.writeFieldName(SHARED_MEMORY);
        g.writeNumber((long) r.staticSharedMemory + r.dynamicSharedMemory);
        if (!Float.isNaN(r.blocksPerSm)) {
            g.writeFieldName(BLOCKS_PER_SM);
            writeSixDecimals(r.blocksPerSm);
            g.writeFieldName(WARPS_PER_SM);
            writeSixDecimals(r.warpsPerSm);
        }
        g.writeFieldName(GRID);
        g.writeStartArray();
        g.writeNumber(r.gridX);
        g.writeNumber(r.gridY);
        g.writeNumber(r.gridZ);
        g.writeEndArray();
        g.writeFieldName(BLOCK);
        g.writeStartArray();
        g.writeNumber(r.blockX);
        g.writeNumber(r.blockY);
        g.writeNumber(r.blockZ);
        g.writeEndArray();
        if (r.occupancyPercent != TraceRecord.NO_OCCUPANCY) {
            g.writeFieldName(OCCUPANCY);
            g.writeNumber(r.occupancyPercent);
        }
    }

    private void writeSixDecimals(float value) throws IOException {
        if (Float.isInfinite(value)) {
            g.writeString("inf"); // what kineto prints for a device that reports no SMs
        } else {
            g.writeNumber(sixDecimals.format(value));
        }
    }

    private SerializableString name(int id) {
        if (id >= nameCache.length) {
            nameCache = Arrays.copyOf(nameCache, Math.max(id + 1, nameCache.length * 2));
        }
        SerializableString s = nameCache[id];
        if (s == null) {
            s = new SerializedString(names.name(id));
            nameCache[id] = s;
        }
        return s;
    }

    private void seenStream(int device, int stream) {
        if (device >= 0) {
            if (device >= devicesSeen.length) {
                devicesSeen = Arrays.copyOf(devicesSeen, device + 8);
            }
            devicesSeen[device] = true;
        }
        streamsSeen.put(((long) device << 32) | (stream & 0xFFFF_FFFFL), 0);
    }

    private void addDeviceTime(long externalId, long ns) {
        int i = deviceTimeIndex.get(externalId);
        if (i == NONE) {
            i = deviceTimeIndex.size();
            if (i == deviceNsByOp.length) {
                deviceNsByOp = Arrays.copyOf(deviceNsByOp, i * 2);
            }
            deviceNsByOp[i] = 0;
            deviceTimeIndex.put(externalId, i);
        }
        deviceNsByOp[i] += ns;
    }

    private void rememberApiThread(long externalId, long thread) {
        if (apiThreadByExternal.get(externalId) != NONE) {
            return;
        }
        if (apiThreadCount == apiThreads.length) {
            apiThreads = Arrays.copyOf(apiThreads, apiThreadCount * 2);
        }
        apiThreads[apiThreadCount] = thread;
        apiThreadByExternal.put(externalId, apiThreadCount++);
    }

    private void finish() throws IOException {
        long windowStart = header.windowStartNs() != null ? header.windowStartNs() : 0;
        startIfNeeded(windowStart);
        TraceRowLayout rows = writeHostOps();
        writeRowLabels(rows);
        writeCaptureSpan();
        g.writeEndArray();
        g.writeObjectFieldStart("flagtrace");
        g.writeNumberField("events", events + ops.size);
        accounting.hostOps(ops.size);
        accounting.write(g);
        g.writeEndObject();
        g.writeEndObject();
        g.flush();
        g.close();
        summary = OpSummary.of(ops, names, deviceTimeIndex, deviceNsByOp);
        finished.countDown();
    }

    @Override
    public void arrow(long correlation, long hostTs, long hostPid, long hostTid, long deviceTs, int devicePid, int deviceTid)
            throws IOException {
        g.writeStartObject();
        g.writeFieldName(PH);
        g.writeString(FLOW_START);
        g.writeFieldName(ID);
        g.writeNumber(correlation);
        g.writeFieldName(PID);
        g.writeNumber(hostPid);
        g.writeFieldName(TID);
        g.writeNumber(hostTid);
        writeTime(TS, hostTs - base);
        g.writeFieldName(CAT);
        g.writeString(AC2G);
        g.writeFieldName(NAME);
        g.writeString(AC2G);
        g.writeEndObject();
        g.writeStartObject();
        g.writeFieldName(PH);
        g.writeString(FLOW_END);
        g.writeFieldName(ID);
        g.writeNumber(correlation);
        g.writeFieldName(PID);
        g.writeNumber(devicePid);
        g.writeFieldName(TID);
        g.writeNumber(deviceTid);
        writeTime(TS, deviceTs - base);
        g.writeFieldName(CAT);
        g.writeString(AC2G);
        g.writeFieldName(NAME);
        g.writeString(AC2G);
        g.writeFieldName(BP);
        g.writeString(ENCLOSING);
        g.writeEndObject();
        events += 2;
    }

    /**
     * Host ops go on the row of the thread their API calls ran on, so an op and the launches inside
     * it line up. An ops file may name threads differently from the vendor (OS tid versus pthread
     * id), so the mapping is learned through the External ids both sides carry.
     */
    private TraceRowLayout writeHostOps() throws IOException {
        TraceRowLayout rows = new TraceRowLayout();
        for (int i = 0; i < ops.size; i++) {
            int api = apiThreadByExternal.get(ops.externalId[i]);
            if (api != NONE) {
                rows.learn(ops.thread[i], apiThreads[api]);
            }
        }
        long pid = hostPid == -1 ? 0 : hostPid;
        for (int i = 0; i < ops.size; i++) {
            long tid = rows.hostRow(ops.thread[i]);
            hostThreadsSeen.put(tid, 0);
            g.writeStartObject();
            g.writeFieldName(PH);
            g.writeString(X);
            g.writeFieldName(CAT);
            g.writeString(CPU_OP);
            g.writeFieldName(NAME);
            g.writeString(name(ops.nameId[i]));
            g.writeFieldName(PID);
            g.writeNumber(pid);
            g.writeFieldName(TID);
            g.writeNumber(tid);
            writeTime(TS, ops.start[i] - base);
            writeTime(DUR, ops.end[i] - ops.start[i]);
            g.writeFieldName(ARGS);
            g.writeStartObject();
            g.writeFieldName(EXTERNAL_ID);
            g.writeNumber(ops.externalId[i]);
            g.writeFieldName(RECORD_FUNCTION_ID);
            g.writeNumber(0);
            g.writeFieldName(EV_IDX);
            g.writeNumber(i);
            // flagtrace ops record no tensor inputs: the shape fields torch writes are present and empty.
            for (SerializableString empty : EMPTY_INPUT_FIELDS) {
                g.writeFieldName(empty);
                g.writeStartArray();
                g.writeEndArray();
            }
            if (ops.thread[i] >= 0) {
                g.writeFieldName(THREAD);
                g.writeNumber(ops.thread[i]);
            }
            g.writeEndObject();
            g.writeEndObject();
        }
        rows.hostPid = pid;
        return rows;
    }

    private void writeRowLabels(TraceRowLayout rows) throws IOException {
        long ts = (header.windowStartNs() != null ? header.windowStartNs() : base) - base;
        String process = header.processName();
        writeMeta("process_name", rows.hostPid, 0, ts, "name", process);
        writeMeta("process_labels", rows.hostPid, 0, ts, "labels", "CPU");
        writeMetaNumber("process_sort_index", rows.hostPid, 0, ts, rows.hostPid);
        for (int d = 0; d < devicesSeen.length; d++) {
            if (devicesSeen[d]) {
                writeMeta("process_name", d, 0, ts, "name", process);
                writeMeta("process_labels", d, 0, ts, "labels", "GPU " + d);
                writeMetaNumber("process_sort_index", d, 0, ts, 5_000_000L + d);
            }
        }
        long[] streams = keys(streamsSeen);
        Arrays.sort(streams);
        for (long key : streams) {
            int device = (int) (key >>> 32);
            int stream = (int) key;
            writeMeta("thread_name", device, stream, ts, "name", "stream " + stream + " ");
            writeMetaNumber("thread_sort_index", device, stream, ts, stream);
        }
        long[] threads = keys(hostThreadsSeen);
        Arrays.sort(threads);
        for (long thread : threads) {
            writeMeta("thread_name", rows.hostPid, thread, ts, "name", "thread " + thread + " (" + process + ")");
            writeMetaNumber("thread_sort_index", rows.hostPid, thread, ts, thread);
        }
    }

    private static long[] keys(LongIntHashMap map) {
        long[] keys = new long[map.size()];
        int[] n = {0};
        map.forEach((k, v) -> keys[n[0]++] = k);
        return keys;
    }

    private void writeMeta(String name, long pid, long tid, long tsNs, String argName, String value) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "M");
        writeTime(TS, tsNs);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeObjectFieldStart("args");
        g.writeStringField(argName, value);
        g.writeEndObject();
        g.writeEndObject();
    }

    private void writeMetaNumber(String name, long pid, long tid, long tsNs, long sortIndex) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "M");
        writeTime(TS, tsNs);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeObjectFieldStart("args");
        g.writeNumberField("sort_index", sortIndex);
        g.writeEndObject();
        g.writeEndObject();
    }

    /** The span torch writes for the profiled region, so viewers that key on it find the window. */
    private void writeCaptureSpan() throws IOException {
        if (header.windowStartNs() == null) {
            return;
        }
        long start = header.windowStartNs() - base;
        g.writeStartObject();
        g.writeStringField("ph", "X");
        g.writeStringField("cat", "Trace");
        writeTime(TS, start);
        writeTime(DUR, header.windowEndNs() - header.windowStartNs());
        g.writeStringField("pid", "Spans");
        g.writeStringField("tid", "PyTorch Profiler");
        g.writeStringField("name", "PyTorch Profiler (0)");
        g.writeObjectFieldStart("args");
        g.writeNumberField("Op count", 0);
        g.writeEndObject();
        g.writeEndObject();
        g.writeStartObject();
        g.writeStringField("name", "process_sort_index");
        g.writeStringField("ph", "M");
        writeTime(TS, start);
        g.writeStringField("pid", "Spans");
        g.writeNumberField("tid", 0);
        g.writeObjectFieldStart("args");
        g.writeNumberField("sort_index", 536870912);
        g.writeEndObject();
        g.writeEndObject();
        g.writeStartObject();
        g.writeStringField("name", "Iteration Start: PyTorch Profiler");
        g.writeStringField("ph", "i");
        g.writeStringField("s", "g");
        g.writeStringField("pid", "Traces");
        g.writeStringField("tid", "Trace PyTorch Profiler");
        writeTime(TS, start);
        g.writeEndObject();
        g.writeStartObject();
        g.writeStringField("name", "Record Window End");
        g.writeStringField("ph", "i");
        g.writeStringField("s", "g");
        g.writeStringField("pid", "");
        g.writeStringField("tid", "");
        writeTime(TS, header.windowEndNs() - base);
        g.writeEndObject();
    }

    /** Waits until the end-of-capture record was written (or writing failed). */
    public void awaitFinished() throws InterruptedException {
        finished.await();
    }

    /** The op summary, available once the capture finished. */
    public OpSummary summary() {
        return summary;
    }

    /** The first failure while writing, or null. */
    public Throwable failure() {
        return failure;
    }

    /** Trace events written (device, API, host ops, flow halves). */
    public long events() {
        return events + ops.size;
    }
}
