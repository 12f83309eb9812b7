package org.flagos.trace.stages;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.ClockAlignment;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.JsonText;
import org.flagos.trace.model.UnifiedMemoryCounter;

/**
 * Every count of what happened to the records of one capture: decoded, skipped, undecodable,
 * joined, unjoined, dropped by the window. Written into the trace's top-level {@code flagtrace}
 * block and printed by the CLI, so no loss is silent.
 */
public final class CaptureAccounting {
    private final DecodeStats decode;
    // The stages' own counts, handed over by the trace walk when the capture ends (chainCounts):
    // every stage has seen every record by then. Zero before.
    private final long[] droppedOutsideWindow = new long[EventKind.count()];
    private final long[] joined = new long[EventKind.count()];
    private final long[] unjoined = new long[EventKind.count()];
    private volatile long droppedHostOps;
    private volatile long hostOpsOpenAtStop;
    private volatile long lateJoined;
    private volatile long releasedAtHorizon;
    private volatile long longestWait;
    private volatile long duplicateBindings;
    private volatile long conflictingBindings;
    private volatile int horizon;
    private volatile long apiNamesResolved;
    private volatile long apiNamesGeneric;
    private volatile Map<String, Long> unknownCbids = Map.of();
    /** The most notes kept: a damaged input may ask for one per frame, and notes are held until the end. */
    public static final int MAX_NOTES = 100;
    private final List<String> notes = new ArrayList<>();
    private long notesLeftOut;
    private volatile long ringFullWaits;
    private volatile long vendorDropped;
    private volatile long opsSpilled;
    private volatile ClockAlignment hostClock;
    private volatile List<org.flagos.trace.model.ClockAnchor> clockAnchors = List.of();
    private volatile java.util.Map<String, String> endFacts = java.util.Map.of();
    private volatile long hostOps;
    private volatile long flowEndsGivenUp;
    private volatile long gpuAnnotations;
    private volatile long gpuAnnotationsNotNested;
    private volatile long gpuAnnotationStreamsPastLimit;
    private volatile long memoryDrawn;
    private volatile long memoryWithoutThread;
    private volatile long memoryUnseenReleases;
    private volatile long memoryHeldMax;
    private volatile long deviceRecordsWithoutOp;
    private volatile long opsSettledAtCapacity;
    /** Records after which a live session's ops settled, when fewer than the join's horizon; else 0. */
    private volatile long opSettleRecords;
    private volatile long recordsAfterOpSettled;
    private volatile long flushBarriers;
    private volatile long opsSettledAtBarrier;
    private volatile long opsNestedApproximately;
    private volatile long opsDrawnBeforeRowKnown;
    private volatile long opsHeldMax;
    private volatile long overheadRecords;
    private volatile long[] annotations;
    private volatile long overheadNs;
    private volatile UnifiedMemoryTotals unifiedMemory;

    /** The counts of one capture, the decoder's counted into {@code decode} as it goes. */
    public CaptureAccounting(DecodeStats decode) {
        this.decode = decode;
    }

    /**
     * Takes the final counts of the name stage, the join and the window, once every record has
     * passed them (the trace walk calls this at the end of the capture); no stage is held.
     */
    void chainCounts(NameStage names, ExternalCorrelationJoin join, CaptureWindowFilter window) {
        for (int k = 0; k < EventKind.count(); k++) {
            EventKind kind = EventKind.ofOrdinal(k);
            droppedOutsideWindow[k] = window.dropped(kind);
            joined[k] = join.joined(kind);
            unjoined[k] = join.unjoined(kind);
        }
        droppedHostOps = window.droppedHostOps();
        lateJoined = join.lateJoined();
        releasedAtHorizon = join.releasedAtHorizon();
        longestWait = join.longestWait();
        duplicateBindings = join.duplicateBindings();
        conflictingBindings = join.conflictingBindings();
        horizon = join.horizon();
        apiNamesResolved = names.resolved();
        apiNamesGeneric = names.generic();
        unknownCbids = new java.util.TreeMap<>(names.unknownCbids());
    }

    /** Records the vendor itself reported dropping (its buffers overflowed); live sessions only. */
    public void vendorDropped(long records) {
        this.vendorDropped = records;
    }

    public long vendorDropped() {
        return vendorDropped;
    }

    /** Ring-full events of the capture: vendor-side waits for a slot, host ops kept aside. */
    public void ringFull(long producerWaits, long opsSpilled) {
        this.ringFullWaits = producerWaits;
        this.opsSpilled = opsSpilled;
    }

    /** How host op times were aligned to the vendor's clock (live sessions); null for replays without it. */
    public void hostClock(ClockAlignment alignment) {
        this.hostClock = alignment;
    }

    /** The session's clock anchors (real-time and monotonic clocks against the trace clock), written as {@code clock_anchors}. */
    public void clockAnchors(List<org.flagos.trace.model.ClockAnchor> anchors) {
        this.clockAnchors = List.copyOf(anchors);
    }

    /**
     * The trace's top-level fields known only at the capture's end (how a window of {@code flagtrace run} ended), written
     * after its events; none by default.
     */
    public void endFacts(java.util.Map<String, String> facts) {
        this.endFacts = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(facts));
    }

    /** The fields set by {@link #endFacts(java.util.Map)}, in order, or none. */
    public java.util.Map<String, String> endFacts() {
        return endFacts;
    }

    /** The clock anchors set, or none. */
    public List<org.flagos.trace.model.ClockAnchor> clockAnchors() {
        return clockAnchors;
    }

    public ClockAlignment hostClock() {
        return hostClock;
    }

    public long ringFullWaits() {
        return ringFullWaits;
    }

    public long opsSpilled() {
        return opsSpilled;
    }

    /** The vendor's own overhead records drawn in the trace and their summed time: what the profiler cost. */
    void profilerOverhead(long records, long ns) {
        this.overheadRecords = records;
        this.overheadNs = ns;
    }

    /** The unified-memory records drawn, when the capture had any (else the block is left out). */
    void unifiedMemory(UnifiedMemoryTotals totals) {
        this.unifiedMemory = totals;
    }

    /** The unified-memory records drawn and what they add up to, or null when the capture had none. */
    public UnifiedMemoryTotals unifiedMemory() {
        return unifiedMemory;
    }

    /** Overhead records drawn (the vendor's own time: buffer requests, flushes, instrumentation). */
    public long profilerOverheadRecords() {
        return overheadRecords;
    }

    /** Their summed duration, ns. */
    public long profilerOverheadNs() {
        return overheadNs;
    }

    /** Adds a line about the input; past {@link #MAX_NOTES} lines only their number is kept. */
    public synchronized void note(String line) {
        if (notes.size() < MAX_NOTES) {
            notes.add(line);
        } else {
            notesLeftOut++;
        }
    }

    /** The notes kept, and a last line saying how many more were left out, if any. */
    public synchronized List<String> notes() {
        if (notesLeftOut == 0) {
            return List.copyOf(notes);
        }
        List<String> all = new ArrayList<>(notes);
        all.add(notesLeftOut + " more notes left out (only the first " + MAX_NOTES + " are kept)");
        return List.copyOf(all);
    }

    void hostOps(long count) {
        hostOps = count;
    }

    /** Host ops written into the trace. */
    public long hostOps() {
        return hostOps;
    }

    void gpuAnnotations(long drawn, long notNested, long streamsPastLimit) {
        this.gpuAnnotations = drawn;
        this.gpuAnnotationsNotNested = notNested;
        this.gpuAnnotationStreamsPastLimit = streamsPastLimit;
    }

    /** GPU annotation spans drawn ({@code gpu_user_annotation}). */
    public long gpuAnnotations() {
        return gpuAnnotations;
    }

    /** Spans left out because they would not nest with the spans already on their stream. */
    public long gpuAnnotationsNotNested() {
        return gpuAnnotationsNotNested;
    }

    /** Device records and nested spans left out of an op's spans: it held spans on four streams already. */
    public long gpuAnnotationStreamsPastLimit() {
        return gpuAnnotationStreamsPastLimit;
    }

    void memory(long drawn, long withoutThread, long unseenReleases, long heldMax) {
        this.memoryDrawn = drawn;
        this.memoryWithoutThread = withoutThread;
        this.memoryUnseenReleases = unseenReleases;
        this.memoryHeldMax = heldMax;
    }

    /**
     * Annotation ranges and marks drawn, and what could not be paired or was attributed: set only
     * when the capture had some, so traces without any keep their bytes.
     */
    void annotations(long ranges, long marks, long endsWithoutStart, long duplicateStarts, long neverClosed,
                     long openAtCapacity, long callsAttributed, long deviceRecordsAttributed) {
        this.annotations = new long[] {ranges, marks, endsWithoutStart, duplicateStarts, neverClosed, openAtCapacity,
            callsAttributed, deviceRecordsAttributed};
    }

    /** The annotation counts in {@link #ANNOTATION_KEYS}' order, or null when the capture had none. */
    public long[] annotations() {
        long[] a = annotations;
        return a == null ? null : a.clone();
    }

    /** The keys of the accounting's {@code annotations} block. */
    public static final List<String> ANNOTATION_KEYS = List.of("ranges", "marks", "ends_without_start",
            "duplicate_starts", "never_closed", "open_at_capacity", "calls_in_ranges", "device_records_in_ranges");

    /** Device-memory events drawn ({@code [memory]}). */
    public long memoryDrawn() {
        return memoryDrawn;
    }

    /** Memory events drawn on thread 0: their runtime call was not seen within the horizon. */
    public long memoryWithoutThread() {
        return memoryWithoutThread;
    }

    /** Releases that would have taken a device's total below zero: allocated before the capture. */
    public long memoryUnseenReleases() {
        return memoryUnseenReleases;
    }

    void flowEndsGivenUp(long count) {
        flowEndsGivenUp = count;
    }

    void opsSettling(long deviceWithoutOp, long atCapacity, long nestedApproximately, long drawnBeforeRowKnown, long heldMax) {
        this.opsHeldMax = heldMax;
        this.deviceRecordsWithoutOp = deviceWithoutOp;
        this.opsSettledAtCapacity = atCapacity;
        this.opsNestedApproximately = nestedApproximately;
        this.opsDrawnBeforeRowKnown = drawnBeforeRowKnown;
    }

    void flushBarriers(long barriers, long settled) {
        this.flushBarriers = barriers;
        this.opsSettledAtBarrier = settled;
    }

    /** Flush barriers the live tracer published while the session ran (ops settled without records). */
    public long flushBarriers() {
        return flushBarriers;
    }

    /** Host ops settled at a flush barrier: they launched nothing, or ended long before it. */
    public long opsSettledAtBarrier() {
        return opsSettledAtBarrier;
    }

    void opsSettledSooner(long settleRecords, long recordsAfterSettled) {
        this.opSettleRecords = settleRecords;
        this.recordsAfterOpSettled = recordsAfterSettled;
    }

    /**
     * Records (activity and bindings) after which host ops settled at the end, when a live tracer
     * declared a bound shorter than the join's horizon (the bound grows past records seen late, up to
     * that horizon); 0 when ops settled after the join's horizon throughout (every replay).
     */
    public long opSettleRecords() {
        return opSettleRecords;
    }

    /**
     * Device and API records that named an op already settled (they came more than
     * {@link #opSettleRecords()} after it): in the trace with their External id, but in no op's device
     * total or GPU annotation span.
     */
    public long recordsAfterOpSettled() {
        return recordsAfterOpSettled;
    }

    /**
     * Device records with an External id that no host op claimed within the horizon (none in the
     * capture, or it came or settled more than a horizon away): in the trace, in no summary row.
     */
    public long deviceRecordsWithoutOp() {
        return deviceRecordsWithoutOp;
    }

    /** Host ops settled before their horizon because the writer held its most ops. */
    public long opsSettledAtCapacity() {
        return opsSettledAtCapacity;
    }

    /** Host ops whose nesting in the summary could not be told exactly in bounded memory. */
    public long opsNestedApproximately() {
        return opsNestedApproximately;
    }

    /** The most host ops the writer held at once, waiting to settle (bounded by the horizon). */
    public long opsHeldMax() {
        return opsHeldMax;
    }

    /** Host ops written on their own thread id before their thread's API row became known. */
    public long opsDrawnBeforeRowKnown() {
        return opsDrawnBeforeRowKnown;
    }

    /** Flow ends (mostly API calls that launched nothing) given up unpaired at the reorder horizon. */
    public long flowEndsGivenUp() {
        return flowEndsGivenUp;
    }

    public DecodeStats decode() {
        return decode;
    }

    /** Records of {@code kind} dropped outside the capture window. */
    public long droppedOutsideWindow(EventKind kind) {
        return droppedOutsideWindow[kind.ordinal()];
    }

    /** Host ops dropped outside the capture window. */
    public long droppedHostOps() {
        return droppedHostOps;
    }

    /**
     * Host ops of a live session still open when it stopped (they end after the window, on threads
     * the stop does not wait for): left out of the trace, as torch leaves them, and counted here.
     */
    public void hostOpsOpenAtStop(long ops) {
        this.hostOpsOpenAtStop = ops;
    }

    /** See {@link #hostOpsOpenAtStop(long)}. */
    public long hostOpsOpenAtStop() {
        return hostOpsOpenAtStop;
    }

    /** Records of {@code kind} that got an External id. */
    public long joined(EventKind kind) {
        return joined[kind.ordinal()];
    }

    /** Records of {@code kind} without an External id. */
    public long unjoined(EventKind kind) {
        return unjoined[kind.ordinal()];
    }

    /** Records joined after they arrived (parked until their binding came). */
    public long lateJoined() {
        return lateJoined;
    }

    /** Parked records released without a binding at the reorder horizon. */
    public long releasedAtHorizon() {
        return releasedAtHorizon;
    }

    /** The most records a parked record waited for its binding. */
    public long longestWait() {
        return longestWait;
    }

    public long duplicateBindings() {
        return duplicateBindings;
    }

    public long conflictingBindings() {
        return conflictingBindings;
    }

    /** The join's reorder horizon, in records. */
    public int horizon() {
        return horizon;
    }

    /** API records named from the vendor's callback-id table. */
    public long apiNamesResolved() {
        return apiNamesResolved;
    }

    /** API records that kept the generic label. */
    public long apiNamesGeneric() {
        return apiNamesGeneric;
    }

    public void write(JsonGenerator g) throws IOException {
        g.writeObjectFieldStart("decoded");
        for (int k = 0; k < EventKind.count(); k++) {
            EventKind kind = EventKind.ofOrdinal(k);
            if (listed(kind)) {
                g.writeNumberField(kind.category(), decode.published(kind));
            }
        }
        g.writeNumberField("correlation_bindings", decode.bindings());
        g.writeNumberField("host_ops", hostOps);
        g.writeEndObject();
        g.writeObjectFieldStart("skipped_vendor_kinds");
        for (Map.Entry<Integer, Long> e : decode.skippedByVendorKind().entrySet()) {
            g.writeNumberField(Integer.toString(e.getKey()), e.getValue());
        }
        g.writeEndObject();
        g.writeNumberField("invalid_records", decode.invalidRecords());
        g.writeNumberField("undecodable_bytes", decode.undecodableBytes());
        g.writeNumberField("unnamed_kernels", decode.unnamedKernels());
        g.writeNumberField("incomplete_records", decode.incompleteRecords());
        if (decode.unwrittenBytes() > 0) {
            g.writeNumberField("unwritten_bytes", decode.unwrittenBytes());
        }
        if (overheadRecords > 0) {
            g.writeObjectFieldStart("profiler_overhead");
            g.writeNumberField("records", overheadRecords);
            g.writeNumberField("ns", overheadNs);
            g.writeEndObject();
        }
        g.writeObjectFieldStart("dropped_outside_window");
        for (int k = 0; k < EventKind.count(); k++) {
            EventKind kind = EventKind.ofOrdinal(k);
            if (listed(kind)) {
                g.writeNumberField(kind.category(), droppedOutsideWindow(kind));
            }
        }
        g.writeNumberField("cpu_op", droppedHostOps);
        if (hostOpsOpenAtStop > 0) { // live only, and rare: a trace without it keeps its bytes
            g.writeNumberField("cpu_op_open_at_stop", hostOpsOpenAtStop);
        }
        g.writeEndObject();
        g.writeObjectFieldStart("without_external_id");
        for (int k = 0; k < EventKind.count(); k++) {
            EventKind kind = EventKind.ofOrdinal(k);
            if (listed(kind)) {
                g.writeNumberField(kind.category(), unjoined(kind));
            }
        }
        g.writeEndObject();
        g.writeNumberField("joined_after_arrival", lateJoined);
        g.writeNumberField("duplicate_bindings", duplicateBindings);
        g.writeNumberField("conflicting_bindings", conflictingBindings);
        g.writeObjectFieldStart("reorder_horizon");
        g.writeNumberField("records", horizon);
        g.writeNumberField("released_without_binding", releasedAtHorizon);
        g.writeNumberField("flow_ends_given_up", flowEndsGivenUp);
        g.writeNumberField("ops_settled_at_capacity", opsSettledAtCapacity);
        g.writeNumberField("ops_nested_approximately", opsNestedApproximately);
        g.writeNumberField("ops_drawn_before_row_known", opsDrawnBeforeRowKnown);
        if (opSettleRecords > 0) { // a live session's shorter settling only: a replay's block is unchanged
            g.writeNumberField("op_settle_records", opSettleRecords);
            g.writeNumberField("records_after_op_settled", recordsAfterOpSettled);
            if (flushBarriers > 0) {
                g.writeNumberField("flush_barriers", flushBarriers);
                g.writeNumberField("ops_settled_at_barrier", opsSettledAtBarrier);
            }
        }
        g.writeEndObject();
        g.writeNumberField("device_records_without_op", deviceRecordsWithoutOp);
        g.writeNumberField("api_names_from_table", apiNamesResolved);
        g.writeNumberField("api_names_generic", apiNamesGeneric);
        g.writeNumberField("vendor_dropped", vendorDropped);
        g.writeObjectFieldStart("ring_full");
        g.writeNumberField("producer_waits", ringFullWaits);
        g.writeNumberField("ops_kept_aside", opsSpilled);
        g.writeEndObject();
        if (gpuAnnotations + gpuAnnotationsNotNested + gpuAnnotationStreamsPastLimit > 0) {
            g.writeObjectFieldStart("gpu_annotations");
            g.writeNumberField("events", gpuAnnotations);
            g.writeNumberField("not_nested", gpuAnnotationsNotNested);
            g.writeNumberField("streams_past_limit", gpuAnnotationStreamsPastLimit);
            g.writeEndObject();
        }
        UnifiedMemoryTotals um = unifiedMemory;
        if (um != null) {
            g.writeObjectFieldStart("unified_memory");
            g.writeNumberField("events", um.total());
            transfers(g, "htod", um, UnifiedMemoryCounter.BYTES_HTOD);
            transfers(g, "dtoh", um, UnifiedMemoryCounter.BYTES_DTOH);
            transfers(g, "dtod", um, UnifiedMemoryCounter.BYTES_DTOD);
            g.writeNumberField("cpu_page_faults", um.records(UnifiedMemoryCounter.CPU_PAGE_FAULT));
            g.writeNumberField("gpu_page_fault_events", um.records(UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP));
            g.writeNumberField("gpu_page_fault_groups", um.amount(UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP));
            g.writeNumberField("thrashing", um.records(UnifiedMemoryCounter.THRASHING));
            g.writeNumberField("throttling", um.records(UnifiedMemoryCounter.THROTTLING));
            g.writeNumberField("remote_maps", um.records(UnifiedMemoryCounter.REMOTE_MAP));
            g.writeEndObject();
        }
        if (memoryDrawn > 0) {
            g.writeObjectFieldStart("memory");
            g.writeNumberField("events", memoryDrawn);
            g.writeNumberField("without_thread", memoryWithoutThread);
            g.writeNumberField("releases_of_unseen_allocations", memoryUnseenReleases);
            g.writeNumberField("most_held", memoryHeldMax);
            g.writeEndObject();
        }
        long[] a = annotations;
        if (a != null || decode.annotationAttributesRead() > 0) {
            g.writeObjectFieldStart("annotations");
            for (int i = 0; a != null && i < a.length; i++) {
                g.writeNumberField(ANNOTATION_KEYS.get(i), a[i]);
            }
            g.writeNumberField("attribute_records_read", decode.annotationAttributesRead());
            g.writeEndObject();
        }
        ClockAlignment clock = hostClock;
        if (clock != null) {
            g.writeObjectFieldStart("host_clock");
            g.writeNumberField("samples", clock.samples());
            g.writeNumberField("error_bound_ns", clock.errorBoundNs());
            g.writeNumberField("start_bound_ns", clock.startBoundNs());
            g.writeNumberField("stop_bound_ns", clock.endBoundNs());
            g.writeNumberField("drift_ns", clock.driftNs());
            g.writeNumberField("span_ns", clock.spanNs());
            g.writeEndObject();
        }
        org.flagos.trace.model.ProcessFacts.writeAnchors(g, clockAnchors);
        g.writeArrayFieldStart("notes");
        for (String note : notes()) {
            JsonText.writeString(g, note);
        }
        if (!decode.problems().isEmpty()) {
            JsonText.writeString(g, decode.problems());
        }
        g.writeEndArray();
    }

    private static void transfers(JsonGenerator g, String key, UnifiedMemoryTotals um, UnifiedMemoryCounter c) throws IOException {
        g.writeObjectFieldStart(key);
        g.writeNumberField("transfers", um.records(c));
        g.writeNumberField("bytes", um.amount(c));
        g.writeEndObject();
    }

    /**
     * The CLI's line of a capture's unified memory: each direction with transfers, then the page faults
     * and whatever else was drawn.
     */
    static String unifiedMemoryLine(UnifiedMemoryTotals um) {
        StringBuilder line = new StringBuilder("unified memory (drawn on each device's Unified Memory row):");
        String sep = " ";
        String[] directions = {"HtoD", "DtoH", "DtoD"};
        UnifiedMemoryCounter[] transfers = {UnifiedMemoryCounter.BYTES_HTOD, UnifiedMemoryCounter.BYTES_DTOH,
            UnifiedMemoryCounter.BYTES_DTOD};
        for (int i = 0; i < transfers.length; i++) {
            if (um.records(transfers[i]) > 0) {
                line.append(sep).append(directions[i]).append(' ').append(um.records(transfers[i])).append(" transfers, ")
                        .append(um.amount(transfers[i])).append(" bytes");
                sep = "; ";
            }
        }
        line.append(sep).append("page faults: CPU ").append(um.records(UnifiedMemoryCounter.CPU_PAGE_FAULT))
                .append(", GPU ").append(um.records(UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP)).append(" events (")
                .append(um.amount(UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP)).append(" fault groups)");
        long other = um.records(UnifiedMemoryCounter.THRASHING) + um.records(UnifiedMemoryCounter.THROTTLING)
                + um.records(UnifiedMemoryCounter.REMOTE_MAP);
        if (other > 0) {
            line.append("; thrashing ").append(um.records(UnifiedMemoryCounter.THRASHING)).append(", throttling ")
                    .append(um.records(UnifiedMemoryCounter.THROTTLING)).append(", remote maps ")
                    .append(um.records(UnifiedMemoryCounter.REMOTE_MAP));
        }
        return line.toString();
    }

    /** Human-readable lines for the CLI. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        StringBuilder decoded = new StringBuilder("decoded:");
        for (int k = 0; k < EventKind.count(); k++) {
            EventKind kind = EventKind.ofOrdinal(k);
            if (!listed(kind)) {
                continue;
            }
            decoded.append(' ').append(kind.category()).append('=').append(decode.published(kind));
        }
        decoded.append(" bindings=").append(decode.bindings()).append(" host_ops=").append(hostOps);
        out.add(decoded.toString());
        StringBuilder dropped = new StringBuilder("dropped outside the capture window:");
        for (int k = 0; k < EventKind.count(); k++) {
            EventKind kind = EventKind.ofOrdinal(k);
            if (!listed(kind)) {
                continue;
            }
            dropped.append(' ').append(kind.category()).append('=').append(droppedOutsideWindow(kind));
        }
        dropped.append(" cpu_op=").append(droppedHostOps);
        if (hostOpsOpenAtStop > 0) {
            dropped.append(" cpu_op_open_at_stop=").append(hostOpsOpenAtStop);
        }
        out.add(dropped.toString());
        StringBuilder unjoined = new StringBuilder("without External id (launched outside any op):");
        for (int k = 0; k < EventKind.count(); k++) {
            EventKind kind = EventKind.ofOrdinal(k);
            if (!listed(kind)) {
                continue;
            }
            unjoined.append(' ').append(kind.category()).append('=').append(unjoined(kind));
        }
        out.add(unjoined.toString());
        if (overheadRecords > 0) {
            out.add("profiler overhead (the vendor's own time, drawn as category overhead): " + overheadRecords
                    + " records, " + String.format(java.util.Locale.ROOT, "%.3f", overheadNs / 1e6) + " ms");
        }
        if (gpuAnnotationsNotNested + gpuAnnotationStreamsPastLimit > 0) {
            out.add("GPU annotation spans: " + gpuAnnotations + " drawn; " + gpuAnnotationsNotNested
                    + " left out, as they would cross a span on their stream (ops of two threads interleaving on one stream,"
                    + " or device records overlapping there); " + gpuAnnotationStreamsPastLimit + " records or nested spans on an op's stream past "
                    + StreamSpans.PER_HOLDER + " left out of its spans");
        }
        if (unifiedMemory != null) {
            out.add(unifiedMemoryLine(unifiedMemory));
        }
        if (memoryDrawn > 0) {
            out.add("device memory events: " + memoryDrawn + " (" + memoryWithoutThread + " on thread 0: no runtime call seen;"
                    + " " + memoryUnseenReleases + " releases of memory allocated before the capture)");
        }
        if (decode.unnamedKernels() > 0) {
            out.add("kernels without a name: " + decode.unnamedKernels() + " distinct, kept as <unresolved kernel 0x...>;"
                    + " the capture has no kernel name table (NAME.names.tsv beside it, or --names)");
        }
        if (decode.incompleteRecords() > 0) {
            out.add("records without timestamps (work still running when the vendor flushed, at stop): "
                    + decode.incompleteRecords() + ", left out");
        }
        if (decode.unwrittenBytes() > 0) {
            out.add("records not yet written when the vendor handed their buffer over (a stop racing launches): "
                    + decode.unwrittenBytes() + " bytes, left out");
        }
        if (decode.skippedTotal() > 0) {
            out.add("skipped records of kinds not decoded (vendor kind=count): " + decode.skippedByVendorKind());
        }
        if (decode.invalidRecords() > 0 || decode.undecodableBytes() > 0) {
            out.add("invalid records: " + decode.invalidRecords() + ", undecodable bytes: " + decode.undecodableBytes()
                    + " (" + decode.problems() + ")");
        }
        if (conflictingBindings > 0 || duplicateBindings > 0) {
            out.add("correlation bindings: duplicate=" + duplicateBindings + " conflicting=" + conflictingBindings
                    + " (first binding kept)");
        }
        if (releasedAtHorizon > 0 || flowEndsGivenUp > 0) {
            out.add("reorder horizon " + horizon + " records: released_without_binding=" + releasedAtHorizon
                    + " (written without an External id, counted above) flow_ends_given_up=" + flowEndsGivenUp
                    + " (unpaired ends, mostly API calls that launched nothing: no arrow)");
        }
        if (opsSettledAtCapacity > 0 || opsNestedApproximately > 0 || opsDrawnBeforeRowKnown > 0) {
            out.add("host ops past the reorder horizon: settled_at_capacity=" + opsSettledAtCapacity
                    + " (device time arriving later is in no summary row) nested_approximately=" + opsNestedApproximately
                    + " (self CPU and device total of their parents approximate) drawn_before_row_known="
                    + opsDrawnBeforeRowKnown + " (on their own thread id's row)");
        }
        if (recordsAfterOpSettled > 0) {
            out.add("records after their op settled: " + recordsAfterOpSettled + " (more than " + opSettleRecords
                    + " records after their op; drawn with their External id, in no op's device total or GPU annotation span)");
        }
        if (apiNamesGeneric > 0) {
            out.add("API records with no name in the cbid table (kept generic label): " + unknownCbids);
        }
        if (vendorDropped > 0) {
            out.add("the vendor dropped " + vendorDropped + " records (its activity buffers overflowed): they are in no trace");
        }
        if (opsSpilled > 0) {
            // Producer waits alone are ordinary back-pressure (a replay outruns the writer); they stay in the JSON.
            out.add("ring full: " + opsSpilled + " host ops were kept aside and published at the end (none lost);"
                    + " the producer waited " + ringFullWaits + " times for a slot");
        }
        long[] a = annotations;
        if (a != null) {
            out.add("annotation ranges (NVTX): " + a[0] + " ranges, " + a[1] + " marks; unpaired: ends_without_start=" + a[2]
                    + " duplicate_starts=" + a[3] + " never_closed=" + a[4] + " open_at_capacity=" + a[5]
                    + "; outside every op, " + a[6] + " calls and " + a[7] + " device records counted for their range");
        }
        ClockAlignment clock = hostClock;
        if (clock != null) {
            out.add("host clock: op times within " + clock.errorBoundNs() + " ns of the vendor's clock (" + clock.samples()
                    + " paired samples at start and stop; drift " + clock.driftNs() + " ns over "
                    + clock.spanNs() / 1_000_000 + " ms)");
        }
        out.addAll(notes());
        return out;
    }

    /** A kind's row in each accounting block: always for the seed's kinds, for a later one once a record of it was decoded. */
    private boolean listed(EventKind kind) {
        return kind.listedWhenZero() || decode.published(kind) > 0;
    }
}
