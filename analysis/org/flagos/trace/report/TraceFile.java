package org.flagos.trace.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.tracefile.TraceBlocks;
import org.flagos.trace.tracefile.TraceEvent;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceReader;
import org.flagos.trace.tracefile.TraceSource;

/**
 * A torch-compatible trace (PyTorch's own or flagtrace's, Chrome JSON in either schema, object or
 * bare array, or flagtrace's {@code .pftrace}), read in one streaming pass and summarised in
 * bounded memory: complete events of the classes in {@link EventClass} go to a
 * {@link KeyAveragesBuilder}, which spills them to temporary files when they outgrow its buffers
 * (all deleted before this returns); flow arrows, metadata and args other than the External id
 * are skipped as they stream by. Gzip is recognised by its magic bytes. Also keeps the device
 * names ({@code deviceProperties}) and the capture's accounting ({@code flagtrace} block) when
 * the trace has them.
 */
public final class TraceFile {
    /** Events summarised at most: a larger trace is refused, not truncated. */
    public static final long DEFAULT_MAX_EVENTS = 100_000_000L;
    /** Distinct categories listed when a trace holds nothing to summarise. */
    private static final int MAX_CATEGORIES_LISTED = 12;

    private final KeyAverages averages;
    private final DeviceStreams streams;
    private final long events;
    private final long spilledBytes;
    private final Map<String, Long> accounting;
    private final List<String> notes;
    private final List<String> devices;
    private final boolean cuda;
    private final long otherEvents;
    private final long invalidEvents;
    private final long originNs;
    private final MemoryTimeline memory;
    private final boolean merged;
    private final Map<Integer, TraceBlocks.MergeInput> mergeInputs;
    private final long unplacedEvents;
    private final List<DeviceWorkStats.Row> deviceWorkStats;
    private final List<CollectiveStats.Row> collectives;

    private TraceFile(Reader r, KeyAverages averages, DeviceStreams streams, long spilledBytes) {
        this.averages = averages;
        this.streams = streams;
        this.events = r.builder.events();
        this.spilledBytes = spilledBytes;
        this.accounting = Collections.unmodifiableMap(r.accounting);
        this.notes = List.copyOf(r.notes);
        this.devices = List.copyOf(r.devices);
        this.cuda = r.cuda;
        this.otherEvents = r.other;
        this.invalidEvents = r.invalid;
        this.originNs = r.origin();
        this.merged = r.merged;
        this.mergeInputs = r.mergeInputs;
        this.memory = r.merged ? r.memoryBySlot.relabel(key -> slotLabel(Integer.parseInt(key.substring(0, key.indexOf(SLOT_MARK))))
                + " " + key.substring(key.indexOf(SLOT_MARK) + 1)) : r.memory;
        this.unplacedEvents = r.unplaced;
        this.deviceWorkStats = List.copyOf(r.deviceWork.rows());
        this.collectives = List.copyOf(r.collectives.rows());
    }

    /**
     * Per kind of collective, every process of the trace together: calls, time, and the bytes and
     * algorithm bandwidth where torch recorded the message ({@link CollectiveStats}); empty for a trace
     * without collective kernels (and for a {@code .pftrace}, whose slices carry no args).
     */
    public List<CollectiveStats.Row> collectives() {
        return collectives;
    }

    /**
     * Per device-work name, all processes of the trace together: calls, total, min, max, mean and
     * sample standard deviation, ns ({@link DeviceWorkStats}), the longest total first.
     */
    public List<DeviceWorkStats.Row> deviceWorkStats() {
        return deviceWorkStats;
    }

    /** Reads and summarises {@code path}, spilling to the system's temporary directory when needed. */
    public static TraceFile read(Path path) throws IOException {
        return read(path, DEFAULT_MAX_EVENTS);
    }

    /** Reads {@code path}; a file that is not a whole trace ends in a {@link TraceFormatException}. */
    public static TraceFile read(Path path, long maxEvents) throws IOException {
        return read(path, maxEvents, Path.of(System.getProperty("java.io.tmpdir")));
    }

    /**
     * Reads and summarises {@code path}, at most {@code maxEvents} events, spilling sorted runs
     * under {@code spillDir} (every file deleted before this returns). A file that is not a whole
     * trace, or holds nothing to summarise, ends in a {@link TraceFormatException} whose message
     * names the path.
     */
    public static TraceFile read(Path path, long maxEvents, Path spillDir) throws IOException {
        return read(path, maxEvents, () -> new KeyAveragesBuilder(spillDir), false, ChunkedTraceRead.Settings.byDefault());
    }

    /** Reads {@code path} into {@code builder} on one thread (tests give one with small buffers, to make it spill). */
    static TraceFile read(Path path, long maxEvents, KeyAveragesBuilder builder) throws IOException {
        return read(path, maxEvents, () -> builder, false, ChunkedTraceRead.Settings.ONE_THREAD);
    }

    /**
     * Reads a merged trace ({@code flagtrace merge}'s, pids {@code (slot + 1) * 1000 + n}) with every
     * event's name keyed by its merge slot, so that each row of the table is one name of one rank:
     * {@link #slotOf} and {@link #nameOf} take a row's name apart. An event on a pid of no slot is
     * left out and counted ({@link #unplacedEvents}).
     */
    static TraceFile readBySlot(Path path) throws IOException {
        return read(path, DEFAULT_MAX_EVENTS, () -> new KeyAveragesBuilder(Path.of(System.getProperty("java.io.tmpdir"))), true,
                ChunkedTraceRead.Settings.byDefault());
    }

    /** Separates the slot from the name in {@link #readBySlot}'s row names: the first one (the slot is digits before it). */
    private static final char SLOT_MARK = '\u001f';

    /** The merge slot of a row name of {@link #readBySlot}. */
    static int slotOf(String keyed) {
        return Integer.parseInt(keyed.substring(0, keyed.indexOf(SLOT_MARK)));
    }

    /** The event name of a row name of {@link #readBySlot}. */
    static String nameOf(String keyed) {
        return keyed.substring(keyed.indexOf(SLOT_MARK) + 1);
    }

    /**
     * Reads {@code path} into a builder of {@code builders}: in chunks on several threads where {@code chunks} cuts
     * it ({@link ChunkedTraceRead}), else, or when a chunk's read fails, on one thread with a fresh builder. Either
     * way the reader is handed the same events in the same order: the same table, the same faults in the same words.
     */
    static TraceFile read(Path path, long maxEvents, java.util.function.Supplier<KeyAveragesBuilder> builders, boolean bySlot,
                          ChunkedTraceRead.Settings chunks) throws IOException {
        TraceChunks.Plan plan = ChunkedTraceRead.plan(path, chunks);
        if (plan != null) {
            try (KeyAveragesBuilder builder = builders.get()) {
                Reader r = new Reader(builder, maxEvents, path);
                r.bySlot = bySlot;
                try {
                    TraceBlocks blocks = ChunkedTraceRead.read(path, plan, chunks.threads(), r);
                    if (blocks != null) {
                        r.blocks(blocks);
                        return summarised(r, builder, bySlot);
                    }
                } catch (TraceLimitException e) { // from the events handed on, or from the table's passes (nesting)
                    throw new TraceFormatException(path + " " + e.getMessage());
                }
            }
        }
        try (KeyAveragesBuilder builder = builders.get()) {
            return TraceSource.read(path, "not a trace; name one trace file (TRACE.json, TRACE.json.gz or TRACE.pftrace)", in -> {
                try {
                    return summarise(in, path, maxEvents, builder, bySlot);
                } catch (TraceLimitException e) {
                    throw new TraceFormatException(path + " " + e.getMessage());
                }
            });
        }
    }

    /** One pass over the opened file ({@code .pftrace} or JSON), then the table. */
    private static TraceFile summarise(java.io.BufferedInputStream in, Path path, long maxEvents, KeyAveragesBuilder builder,
                                       boolean bySlot) throws IOException {
        Reader r = new Reader(builder, maxEvents, path);
        r.bySlot = bySlot;
        if (TraceReader.looksLikePerfetto(in)) {
            new PerfettoTraceReader(r).read(in);
        } else {
            r.blocks(TraceReader.walk(in, path, TraceReader.Options.FIELDS, r));
        }
        return summarised(r, builder, bySlot);
    }

    /** The table of what {@code r} read. */
    private static TraceFile summarised(Reader r, KeyAveragesBuilder builder, boolean bySlot) throws IOException {
        if (!bySlot) { // by slot, a merge whose ranks hold no row is an empty table: its ranks say what they hold
            r.checkSomethingToSummarise();
        }
        DeviceStreams[] streams = new DeviceStreams[1];
        KeyAverages averages = builder.build(r.origin(), r.cuda, streams);
        return new TraceFile(r, averages, streams[0], builder.spilledBytes());
    }

    /** The key_averages table of the trace. */
    public KeyAverages averages() {
        return averages;
    }

    /** Each device stream's busy time over the device span. */
    public DeviceStreams streams() {
        return streams;
    }

    /** Complete events summarised (ops, runtime calls, overhead and device work). */
    public long events() {
        return events;
    }

    /** Bytes the summary wrote to temporary files (0 when the trace fit its buffers); all deleted. */
    public long spilledBytes() {
        return spilledBytes;
    }

    /** The numbers of the trace's {@code flagtrace} accounting block, by dotted path; empty when absent. */
    public Map<String, Long> accounting() {
        return accounting;
    }

    /** The strings of the accounting block ({@code notes}). */
    public List<String> notes() {
        return notes;
    }

    /** The device names from {@code deviceProperties}. */
    public List<String> devices() {
        return devices;
    }

    /** Whether the trace is a CUDA one (CUDA runtime events or versions): torch then names device columns "CUDA". */
    public boolean cuda() {
        return cuda;
    }

    /** Complete events of other categories (trace spans, device annotations): not summarised. */
    public long otherEvents() {
        return otherEvents;
    }

    /**
     * Where the profile starts, in nanoseconds on the trace's clock: the start of the profiler's own
     * span (category {@code Trace}) when the trace has one, else of its earliest event. torch measures
     * every time relative to this point, in microseconds held as doubles.
     */
    public long originNs() {
        return originNs;
    }

    /** The trace's {@code [memory]} events: each device's total allocated over time (empty when it has none). */
    MemoryTimeline memory() {
        return memory;
    }

    /** Complete events without a usable name, ts or dur (negative or non-numeric): left out. */
    public long invalidEvents() {
        return invalidEvents;
    }

    /** Whether the trace is {@code flagtrace merge}'s (it has a {@code flagtrace_merge} block). */
    public boolean merged() {
        return merged;
    }

    /** A merge slot's label: "rank R", or "slot S" when its trace named no rank (or the merge block lists no such slot). */
    String slotLabel(int slot) {
        TraceBlocks.MergeInput in = mergeInputs.get(slot);
        return in == null ? "slot " + slot : in.label();
    }

    /**
     * The name of the device whose events have pid {@code pid}: "device P" (torch's device rows have the device's
     * index as pid); in a merged trace, "rank R device P" with P the pid its own trace gave it (the merge block's map),
     * as the memory chart names the device.
     */
    String deviceName(String pid) {
        if (merged && pid != null) {
            long number;
            try {
                number = Long.parseLong(pid);
            } catch (NumberFormatException e) {
                return "device " + pid;
            }
            int slot = TraceBlocks.slotOf(number);
            TraceBlocks.MergeInput in = mergeInputs.get(slot);
            if (in != null) {
                for (Map.Entry<String, Long> e : in.pids().entrySet()) {
                    if (e.getValue() == number) {
                        return in.label() + " device " + e.getKey();
                    }
                }
            }
        }
        return "device " + pid;
    }

    /** Complete events {@link #readBySlot} left out: on a pid of no merge slot. */
    long unplacedEvents() {
        return unplacedEvents;
    }

    /** What one streaming pass keeps of a trace ({@link TraceReader} hands it each event, then the blocks); also the sink {@link PerfettoTraceReader} feeds. */
    static final class Reader implements TraceReader.Visitor, SummaryEvents.Sink {
        final KeyAveragesBuilder builder;
        final long maxEvents;
        final Path path;
        final Map<String, long[]> categories = new LinkedHashMap<>();
        /** The category seen last (the same string) and its count (null: not listed). */
        private String lastCategory;
        private long[] lastCount;
        /** The category seen before the last one (the same string) and its count. */
        private String otherCategory;
        private long[] otherCount;
        /** The classes of the last two categories ({@link EventClass#of(String)}). */
        private EventClass lastClass;
        private EventClass otherClass;
        final Map<String, Long> accounting = new LinkedHashMap<>();
        final List<String> notes = new ArrayList<>();
        final List<String> devices = new ArrayList<>();
        boolean cuda;
        boolean merged;
        /** Whether names are keyed by merge slot ({@link #readBySlot}). */
        boolean bySlot;
        long unplaced;
        long other;
        long invalid;
        long spanStart = Long.MAX_VALUE;
        long firstStart = Long.MAX_VALUE;
        final MemoryTimeline memory = new MemoryTimeline();
        final MemoryTimeline memoryBySlot = new MemoryTimeline();
        final DeviceWorkStats deviceWork = new DeviceWorkStats();
        final CollectiveStats collectives = new CollectiveStats();
        /** Which kernel names are collectives', asked once a name (as many names as the table keeps). */
        private final org.flagos.trace.sql.CollectiveKernels.Verdicts collectiveKernels =
                new org.flagos.trace.sql.CollectiveKernels.Verdicts(KeyAveragesBuilder.MAX_NAMES);
        Map<Integer, TraceBlocks.MergeInput> mergeInputs = Map.of();

        Reader(KeyAveragesBuilder builder, long maxEvents, Path path) {
            this.builder = builder;
            this.maxEvents = maxEvents;
            this.path = path;
        }

        long origin() {
            return spanStart != Long.MAX_VALUE ? spanStart : firstStart != Long.MAX_VALUE ? firstStart : 0;
        }

        /** A trace with no event the summary knows is an error that lists what the trace does hold. */
        void checkSomethingToSummarise() throws TraceFormatException {
            if (builder.events() > 0) {
                return;
            }
            StringBuilder seen = new StringBuilder();
            int listed = 0;
            for (Map.Entry<String, long[]> e : categories.entrySet()) {
                if (listed++ == MAX_CATEGORIES_LISTED) {
                    seen.append(", ...");
                    break;
                }
                seen.append(seen.length() == 0 ? "" : ", ").append(e.getKey()).append(" (").append(e.getValue()[0]).append(')');
            }
            String found = categories.isEmpty() ? "no complete (\"ph\":\"X\") events at all"
                    : "complete events only of categories " + seen;
            if (invalid > 0) {
                found += ", and " + invalid + " without a usable name, ts or dur";
            }
            throw new TraceFormatException(path + " holds nothing to summarise: " + found
                    + "; the summary reads torch's categories (cpu_op, user_annotation, cuda_runtime, kernel, gpu_memcpy, ..."
                    + " or 2021's Operator, Runtime, Kernel, Memcpy, Memset)");
        }

        /** Notes a complete event's category for the message of a trace with nothing to summarise. */
        private void sawCategory(String cat) {
            if (cat == lastCategory && cat != null) { // the same string as the event before's: most events
                if (lastCount != null) {
                    lastCount[0]++;
                }
                return;
            }
            if (cat == otherCategory && cat != null) { // or as the one's before it: runtime calls and kernels take turns
                otherCategory = lastCategory;
                lastCategory = cat;
                EventClass c = otherClass;
                otherClass = lastClass;
                lastClass = c;
                long[] n = otherCount;
                otherCount = lastCount;
                lastCount = n;
                if (n != null) {
                    n[0]++;
                }
                return;
            }
            otherCategory = lastCategory;
            otherCount = lastCount;
            otherClass = lastClass;
            lastClass = EventClass.of(cat);
            String key = cat == null ? "(none)" : cat;
            long[] n = categories.get(key);
            if (n == null && categories.size() <= MAX_CATEGORIES_LISTED) {
                categories.put(key, n = new long[1]);
            }
            if (n != null) {
                n[0]++;
            }
            lastCategory = cat;
            lastCount = n;
        }

        /** The accounting ({@code flagtrace}), the device names, whether it is a merge's or a CUDA trace. */
        void blocks(TraceBlocks b) {
            accounting.putAll(b.accounting());
            notes.addAll(b.notes());
            devices.addAll(b.devices());
            merged = b.merged();
            mergeInputs = b.mergeInputs();
            cuda |= b.cuda();
        }

        /** One event: a complete one is summarised, a {@code [memory]} instant kept, the rest skipped. */
        @Override
        public void event(TraceEvent e) throws IOException {
            SummaryEvents.handOn(e, this);
        }

        @Override
        public void complete(String cat, String name, String pid, String tid, long tsNs, long durNs, boolean unusable,
                             long externalId, long inElems, long outElems, String dtype) throws IOException {
            sawCategory(cat);
            EventClass c = cat != null ? lastClass : EventClass.of(null, pid); // the legacy exporter's ops carry no category
            if (!cuda && cat != null && cat.startsWith("cuda_")) {
                cuda = true;
            }
            if (c == EventClass.OTHER) {
                other++;
                if ("Trace".equals(cat)) {
                    if (tsNs == TraceEvent.NONE) {
                        invalid++;
                    } else {
                        spanStart = Math.min(spanStart, tsNs);
                    }
                }
                return;
            }
            if (name == null || unusable || tsNs == TraceEvent.NONE) {
                invalid++;
                return;
            }
            long length = durNs == TraceEvent.NONE ? 0 : durNs;
            long external = externalId == TraceEvent.NONE ? KeyAveragesBuilder.NO_LINK : externalId;
            event(c, name, pid == null ? "" : pid, tid == null ? "" : tid, tsNs, length, external);
            if (collectiveKernels.isCollectiveKernel(cat, name)) {
                collectives.add(name, length, inElems, outElems, dtype);
            }
        }

        /**
         * A {@code [memory]} instant: its device's total at its time; one without a usable total or time is left out.
         * Kept twice: by device, and by merge slot and device, for a merged trace (whose block comes after its events).
         */
        @Override
        public void memory(long totalAllocated, long tsNs, boolean unusable, long deviceType, long deviceNumber, long pidNumber) {
            if (totalAllocated == TraceEvent.NONE || totalAllocated < 0 || tsNs == TraceEvent.NONE || unusable) {
                return;
            }
            String device = deviceType == 0 ? "CPU" : deviceNumber == TraceEvent.NONE ? "device" : "device " + deviceNumber;
            memory.add(device, tsNs, totalAllocated);
            int slot = TraceBlocks.slotOf(pidNumber);
            if (slot >= 0) {
                memoryBySlot.add(slot + String.valueOf(SLOT_MARK) + device, tsNs, totalAllocated);
            }
        }

        /** One slice of a {@code .pftrace}: a complete event of category {@code cat}, its times in nanoseconds. */
        void slice(String cat, String name, String pid, String tid, long start, long length, long external) throws IOException {
            sawCategory(cat);
            cuda |= cat != null && cat.startsWith("cuda_");
            EventClass c = EventClass.of(cat);
            if (c == EventClass.OTHER && "Trace".equals(cat)) {
                spanStart = Math.min(spanStart, start);
            }
            event(c, name, pid, tid, start, length, external);
        }

        /** One complete event of class {@code c}, its times in nanoseconds. */
        void event(EventClass c, String name, String pid, String tid, long start, long length, long external) throws IOException {
            if (c == EventClass.OTHER) {
                other++;
                return;
            }
            if (bySlot) {
                int slot = TraceBlocks.slotOf(slot(pid));
                if (slot < 0) {
                    unplaced++;
                    return;
                }
                name = slot + String.valueOf(SLOT_MARK) + name;
            }
            firstStart = Math.min(firstStart, start);
            if (c == EventClass.DEVICE && !deviceWork.add(bySlot ? name.substring(name.indexOf(SLOT_MARK) + 1) : name, length)) {
                throw new TraceFormatException(path + " is not a trace: the device work of one name lasts more than "
                        + Long.MAX_VALUE + " ns (292 years) in all");
            }
            cuda |= c == EventClass.RUNTIME && name.startsWith("cuda"); // 2021's Runtime category names no vendor
            if (builder.events() == maxEvents) {
                throw new TraceFormatException(path + " holds more than " + maxEvents
                        + " events; summarise a shorter window of it");
            }
            builder.add(c, name, pid, tid, start, length, external);
        }

        /** {@code pid} as a number, or {@link TraceEvent#NONE}. */
        private static long slot(String pid) {
            try {
                return Long.parseLong(pid);
            } catch (NumberFormatException e) {
                return TraceEvent.NONE;
            }
        }

    }
}
