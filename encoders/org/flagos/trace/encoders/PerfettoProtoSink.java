package org.flagos.trace.encoders;

import java.io.IOException;
import java.io.OutputStream;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordField;
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
 * Perfetto's protobuf trace for a {@code .pftrace} target (a sequence of {@code TracePacket}s,
 * docs/formats.md): the same slices and arguments as {@link ChromeJsonSink}'s JSON, from what
 * {@link TraceWalk} hands over. Each device record, API call and settled host op becomes a slice (a
 * begin and an end event) on its track. A flow joins a launch to its device work: both slices carry
 * the vendor correlation id as flow id, so a completed arrow needs no packet of its own. Names,
 * categories and argument keys are interned, each sent once.
 */
public final class PerfettoProtoSink implements TraceSink {
    // Field numbers of Perfetto's trace protos (protos/perfetto/trace/...), as documented there.
    private static final int TRACE_PACKET = 1;
    private static final int PACKET_TIMESTAMP = 8;
    private static final int PACKET_SEQUENCE_ID = 10;
    private static final int PACKET_TRACK_EVENT = 11;
    private static final int PACKET_INTERNED_DATA = 12;
    private static final int PACKET_SEQUENCE_FLAGS = 13;
    private static final int PACKET_TRACK_DESCRIPTOR = 60;
    private static final int SEQ_INCREMENTAL_STATE_CLEARED = 1;
    private static final int SEQ_NEEDS_INCREMENTAL_STATE = 2;
    private static final int INTERNED_EVENT_CATEGORIES = 1;
    private static final int INTERNED_EVENT_NAMES = 2;
    private static final int INTERNED_ANNOTATION_NAMES = 3;
    private static final int INTERNED_IID = 1;
    private static final int INTERNED_NAME = 2;
    private static final int DESCRIPTOR_UUID = 1;
    private static final int DESCRIPTOR_NAME = 2;
    private static final int DESCRIPTOR_PROCESS = 3;
    private static final int DESCRIPTOR_THREAD = 4;
    private static final int DESCRIPTOR_PARENT_UUID = 5;
    private static final int PROCESS_PID = 1;
    private static final int PROCESS_NAME = 6;
    private static final int THREAD_PID = 1;
    private static final int THREAD_TID = 2;
    private static final int THREAD_NAME = 5;
    private static final int EVENT_CATEGORY_IIDS = 3;
    private static final int EVENT_DEBUG_ANNOTATIONS = 4;
    private static final int EVENT_TYPE = 9;
    private static final int EVENT_NAME_IID = 10;
    private static final int EVENT_TRACK_UUID = 11;
    // flow_ids_old / terminating_flow_ids_old (varint): the Perfetto v20.1 trace processor of the
    // npm package the tests use reads only these; later ones read them when 47/48 are absent.
    private static final int EVENT_FLOW_IDS = 36;
    private static final int EVENT_TERMINATING_FLOW_IDS = 42;
    private static final int TYPE_SLICE_BEGIN = 1;
    private static final int TYPE_SLICE_END = 2;
    private static final int TYPE_INSTANT = 3;
    private static final int EVENT_NAME = 23;
    private static final int ANNOTATION_NAME_IID = 1;
    private static final int ANNOTATION_BOOL = 2;
    private static final int ANNOTATION_UINT = 3;
    private static final int ANNOTATION_INT = 4;
    private static final int ANNOTATION_DOUBLE = 5;
    private static final int ANNOTATION_STRING = 6;
    private static final int ANNOTATION_JSON = 9;
    private static final int ANNOTATION_NAME = 10;

    /** The one packet sequence this writer produces. */
    private static final int SEQUENCE = 1;
    /** Packets are handed to the stream in batches of about this many bytes. */
    private static final int FLUSH_BYTES = 1 << 15;
    private static final byte[] EMPTY_ARRAY = {'[', ']'};

    // Argument keys, the same as the JSON trace's; interned once per trace.
    private static final String EXTERNAL_ID = "External id";
    private static final String CBID = "cbid";
    private static final String CORRELATION = "correlation";

    private final OutputStream out;
    private final NameTable names;
    private final TraceHeader header;
    private final String runtimeCategory;
    private final String driverCategory;
    private final ProtoBuffer buf = new ProtoBuffer();
    private final BitSet namesSent = new BitSet();
    private final Map<String, Long> categoryIids = new HashMap<>();
    private final Map<String, Long> annotationIids = new HashMap<>();
    /** Host threads: pid to (tid to track uuid). */
    private final Long2ObjectHashMap<Long2LongHashMap> threadTracks = new Long2ObjectHashMap<>();
    private final Long2LongHashMap processTracks = new Long2LongHashMap(-1);
    private final Long2LongHashMap streamTracks = new Long2LongHashMap(-1);
    private final Long2LongHashMap deviceTracks = new Long2LongHashMap(-1);
    private final Long2LongHashMap syncTracks = new Long2LongHashMap(-1);
    private final Long2ObjectHashMap<String> threadNames = new Long2ObjectHashMap<>();

    private long nextUuid = 1;
    /** The profiler-overhead track, made at the first overhead slice; -1 until then. */
    private long overheadTrack = -1;

    /**
     * @param apiCategory the category of API records per kind, as the vendor names it
     */
    public PerfettoProtoSink(OutputStream out, NameTable names, TraceHeader header,
                             java.util.function.Function<EventKind, String> apiCategory) {
        this.out = out;
        this.names = names;
        this.header = header;
        this.runtimeCategory = apiCategory.apply(EventKind.RUNTIME);
        this.driverCategory = apiCategory.apply(EventKind.DRIVER);
    }

    @Override
    public void endOfBatch() throws IOException {
        flush();
    }

    /** Hands the packets to the stream once about {@link #FLUSH_BYTES} have gathered. */
    private void flushIfFull() throws IOException {
        if (buf.size() > FLUSH_BYTES) {
            flush();
        }
    }

    private void flush() throws IOException {
        if (buf.size() > 0) {
            buf.writeTo(out);
            buf.clear();
            out.flush();
        }
    }

    @Override
    public void apiSlice(TraceRecord r) throws IOException {
        long track = threadTrack(r.processId, r.threadId);
        String category = r.kind == EventKind.DRIVER ? driverCategory : runtimeCategory;
        beginPacket(r.startNs, r.nameId, category);
        buf.begin(PACKET_TRACK_EVENT);
        sliceBegin(track, r.nameId, category);
        if (r.hasExternalId()) {
            intArg(EXTERNAL_ID, r.externalId());
        }
        if (r.has(RecordField.CBID)) {
            intArg(CBID, r.cbid);
        }
        if (r.hasCorrelation()) {
            uintArg(CORRELATION, r.correlation());
            buf.uint64(EVENT_FLOW_IDS, r.correlation());
        }
        buf.end();
        buf.end();
        sliceEnd(track, r.endNs);
        flushIfFull();
    }

    @Override
    public void deviceSlice(TraceRecord r, int row) throws IOException {
        if (r.kind == EventKind.SYNC || r.has(RecordField.GRAPH)) {
            internKeys(LATER_KEYS); // before the slice's packet opens: keys first seen in traces that have these records
        }
        if (r.has(RecordField.PEER)) {
            internKeys(PEER_KEYS);
        }
        if (r.kind == EventKind.SYNC) {
            syncSlice(syncTrack(r.device, r.stream), r);
            return;
        }
        long track = streamTrack(r.device, r.stream);
        int nameId = r.nameId;
        String category = r.kind.category();
        beginPacket(r.startNs, nameId, category);
        buf.begin(PACKET_TRACK_EVENT);
        sliceBegin(track, nameId, category);
        if (r.hasExternalId()) {
            intArg(EXTERNAL_ID, r.externalId());
        }
        if (r.has(RecordField.QUEUED)) {
            intArg("queued", r.queued);
        }
        if (r.has(RecordField.PEER)) {
            uintArg("fromDevice", Integer.toUnsignedLong(r.srcDevice));
            uintArg("inDevice", Integer.toUnsignedLong(r.device));
            uintArg("toDevice", Integer.toUnsignedLong(r.dstDevice));
            uintArg("fromContext", Integer.toUnsignedLong(r.srcContext));
            uintArg("inContext", Integer.toUnsignedLong(r.context));
            uintArg("toContext", Integer.toUnsignedLong(r.dstContext));
        } else {
            intArg("device", r.device);
            if (r.has(RecordField.CONTEXT)) {
                intArg("context", r.context);
            }
        }
        intArg("stream", r.stream);
        if (r.hasCorrelation()) {
            uintArg(CORRELATION, r.correlation());
            // a graph launch's records chain one flow (launch, first record, next, ...): terminating it at
            // the first would leave the others ending a flow that has ended
            buf.uint64(r.has(RecordField.GRAPH) ? EVENT_FLOW_IDS : EVENT_TERMINATING_FLOW_IDS, r.correlation());
        }
        if (r.kind == EventKind.KERNEL) {
            kernelArgs(r);
        } else {
            if (r.has(RecordField.BYTES)) {
                long dur = r.durationNs();
                intArg("bytes", r.bytes);
                doubleArg("memory bandwidth (GB/s)", dur > 0 ? (double) r.bytes / dur : 0); // bytes per ns is GB/s
            }
            if (r.has(RecordField.MEMSET_VALUE)) {
                intArg("value", r.memsetValue);
            }
        }
        if (r.has(RecordField.GRAPH)) {
            intArg("graph id", r.graphId);
            uintArg("graph node id", r.graphNodeId);
        }
        buf.end();
        buf.end();
        sliceEnd(track, r.endNs);
        flushIfFull();
    }

    /** A synchronization on its stream's sync track ({@link #syncTrack}), with the JSON's {@code cuda_sync} args. */
    private void syncSlice(long track, TraceRecord r) throws IOException {
        String category = r.kind.category();
        beginPacket(r.startNs, r.nameId, category);
        buf.begin(PACKET_TRACK_EVENT);
        sliceBegin(track, r.nameId, category);
        if (r.hasExternalId()) {
            intArg(EXTERNAL_ID, r.externalId());
        }
        stringArg("cuda_sync_kind", names.name(r.nameId));
        if (r.syncKind != null && r.syncKind.onEvent()) {
            intArg("wait_on_stream", -1);
            intArg("wait_on_cuda_event_record_corr_id", -1);
            intArg("wait_on_cuda_event_id", r.syncEventId);
        }
        intArg("stream", r.stream);
        if (r.hasCorrelation()) {
            uintArg(CORRELATION, r.correlation());
            buf.uint64(EVENT_TERMINATING_FLOW_IDS, r.correlation());
        }
        intArg("device", r.device);
        if (r.has(RecordField.CONTEXT)) {
            intArg("context", r.context);
        }
        buf.end();
        buf.end();
        sliceEnd(track, r.endNs);
        flushIfFull();
    }

    /** The profiler's own time, on a track of its own ({@code profiler overhead}), without args. */
    @Override
    public void overheadSlice(TraceRecord r) throws IOException {
        if (overheadTrack == -1) {
            overheadTrack = nextUuid++;
            namedTrack(overheadTrack, -1, "profiler overhead");
        }
        String category = r.kind.category();
        beginPacket(r.startNs, r.nameId, category);
        buf.begin(PACKET_TRACK_EVENT);
        sliceBegin(overheadTrack, r.nameId, category);
        buf.end();
        buf.end();
        sliceEnd(overheadTrack, r.endNs);
        flushIfFull();
    }

    /**
     * Interns, in a packet of their own, those of {@code keys} not interned yet: keys only some
     * traces use are sent when first needed, so a trace without them is the bytes it always was.
     */
    private void internKeys(String[] keys) {
        boolean open = false;
        for (String key : keys) {
            if (!annotationIids.containsKey(key)) {
                if (!open) {
                    buf.begin(TRACE_PACKET);
                    buf.uint64(PACKET_SEQUENCE_ID, SEQUENCE);
                    buf.uint64(PACKET_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
                    buf.begin(PACKET_INTERNED_DATA);
                    open = true;
                }
                long iid = annotationIids.size() + 1L;
                annotationIids.put(key, iid);
                interned(INTERNED_ANNOTATION_NAMES, iid, key);
            }
        }
        if (open) {
            buf.end();
            buf.end();
        }
    }

    private void stringArg(String key, String value) {
        buf.begin(EVENT_DEBUG_ANNOTATIONS);
        buf.uint64(ANNOTATION_NAME_IID, annotationKey(key));
        buf.string(ANNOTATION_STRING, value);
        buf.end();
    }

    private void kernelArgs(TraceRecord r) {
        if (r.has(RecordField.REGISTERS)) {
            intArg("registers per thread", r.registersPerThread);
        }
        if (r.has(RecordField.SHARED_MEMORY)) {
            intArg("shared memory", (long) r.staticSharedMemory + r.dynamicSharedMemory);
        }
        if (!Float.isNaN(r.blocksPerSm)) {
            doubleArg("blocks per SM", r.blocksPerSm);
            doubleArg("warps per SM", r.warpsPerSm);
        }
        if (r.has(RecordField.GRID)) {
            tripleArg("grid", r.gridX, r.gridY, r.gridZ);
        }
        if (r.has(RecordField.BLOCK)) {
            tripleArg("block", r.blockX, r.blockY, r.blockZ);
        }
        if (r.occupancyPercent != TraceRecord.NO_OCCUPANCY) {
            intArg("est. achieved occupancy %", r.occupancyPercent);
        }
    }

    /**
     * Opens a slice's begin packet and sends, in its interned data, what the sequence has not seen
     * yet of its name and category.
     */
    private void beginPacket(long ts, int nameId, String category) {
        buf.begin(TRACE_PACKET);
        buf.uint64(PACKET_TIMESTAMP, ts);
        buf.uint64(PACKET_SEQUENCE_ID, SEQUENCE);
        buf.uint64(PACKET_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
        boolean newName = nameId >= 0 && !namesSent.get(nameId);
        boolean newCategory = !categoryIids.containsKey(category);
        if (newName || newCategory) {
            buf.begin(PACKET_INTERNED_DATA);
            if (newCategory) {
                long iid = categoryIids.size() + 1L;
                categoryIids.put(category, iid);
                interned(INTERNED_EVENT_CATEGORIES, iid, category);
            }
            if (newName) {
                namesSent.set(nameId);
                interned(INTERNED_EVENT_NAMES, nameId + 1L, names.name(nameId));
            }
            buf.end();
        }
    }

    private void interned(int field, long iid, String name) {
        buf.begin(field);
        buf.uint64(INTERNED_IID, iid);
        buf.string(INTERNED_NAME, name);
        buf.end();
    }

    private void sliceBegin(long track, int nameId, String category) {
        buf.uint64(EVENT_TYPE, TYPE_SLICE_BEGIN);
        buf.uint64(EVENT_TRACK_UUID, track);
        buf.uint64(EVENT_CATEGORY_IIDS, categoryIids.get(category));
        buf.uint64(EVENT_NAME_IID, nameId + 1L);
    }

    private void sliceEnd(long track, long ts) {
        buf.begin(TRACE_PACKET);
        buf.uint64(PACKET_TIMESTAMP, ts);
        buf.uint64(PACKET_SEQUENCE_ID, SEQUENCE);
        buf.begin(PACKET_TRACK_EVENT);
        buf.uint64(EVENT_TYPE, TYPE_SLICE_END);
        buf.uint64(EVENT_TRACK_UUID, track);
        buf.end();
        buf.end();
    }

    /** An annotation's key: interned in a packet of its own before the first use, then by iid. */
    private long annotationKey(String key) {
        Long iid = annotationIids.get(key);
        if (iid != null) {
            return iid;
        }
        throw new IllegalStateException("argument key not interned: " + key);
    }

    private void intArg(String key, long value) {
        buf.begin(EVENT_DEBUG_ANNOTATIONS);
        buf.uint64(ANNOTATION_NAME_IID, annotationKey(key));
        buf.int64(ANNOTATION_INT, value);
        buf.end();
    }

    private void boolArg(String key, boolean value) {
        buf.begin(EVENT_DEBUG_ANNOTATIONS);
        buf.uint64(ANNOTATION_NAME_IID, annotationKey(key));
        buf.uint64(ANNOTATION_BOOL, value ? 1 : 0);
        buf.end();
    }

    private void uintArg(String key, long value) {
        buf.begin(EVENT_DEBUG_ANNOTATIONS);
        buf.uint64(ANNOTATION_NAME_IID, annotationKey(key));
        buf.uint64(ANNOTATION_UINT, value);
        buf.end();
    }

    private void doubleArg(String key, double value) {
        buf.begin(EVENT_DEBUG_ANNOTATIONS);
        buf.uint64(ANNOTATION_NAME_IID, annotationKey(key));
        buf.float64(ANNOTATION_DOUBLE, value);
        buf.end();
    }

    /** An array argument, as JSON text: the trace processor unfolds it into one arg per element, as for the JSON trace. */
    private void jsonArg(String key, byte[] json) {
        buf.begin(EVENT_DEBUG_ANNOTATIONS);
        buf.uint64(ANNOTATION_NAME_IID, annotationKey(key));
        buf.bytes(ANNOTATION_JSON, json);
        buf.end();
    }

    /**
     * An op's own arg. Its key goes by name, not interned: the keys a program gives are not known when
     * the first packet interns flagtrace's own, and interning them later would change no viewer's view.
     */
    private void userArg(OpArgs args, int i) {
        buf.begin(EVENT_DEBUG_ANNOTATIONS);
        buf.string(ANNOTATION_NAME, args.key(i));
        switch (args.kind(i)) {
            case INTEGER: buf.int64(ANNOTATION_INT, args.integer(i)); break;
            case DOUBLE: buf.float64(ANNOTATION_DOUBLE, args.real(i)); break;
            case STRING: buf.string(ANNOTATION_STRING, args.string(i)); break;
            default: buf.bytes(ANNOTATION_JSON, args.json(i)); break;
        }
        buf.end();
    }

    private void tripleArg(String key, long x, long y, long z) {
        buf.begin(EVENT_DEBUG_ANNOTATIONS);
        buf.uint64(ANNOTATION_NAME_IID, annotationKey(key));
        buf.asciiTriple(ANNOTATION_JSON, x, y, z);
        buf.end();
    }

    /** The first packet: clears the sequence's incremental state and interns every argument key. */
    @Override
    public void header(long baseNs) {
        buf.begin(TRACE_PACKET);
        buf.uint64(PACKET_SEQUENCE_ID, SEQUENCE);
        buf.uint64(PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED | SEQ_NEEDS_INCREMENTAL_STATE);
        buf.begin(PACKET_INTERNED_DATA);
        for (String key : ARG_KEYS) {
            long iid = annotationIids.size() + 1L;
            annotationIids.put(key, iid);
            interned(INTERNED_ANNOTATION_NAMES, iid, key);
        }
        buf.end();
        buf.end();
    }

    private static final String[] ARG_KEYS = {
        EXTERNAL_ID, CBID, CORRELATION, "queued", "device", "context", "stream", "registers per thread",
        "shared memory", "blocks per SM", "warps per SM", "grid", "block", "est. achieved occupancy %", "bytes",
        "memory bandwidth (GB/s)", "value", "Record function id", "Ev Idx", "Input Dims", "Input Strides",
        "Input type", "Concrete Inputs", "thread", "Op count",
    };

    /** kineto's args of a peer copy where other device work has device and context, interned at the first one. */
    private static final String[] PEER_KEYS = {
        "fromDevice", "inDevice", "toDevice", "fromContext", "inContext", "toContext",
    };

    /** Argument keys interned at their first use ({@link #internKeys}): graph ids and synchronization args. */
    private static final String[] LATER_KEYS = {
        "graph id", "graph node id", "cuda_sync_kind", "wait_on_stream", "wait_on_cuda_event_record_corr_id",
        "wait_on_cuda_event_id",
    };

    private long threadTrack(long pid, long tid) {
        Long2LongHashMap tids = threadTracks.get(pid);
        if (tids == null) {
            tids = new Long2LongHashMap(-1);
            threadTracks.put(pid, tids);
        }
        long uuid = tids.get(tid);
        if (uuid == -1) {
            uuid = nextUuid++;
            tids.put(tid, uuid);
            threadDescriptor(uuid, pid, tid, defaultThreadName(tid));
        }
        return uuid;
    }

    private String defaultThreadName(long tid) {
        return "thread " + tid + " (" + header.processName() + ")";
    }

    /**
     * A host thread's track. Perfetto's thread ids are 32-bit; a vendor thread id that does not
     * fit gets a track of its own under the process, named as the JSON trace's row.
     */
    private void threadDescriptor(long uuid, long pid, long tid, String name) {
        long process = processTrack(pid);
        buf.begin(TRACE_PACKET);
        buf.uint64(PACKET_SEQUENCE_ID, SEQUENCE);
        buf.begin(PACKET_TRACK_DESCRIPTOR);
        buf.uint64(DESCRIPTOR_UUID, uuid);
        buf.uint64(DESCRIPTOR_PARENT_UUID, process);
        if (fitsInt(pid) && fitsInt(tid)) {
            buf.begin(DESCRIPTOR_THREAD);
            buf.int64(THREAD_PID, pid);
            buf.int64(THREAD_TID, tid);
            buf.string(THREAD_NAME, name);
            buf.end();
        } else {
            buf.string(DESCRIPTOR_NAME, name);
        }
        buf.end();
        buf.end();
    }

    private long processTrack(long pid) {
        long uuid = processTracks.get(pid);
        if (uuid == -1) {
            uuid = nextUuid++;
            processTracks.put(pid, uuid);
            buf.begin(TRACE_PACKET);
            buf.uint64(PACKET_SEQUENCE_ID, SEQUENCE);
            buf.begin(PACKET_TRACK_DESCRIPTOR);
            buf.uint64(DESCRIPTOR_UUID, uuid);
            if (fitsInt(pid)) {
                buf.begin(DESCRIPTOR_PROCESS);
                buf.int64(PROCESS_PID, pid);
                buf.string(PROCESS_NAME, header.processName());
                buf.end();
            } else {
                buf.string(DESCRIPTOR_NAME, header.processName());
            }
            buf.end();
            buf.end();
        }
        return uuid;
    }

    /**
     * A device stream's track, under its device's track ({@code GPU n}, as the JSON labels it). Not
     * process tracks: the JSON trace's device pids (the ordinals 0, 1, ...) would be taken by
     * Perfetto for real processes (pid 0 is the kernel's idle task; pid 1 may well be the host).
     */
    private long streamTrack(int device, int stream) {
        long key = ((long) device << 32) | (stream & 0xFFFF_FFFFL);
        long uuid = streamTracks.get(key);
        if (uuid == -1) {
            long parent = deviceTracks.get(device);
            if (parent == -1) {
                parent = nextUuid++;
                deviceTracks.put(device, parent);
                namedTrack(parent, -1, "GPU " + device);
            }
            uuid = nextUuid++;
            streamTracks.put(key, uuid);
            namedTrack(uuid, parent, stream == -1 ? "Device " + device
                    : stream == TraceSink.UNIFIED_MEMORY_ROW ? "Unified Memory" : "stream " + stream); // as the JSON's row
        }
        return uuid;
    }

    /**
     * The track of a stream's synchronizations, a child of the stream's track named
     * {@code "<stream's name> sync"}. The JSON draws them on the stream's row, as torch does, where a
     * sync often starts while the kernel it waits for runs and ends after it; a Perfetto track's
     * slices must nest (an end closes the latest open slice), so on the stream's own track the
     * kernel's end would close the sync.
     */
    private long syncTrack(int device, int stream) {
        long key = ((long) device << 32) | (stream & 0xFFFF_FFFFL);
        long uuid = syncTracks.get(key);
        if (uuid == -1) {
            long parent = streamTrack(device, stream);
            uuid = nextUuid++;
            syncTracks.put(key, uuid);
            namedTrack(uuid, parent, (stream == -1 ? "Device " + device : "stream " + stream) + " sync");
        }
        return uuid;
    }

    private void namedTrack(long uuid, long parent, String name) {
        buf.begin(TRACE_PACKET);
        buf.uint64(PACKET_SEQUENCE_ID, SEQUENCE);
        buf.begin(PACKET_TRACK_DESCRIPTOR);
        buf.uint64(DESCRIPTOR_UUID, uuid);
        if (parent != -1) {
            buf.uint64(DESCRIPTOR_PARENT_UUID, parent);
        }
        buf.string(DESCRIPTOR_NAME, name);
        buf.end();
        buf.end();
    }

    private static boolean fitsInt(long v) {
        return v == (int) v;
    }

    /** torch's capture span, when the capture has a window; the packets are handed to the stream. */
    @Override
    public long footer(TraceFooter end) throws IOException {
        long spans = 0;
        if (end.windowBounded()) {
            writeCaptureSpan(end.windowStartNs(), end.windowEndNs(), end.spanNameId());
            spans++;
        }
        flush();
        return spans;
    }

    /**
     * A settled host op: a slice on the row of the thread its API calls ran on, with the JSON's
     * cpu_op args; the row is named as the program knows its thread.
     */
    @Override
    public void hostOpSlice(HostOpRow op) throws IOException {
        if (op.annotation) {
            annotationSlice(op);
            return;
        }
        long track = hostTrack(op);
        int nameId = op.nameId;
        beginPacket(op.startNs, nameId, "cpu_op");
        buf.begin(PACKET_TRACK_EVENT);
        sliceBegin(track, nameId, "cpu_op");
        intArg(EXTERNAL_ID, op.externalId);
        intArg("Record function id", 0);
        intArg("Ev Idx", op.evIdx);
        // an op without args records no tensor inputs: the fields torch writes are present and empty
        for (int k = 0; k < OpArgs.TORCH_INPUT_KEYS.size(); k++) {
            byte[] value = op.args == null ? null : op.args.torchInputJson(k);
            jsonArg(OpArgs.TORCH_INPUT_KEYS.get(k), value == null ? EMPTY_ARRAY : value);
        }
        if (op.args != null) {
            for (int i = 0; i < op.args.size(); i++) {
                if (!op.args.isTorchInput(i)) {
                    userArg(op.args, i);
                }
            }
        }
        if (op.stack != null) {
            buf.begin(EVENT_DEBUG_ANNOTATIONS);
            buf.string(ANNOTATION_NAME, OpStack.KEY);
            buf.bytes(ANNOTATION_STRING, op.stack.joinedUtf8()); // encoded once per stack, not per trace written
            buf.end();
        }
        if (op.thread >= 0) {
            intArg("thread", op.thread);
        }
        buf.end();
        buf.end();
        sliceEnd(track, op.endNs);
        flushIfFull();
    }

    /** The op's thread track, named as the program knows its thread when the op says (an annotation range does not). */
    private long hostTrack(HostOpRow op) {
        long track = threadTrack(op.pid, op.tid);
        if (op.threadNameId >= 0 && !threadNames.containsKey(op.tid)) {
            String name = names.name(op.threadNameId);
            threadNames.put(op.tid, name);
            threadDescriptor(track, op.pid, op.tid, name); // the same track, now named as the program knows it
        }
        return track;
    }

    /** The keys only annotation ranges and marks use: interned at the first one, so traces without any keep their bytes. */
    private static final String[] ANNOTATION_KEYS = {"domain"};

    /** An annotation range: {@code user_annotation} on its thread's track with the JSON's args. */
    private void annotationSlice(HostOpRow op) throws IOException {
        if (op.domainNameId >= 0) {
            internKeys(ANNOTATION_KEYS);
        }
        long track = hostTrack(op);
        beginPacket(op.startNs, op.nameId, "user_annotation");
        buf.begin(PACKET_TRACK_EVENT);
        sliceBegin(track, op.nameId, "user_annotation");
        intArg(EXTERNAL_ID, op.externalId);
        intArg("Record function id", 0);
        intArg("Ev Idx", op.evIdx);
        if (op.domainNameId >= 0) {
            stringArg("domain", names.name(op.domainNameId));
        }
        buf.end();
        buf.end();
        sliceEnd(track, op.endNs);
        flushIfFull();
    }

    /** An annotation mark: an instant on its thread's track, as the JSON's. */
    @Override
    public void markInstant(MarkRow m) throws IOException {
        if (m.domainNameId >= 0) {
            internKeys(ANNOTATION_KEYS);
        }
        long track = threadTrack(m.pid, m.tid);
        String category = "cpu_instant_event";
        beginPacket(m.tsNs, m.nameId, category);
        buf.begin(PACKET_TRACK_EVENT);
        buf.uint64(EVENT_TYPE, TYPE_INSTANT);
        buf.uint64(EVENT_TRACK_UUID, track);
        buf.uint64(EVENT_CATEGORY_IIDS, categoryIids.get(category));
        buf.uint64(EVENT_NAME_IID, m.nameId + 1L);
        if (m.domainNameId >= 0) {
            stringArg("domain", names.name(m.domainNameId));
        }
        buf.end();
        buf.end();
        flushIfFull();
    }

    /**
     * A GPU annotation, with the JSON's one arg: a slice on its stream's track, around the device slices
     * it spans (the walk draws it 1 ns wider than they are, so no begin ties with theirs).
     */
    @Override
    public void gpuAnnotation(GpuAnnotationRow a) throws IOException {
        long track = streamTrack(a.device, a.stream);
        String category = "gpu_user_annotation";
        beginPacket(a.startNs, a.nameId, category);
        buf.begin(PACKET_TRACK_EVENT);
        sliceBegin(track, a.nameId, category);
        intArg(EXTERNAL_ID, a.externalId);
        buf.end();
        buf.end();
        sliceEnd(track, a.endNs);
        flushIfFull();
    }

    /** torch's span of the profiled region ({@link CaptureSpan}): one slice on a track of its own. */
    private void writeCaptureSpan(long startNs, long endNs, int nameId) {
        long track = nextUuid++;
        namedTrack(track, -1, "Spans");
        beginPacket(startNs, nameId, "Trace");
        buf.begin(PACKET_TRACK_EVENT);
        sliceBegin(track, nameId, "Trace");
        intArg("Op count", 0);
        buf.end();
        buf.end();
        sliceEnd(track, endNs);
    }

    /** The args of torch's {@code [memory]} instant (its "Ev Idx" is interned already); interned at the first one, so traces without any keep their bytes. */
    private static final String[] MEMORY_KEYS = {
        "Total Reserved", "Total Allocated", "Bytes", "Device Id", "Device Type", "Addr", "finished",
    };

    /** torch's {@code [memory]} instant on its host thread's track, with the JSON's eight args. */
    @Override
    public void memoryInstant(MemoryRow m) throws IOException {
        internKeys(MEMORY_KEYS);
        long track = threadTrack(m.pid, m.tid);
        String category = "cpu_instant_event";
        beginPacket(m.tsNs, -1, category);
        buf.begin(PACKET_TRACK_EVENT);
        buf.uint64(EVENT_TYPE, TYPE_INSTANT);
        buf.uint64(EVENT_TRACK_UUID, track);
        buf.uint64(EVENT_CATEGORY_IIDS, categoryIids.get(category));
        buf.string(EVENT_NAME, "[memory]");
        intArg("Total Reserved", m.totalReserved);
        intArg("Total Allocated", m.totalAllocated);
        intArg("Bytes", m.bytes);
        intArg("Device Id", m.deviceId);
        intArg("Device Type", m.deviceType);
        uintArg("Addr", m.address);
        boolArg("finished", false);
        intArg("Ev Idx", m.evIdx);
        buf.end();
        buf.end();
        flushIfFull();
    }

    /** The unified-memory args: interned at the first such record, so traces without any keep their bytes. */
    private static final String[] UNIFIED_MEMORY_KEYS = {
        "fault groups", "PC", "address", "migration cause", "access type", "remote map cause", "src id", "dst id", "devices",
    };

    /** A unified-memory record on its device's {@code Unified Memory} track: the JSON's slice or instant and args. */
    @Override
    public void unifiedMemory(TraceRecord r) throws IOException {
        internKeys(UNIFIED_MEMORY_KEYS);
        long track = streamTrack(r.device, TraceSink.UNIFIED_MEMORY_ROW);
        UnifiedMemoryCounter c = r.umCounter;
        String category = r.kind.category();
        beginPacket(r.startNs, r.nameId, category);
        buf.begin(PACKET_TRACK_EVENT);
        if (c.lasting()) {
            sliceBegin(track, r.nameId, category);
        } else {
            buf.uint64(EVENT_TYPE, TYPE_INSTANT);
            buf.uint64(EVENT_TRACK_UUID, track);
            buf.uint64(EVENT_CATEGORY_IIDS, categoryIids.get(category));
            buf.uint64(EVENT_NAME_IID, r.nameId + 1L);
        }
        switch (c) {
            case GPU_PAGE_FAULT_GROUP:
                uintArg("fault groups", r.umValue);
                break;
            case CPU_PAGE_FAULT:
                stringArg("PC", "0x" + Long.toHexString(r.umValue));
                break;
            case THROTTLING:
                break;
            default:
                intArg("bytes", r.bytes);
        }
        stringArg("address", "0x" + Long.toHexString(r.address));
        if (r.umFlag != null) {
            stringArg(c.transfer() ? "migration cause" : c == UnifiedMemoryCounter.REMOTE_MAP ? "remote map cause" : "access type",
                    r.umFlag);
        }
        switch (c) {
            case CPU_PAGE_FAULT:
                break;
            case THRASHING:
                intArg("devices", Integer.toUnsignedLong(r.umSrcId));
                break;
            case GPU_PAGE_FAULT_GROUP:
            case THROTTLING:
                intArg("src id", Integer.toUnsignedLong(r.umSrcId));
                break;
            default:
                intArg("src id", Integer.toUnsignedLong(r.umSrcId));
                intArg("dst id", Integer.toUnsignedLong(r.umDstId));
        }
        buf.end();
        buf.end();
        if (c.lasting()) {
            sliceEnd(track, r.endNs);
        }
        flushIfFull();
    }

    /** Both slices already carry the arrow's flow id: nothing more to encode, no event of its own. */
    @Override
    public void flow(FlowArrow arrow) {
    }

    @Override
    public int eventsPerFlow() {
        return 0;
    }
}
