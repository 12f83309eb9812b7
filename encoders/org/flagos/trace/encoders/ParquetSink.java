package org.flagos.trace.encoders;

import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.ProcessIdentity;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.FlowArrow;
import org.flagos.trace.stages.GpuAnnotationRow;
import org.flagos.trace.stages.HostOpRow;
import org.flagos.trace.stages.MarkRow;
import org.flagos.trace.stages.MemoryRow;
import org.flagos.trace.stages.TraceFooter;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.stages.TraceSink;

/**
 * The events as the {@code events} table of docs/tables.md, one Parquet file: one row per event the
 * JSON trace of the same capture holds with a time (its row labels aside), with the same values, so
 * that {@code flagtrace tables} of that JSON trace gives the same rows. The rows go straight into the
 * Parquet file on the stream ({@link ParquetColumns}: no scratch file, no DuckDB), a row group at a
 * time; the footer ends it. The output's own rename-on-success still decides whether the file appears.
 */
public final class ParquetSink implements TraceSink {
    /** The pid and tid strings of torch's capture span events, which no number stands for. */
    private static final String SPAN_NAME = "PyTorch Profiler (0)";

    private final OutputStream out;
    private final NameTable names;
    private final TraceHeader header;
    private final Function<EventKind, String> apiCategory;
    private final EventTable.Row row = new EventTable.Row();
    private final EventTable.CopyKinds copyKinds = new EventTable.CopyKinds();
    private ParquetColumns table;
    private long base;
    private int rank;
    private String host;

    /** @param apiCategory the category of API records per kind, as the vendor names it */
    public ParquetSink(OutputStream out, NameTable names, TraceHeader header, Function<EventKind, String> apiCategory) {
        this.out = out;
        this.names = names;
        this.header = header;
        this.apiCategory = apiCategory;
    }

    @Override
    public void header(long baseNs) throws IOException {
        base = baseNs;
        ProcessIdentity id = header.identity();
        rank = EventTable.rank(id != null && id.distributed() ? id.rank() : null, 0);
        host = id == null ? null : id.host();
        table = new ParquetColumns(out, EventTable.COLUMNS, metadata(baseNs, header.traceName(), host, rank));
    }

    /** The file's key-value metadata (docs/tables.md, "File metadata"). */
    static Map<String, String> metadata(long baseNs, String traceName, String host, int rank) {
        Map<String, String> kv = new LinkedHashMap<>();
        kv.put("flagtrace.schema_version", Integer.toString(EventTable.SCHEMA_VERSION));
        if (traceName != null) {
            kv.put("flagtrace.source", traceName);
        }
        kv.put("flagtrace.clock", "ts_ns: nanoseconds since the epoch on the clock of " + (host == null ? "the recording host" : "host " + host));
        kv.put("flagtrace.base_time_ns", Long.toString(baseNs));
        kv.put("flagtrace.rank", Integer.toString(rank));
        return kv;
    }

    /** One row of the table: the published columns of {@code r} ({@link EventTable#put}, as flagtrace tables writes them). */
    private void add(EventTable.Row r) throws IOException {
        EventTable.put(table, rank, 0, host, r, r.ts + base, copyKinds.of(r.cat, r.name));
    }

    private EventTable.Row begin(String ph, String cat, String name, long pid, long tid, long startNs) {
        EventTable.Row r = row.reset();
        r.ph = ph;
        r.cat = cat;
        r.name = name;
        r.pid = pid;
        r.tid = tid;
        r.ts = startNs - base;
        return r;
    }

    @Override
    public void apiSlice(TraceRecord api) throws IOException {
        EventTable.Row r = begin("X", apiCategory.apply(api.kind == EventKind.DRIVER ? EventKind.DRIVER : EventKind.RUNTIME),
                names.name(api.nameId), api.processId, api.threadId, api.startNs);
        r.dur = api.endNs - api.startNs;
        if (api.hasExternalId()) {
            r.externalId = api.externalId();
        }
        if (api.hasCorrelation()) {
            r.correlation = api.correlation();
        }
        add(r);
    }

    @Override
    public void deviceSlice(TraceRecord d, int row) throws IOException {
        EventTable.Row r = begin("X", d.kind.category(), names.name(d.nameId), d.device, row, d.startNs);
        r.dur = d.endNs - d.startNs;
        if (d.hasExternalId()) {
            r.externalId = d.externalId();
        }
        r.device = d.device;
        r.stream = d.stream;
        if (d.hasCorrelation()) {
            r.correlation = d.correlation();
        }
        if (d.kind != EventKind.KERNEL && d.kind != EventKind.SYNC && d.has(RecordField.BYTES)) {
            r.bytes = d.bytes;
        }
        if (d.has(RecordField.PEER)) { // unsigned, as the JSON trace writes them (fromDevice ... toContext)
            r.fromDevice = Integer.toUnsignedLong(d.srcDevice);
            r.toDevice = Integer.toUnsignedLong(d.dstDevice);
            r.fromContext = Integer.toUnsignedLong(d.srcContext);
            r.toContext = Integer.toUnsignedLong(d.dstContext);
        }
        add(r);
    }

    /** A unified-memory record on its device's {@code Unified Memory} row: a slice, or an instant when it does not last. */
    @Override
    public void unifiedMemory(TraceRecord u) throws IOException {
        boolean lasting = u.umCounter.lasting();
        EventTable.Row r = begin(lasting ? "X" : "i", u.kind.category(), names.name(u.nameId), u.device,
                TraceSink.UNIFIED_MEMORY_ROW, u.startNs);
        if (lasting) {
            r.dur = u.endNs - u.startNs;
        }
        if (u.has(RecordField.BYTES)) { // what tables reads from the JSON trace's args: bytes, no device arg
            r.bytes = u.bytes;
        }
        add(r);
    }

    @Override
    public void hostOpSlice(HostOpRow op) throws IOException {
        EventTable.Row r = begin("X", op.annotation ? "user_annotation" : "cpu_op", names.name(op.nameId), op.pid, op.tid, op.startNs);
        r.dur = op.endNs - op.startNs;
        r.externalId = op.externalId;
        add(r);
    }

    @Override
    public void gpuAnnotation(GpuAnnotationRow span) throws IOException {
        EventTable.Row r = begin("X", "gpu_user_annotation", names.name(span.nameId), span.device, span.stream, span.startNs);
        r.dur = span.endNs - span.startNs;
        r.externalId = span.externalId;
        add(r);
    }

    @Override
    public void memoryInstant(MemoryRow m) throws IOException {
        EventTable.Row r = begin("i", "cpu_instant_event", "[memory]", m.pid, m.tid, m.tsNs);
        r.bytes = m.bytes;
        r.device = m.deviceId;
        r.totalAllocated = m.totalAllocated;
        r.totalReserved = m.totalReserved;
        add(r);
    }

    @Override
    public void markInstant(MarkRow mark) throws IOException {
        add(begin("i", "cpu_instant_event", names.name(mark.nameId), mark.pid, mark.tid, mark.tsNs));
    }

    @Override
    public void flow(FlowArrow a) throws IOException {
        EventTable.Row r = begin("s", "ac2g", "ac2g", a.hostPid(), a.hostTid(), a.hostTs());
        r.flowId = a.id();
        add(r);
        r = begin("f", "ac2g", "ac2g", a.devicePid(), a.deviceTid(), a.deviceTs());
        r.flowId = a.id();
        add(r);
    }

    /** Both ends of an arrow are rows, as in the JSON trace. */
    @Override
    public int eventsPerFlow() {
        return 2;
    }

    @Override
    public void overheadSlice(TraceRecord overhead) throws IOException {
        EventTable.Row r = begin("X", overhead.kind.category(), names.name(overhead.nameId), -1, 0, overhead.startNs);
        r.dur = overhead.endNs - overhead.startNs;
        add(r);
    }

    @Override
    public void endOfBatch() {
        // pages are compressed as they fill, row groups written as they end
    }

    /** The capture span's three timed events (the JSON's fourth, a row's sort index, is a label); writes the file. */
    @Override
    public long footer(TraceFooter end) throws IOException {
        if (table == null) {
            header(base);
        }
        long added = 0;
        if (end.windowBounded()) {
            EventTable.Row r = begin("X", "Trace", SPAN_NAME, EventTable.NONE, EventTable.NONE, end.windowStartNs());
            r.dur = end.windowEndNs() - end.windowStartNs();
            add(r);
            add(begin("i", null, "Iteration Start: PyTorch Profiler", EventTable.NONE, EventTable.NONE, end.windowStartNs()));
            add(begin("i", null, "Record Window End", EventTable.NONE, EventTable.NONE, end.windowEndNs()));
            added = 3;
        }
        try {
            table.finish();
        } finally {
            discard();
        }
        return added;
    }

    @Override
    public void abandon() {
        discard();
    }

    /** Frees the compressor: after the footer, or when the walk ends without one (the output is then not renamed into place). */
    public void discard() {
        if (table != null) {
            table.abandon();
        }
    }
}
