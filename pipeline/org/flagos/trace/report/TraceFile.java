package org.flagos.trace.report;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    private final long unplacedEvents;

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
        this.memory = r.memory;
        this.merged = r.merged;
        this.unplacedEvents = r.unplaced;
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
        return read(path, maxEvents, new KeyAveragesBuilder(spillDir));
    }

    /** Reads {@code path} into {@code builder} (tests give one with small buffers, to make it spill). */
    static TraceFile read(Path path, long maxEvents, KeyAveragesBuilder builder) throws IOException {
        return read(path, maxEvents, builder, 0);
    }

    /**
     * Reads a merged trace ({@code flagtrace merge}'s, pids {@code (slot + 1) * pidStride + n}) with every
     * event's name keyed by its merge slot, so that each row of the table is one name of one rank:
     * {@link #slotOf} and {@link #nameOf} take a row's name apart. An event on a pid of no slot is
     * left out and counted ({@link #unplacedEvents}).
     */
    static TraceFile readBySlot(Path path, long pidStride) throws IOException {
        return read(path, DEFAULT_MAX_EVENTS, new KeyAveragesBuilder(Path.of(System.getProperty("java.io.tmpdir"))), pidStride);
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

    private static TraceFile read(Path path, long maxEvents, KeyAveragesBuilder builder, long pidStride) throws IOException {
        try (builder) {
            return TraceInput.read(path, "not a trace; name one trace file (TRACE.json, TRACE.json.gz or TRACE.pftrace)", in -> {
                Reader r = new Reader(builder, maxEvents, path);
                r.pidStride = pidStride;
                if (PerfettoTraceReader.looksLike(in)) {
                    new PerfettoTraceReader(r).read(in);
                } else {
                    try (JsonParser p = TraceInput.parser(in)) {
                        TraceTopLevel.walk(p, path, TraceTopLevel.Rules.TRACE, r);
                    }
                }
                if (pidStride == 0) { // by slot, a merge whose ranks hold no row is an empty table: its ranks say what they hold
                    r.checkSomethingToSummarise();
                }
                DeviceStreams[] streams = new DeviceStreams[1];
                KeyAverages averages = builder.build(r.origin(), r.cuda, streams);
                return new TraceFile(r, averages, streams[0], builder.spilledBytes());
            });
        }
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

    /** Complete events {@link #readBySlot} left out: on a pid of no merge slot. */
    long unplacedEvents() {
        return unplacedEvents;
    }

    /** What one streaming pass keeps of a JSON trace ({@link TraceTopLevel} hands it each event and block); also the sink {@link PerfettoTraceReader} feeds. */
    static final class Reader implements TraceTopLevel.Visitor {
        final KeyAveragesBuilder builder;
        final long maxEvents;
        final Path path;
        final Map<String, long[]> categories = new LinkedHashMap<>();
        final Map<String, Long> accounting = new LinkedHashMap<>();
        final List<String> notes = new ArrayList<>();
        final List<String> devices = new ArrayList<>();
        boolean cuda;
        boolean merged;
        /** Non-zero: names are keyed by merge slot ({@link #readBySlot}). */
        long pidStride;
        long unplaced;
        long other;
        long invalid;
        long spanStart = Long.MAX_VALUE;
        long firstStart = Long.MAX_VALUE;
        final MemoryTimeline memory = new MemoryTimeline();
        /** The memory args of the event being read (torch's {@code [memory]}); reset per event. */
        long argTotalAllocated;
        long argDeviceType;
        long argDeviceId;

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
            String key = cat == null ? "(none)" : cat;
            long[] n = categories.get(key);
            if (n == null && categories.size() <= MAX_CATEGORIES_LISTED) {
                categories.put(key, n = new long[1]);
            }
            if (n != null) {
                n[0]++;
            }
        }

        /** The accounting ({@code flagtrace}), the device names, whether it is a merge's or a CUDA trace; the rest is skipped. */
        @Override
        public void block(String field, JsonToken value, JsonParser p) throws IOException {
            if (field.equals("flagtrace") && value == JsonToken.START_OBJECT) {
                readBlock(p, "");
            } else if (field.equals("deviceProperties") && value == JsonToken.START_ARRAY) {
                readDevices(p);
            } else if (field.equals("flagtrace_merge")) {
                merged = true;
                p.skipChildren();
            } else {
                cuda |= field.startsWith("cuda_");
                p.skipChildren();
            }
        }

        /** One event: a complete one is summarised, a {@code [memory]} instant kept, the rest skipped. */
        @Override
        public void event(JsonParser p) throws IOException {
            String ph = null;
            String cat = null;
            String name = null;
            String pid = "";
            String tid = "";
            String ts = null;
            String dur = null;
            long external = KeyAveragesBuilder.NO_LINK;
            argTotalAllocated = Long.MIN_VALUE;
            argDeviceType = Long.MIN_VALUE;
            argDeviceId = Long.MIN_VALUE;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "ph": ph = TraceTopLevel.text(p, v); break;
                    case "cat": cat = TraceTopLevel.text(p, v); break;
                    case "name": name = TraceTopLevel.text(p, v); break;
                    case "pid": pid = TraceTopLevel.text(p, v); break;
                    case "tid": tid = TraceTopLevel.text(p, v); break;
                    case "ts": ts = TraceTopLevel.text(p, v); break;
                    case "dur": dur = TraceTopLevel.text(p, v); break;
                    case "args":
                        if (v == JsonToken.START_OBJECT) {
                            external = readArgs(p);
                        } else {
                            p.skipChildren();
                        }
                        break;
                    default: p.skipChildren();
                }
            }
            if ("i".equals(ph) && "[memory]".equals(name)) {
                memory(ts);
                return;
            }
            if (!"X".equals(ph)) {
                return;
            }
            event(cat, name, pid, tid, ts, dur, external);
        }

        /** A {@code [memory]} instant: its device's total at {@code ts}; one without a usable total or time is left out. */
        private void memory(String ts) {
            if (argTotalAllocated == Long.MIN_VALUE || argTotalAllocated < 0) {
                return;
            }
            long at;
            try {
                at = Micros.toNanos(ts);
            } catch (RuntimeException e) {
                return;
            }
            String device = argDeviceType == 0 ? "CPU" : argDeviceId == Long.MIN_VALUE ? "device" : "device " + argDeviceId;
            memory.add(device, at, argTotalAllocated);
        }

        /** One complete event, its times as the trace's decimal microseconds. */
        void event(String cat, String name, String pid, String tid, String ts, String dur, long external) throws IOException {
            sawCategory(cat);
            EventClass c = EventClass.of(cat, pid); // the legacy exporter's ops carry no category
            if (cat != null && cat.startsWith("cuda_")) {
                cuda = true;
            }
            if (c == EventClass.OTHER) {
                other++;
                if ("Trace".equals(cat)) {
                    try {
                        spanStart = Math.min(spanStart, Micros.toNanos(ts));
                    } catch (RuntimeException e) {
                        invalid++;
                    }
                }
                return;
            }
            long start;
            long length;
            try {
                start = Micros.toNanos(ts);
                length = dur == null ? 0 : Micros.toNanos(dur);
            } catch (RuntimeException e) { // null, non-numeric or out of range
                invalid++;
                return;
            }
            if (name == null || length < 0 || start > Long.MAX_VALUE - length) {
                invalid++;
                return;
            }
            event(c, name, pid, tid, start, length, external);
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
            if (pidStride > 0) {
                long slot = slot(pid);
                if (slot < 0) {
                    unplaced++;
                    return;
                }
                name = slot + String.valueOf(SLOT_MARK) + name;
            }
            firstStart = Math.min(firstStart, start);
            cuda |= c == EventClass.RUNTIME && name.startsWith("cuda"); // 2021's Runtime category names no vendor
            if (builder.events() == maxEvents) {
                throw new TraceFormatException(path + " holds more than " + maxEvents
                        + " events; summarise a shorter window of it");
            }
            builder.add(c, name, pid, tid, start, length, external);
        }

        /** The merge slot of {@code pid}, or -1 when it is no slot's. */
        private long slot(String pid) {
            long number;
            try {
                number = Long.parseLong(pid);
            } catch (NumberFormatException e) {
                return -1;
            }
            return number < pidStride || number / pidStride - 1 >= Integer.MAX_VALUE ? -1 : number / pidStride - 1;
        }

        /**
         * The External id among an event's args, skipping the rest. The 2021 schema spells it
         * {@code external id} on runtime calls and device work.
         */
        private long readArgs(JsonParser p) throws IOException {
            long external = KeyAveragesBuilder.NO_LINK;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if ((field.equals("External id") || field.equals("external id")) && v == JsonToken.VALUE_NUMBER_INT) {
                    try {
                        external = p.getLongValue();
                    } catch (IOException e) { // beyond a long: no usable link
                        external = KeyAveragesBuilder.NO_LINK;
                    }
                } else if (v == JsonToken.VALUE_NUMBER_INT && (field.equals("Total Allocated")
                        || field.equals("Device Type") || field.equals("Device Id"))) {
                    long value;
                    try {
                        value = p.getLongValue();
                    } catch (IOException e) { // beyond a long: not a usable figure
                        value = Long.MIN_VALUE;
                    }
                    switch (field) {
                        case "Total Allocated": argTotalAllocated = value; break;
                        case "Device Type": argDeviceType = value; break;
                        default: argDeviceId = value;
                    }
                } else {
                    p.skipChildren();
                }
            }
            return external;
        }

        void readBlock(JsonParser p, String prefix) throws IOException {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = prefix + p.currentName();
                JsonToken v = p.nextToken();
                if (v == JsonToken.START_OBJECT) {
                    readBlock(p, key + ".");
                } else if (v == JsonToken.START_ARRAY) {
                    JsonToken t;
                    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                        if (t == JsonToken.VALUE_STRING && notes.size() < 1000) {
                            notes.add(p.getText());
                        } else {
                            p.skipChildren();
                        }
                    }
                } else if (v == JsonToken.VALUE_NUMBER_INT && accounting.size() < 10_000) {
                    try {
                        accounting.put(key, p.getLongValue());
                    } catch (IOException e) {
                        // a count beyond a long is no count: left out
                    }
                }
            }
        }

        void readDevices(JsonParser p) throws IOException {
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (t != JsonToken.START_OBJECT) {
                    p.skipChildren();
                    continue;
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken v = p.nextToken();
                    if (field.equals("name") && v == JsonToken.VALUE_STRING && devices.size() < 1024) {
                        devices.add(p.getText());
                    } else {
                        p.skipChildren();
                    }
                }
            }
        }
    }
}
