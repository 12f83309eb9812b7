package org.flagos.trace.encoders;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * that {@code flagtrace tables} of that JSON trace gives the same rows. The rows gather in an
 * {@link EventTable}; at the footer DuckDB writes the Parquet file in the scratch directory and its
 * bytes are handed to the stream (so the output's own rename-on-success still decides whether the
 * file appears).
 */
public final class ParquetSink implements TraceSink {
    /** The pid and tid strings of torch's capture span events, which no number stands for. */
    private static final String SPAN_NAME = "PyTorch Profiler (0)";

    private final OutputStream out;
    private final NameTable names;
    private final TraceHeader header;
    private final Path scratchDir;
    private final Function<EventKind, String> apiCategory;
    private final EventTable.Row row = new EventTable.Row();
    private EventTable table;
    private long base;

    /**
     * @param scratchDir  where DuckDB's scratch database and the Parquet file are made before the bytes
     *                    go to {@code out}: the output's own folder
     * @param apiCategory the category of API records per kind, as the vendor names it
     */
    public ParquetSink(OutputStream out, NameTable names, TraceHeader header, Function<EventKind, String> apiCategory,
                       Path scratchDir) {
        this.out = out;
        this.names = names;
        this.header = header;
        this.apiCategory = apiCategory;
        this.scratchDir = scratchDir;
    }

    @Override
    public void header(long baseNs) throws IOException {
        base = baseNs;
        table = new EventTable(scratchDir);
        ProcessIdentity id = header.identity();
        table.source(0, baseNs, 0);
        table.slot(0, id != null && id.distributed() ? id.rank() : null, id == null ? null : id.host());
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
        table.add(r);
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
        table.add(r);
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
        table.add(r);
    }

    @Override
    public void hostOpSlice(HostOpRow op) throws IOException {
        EventTable.Row r = begin("X", op.annotation ? "user_annotation" : "cpu_op", names.name(op.nameId), op.pid, op.tid, op.startNs);
        r.dur = op.endNs - op.startNs;
        r.externalId = op.externalId;
        table.add(r);
    }

    @Override
    public void gpuAnnotation(GpuAnnotationRow span) throws IOException {
        EventTable.Row r = begin("X", "gpu_user_annotation", names.name(span.nameId), span.device, span.stream, span.startNs);
        r.dur = span.endNs - span.startNs;
        r.externalId = span.externalId;
        table.add(r);
    }

    @Override
    public void memoryInstant(MemoryRow m) throws IOException {
        EventTable.Row r = begin("i", "cpu_instant_event", "[memory]", m.pid, m.tid, m.tsNs);
        r.bytes = m.bytes;
        r.device = m.deviceId;
        r.totalAllocated = m.totalAllocated;
        r.totalReserved = m.totalReserved;
        table.add(r);
    }

    @Override
    public void markInstant(MarkRow mark) throws IOException {
        table.add(begin("i", "cpu_instant_event", names.name(mark.nameId), mark.pid, mark.tid, mark.tsNs));
    }

    @Override
    public void flow(FlowArrow a) throws IOException {
        EventTable.Row r = begin("s", "ac2g", "ac2g", a.hostPid(), a.hostTid(), a.hostTs());
        r.flowId = a.id();
        table.add(r);
        r = begin("f", "ac2g", "ac2g", a.devicePid(), a.deviceTid(), a.deviceTs());
        r.flowId = a.id();
        table.add(r);
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
        table.add(r);
    }

    @Override
    public void endOfBatch() {
        // DuckDB's appender hands over its chunks as they fill
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
            table.add(r);
            table.add(begin("i", null, "Iteration Start: PyTorch Profiler", EventTable.NONE, EventTable.NONE, end.windowStartNs()));
            table.add(begin("i", null, "Record Window End", EventTable.NONE, EventTable.NONE, end.windowEndNs()));
            added = 3;
        }
        Path parquet = scratchDir.toAbsolutePath().resolve(EventTable.SCRATCH_PREFIX + ProcessHandle.current().pid() + "-"
                + System.nanoTime() + ".parquet");
        parquet.toFile().deleteOnExit();
        try {
            table.writeParquet(parquet);
            table.close();
            Files.copy(parquet, out);
            out.flush();
        } finally {
            discard();
            Files.deleteIfExists(parquet);
        }
        return added;
    }

    @Override
    public void abandon() {
        discard();
    }

    /** Closes DuckDB and deletes its scratch files: after the footer, or when the walk ends without one. */
    public void discard() {
        if (table != null) {
            table.close();
        }
    }
}
