package org.flagos.trace.merge;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.flagos.trace.sql.CollectiveKernels;
import org.flagos.trace.tracefile.EventTokens;
import org.flagos.trace.tracefile.TraceEvent;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceLimits;
import org.flagos.trace.tracefile.TraceReader;
import org.flagos.trace.tracefile.TraceSource;

/**
 * One input of a merge, in two steps. {@link #read} reads the trace once through the one reader (every event
 * checked by its rules, the facts the alignment needs gathered on the way) and keeps each event to be copied in
 * a scratch part: its bytes as the JSON writer would write them ({@link EventBytes}), with the values the merge
 * rewrites cut out. {@link #copy}, once the input's slot and clock offset are known, writes the part with those
 * values filled in: its processes get pids of their own ({@link #PID_STRIDE} per input), its ids ({@code id} of
 * flows and async events, {@code args.correlation}, {@code args["External id"]}, 2021's {@code "external id"}) become {@code id * inputs + slot},
 * unique across inputs yet still pairing within one (an id written as a string the reader reads as a number, {@code "5"},
 * too, and it stays a string; a top-level {@code id} string of any other text becomes {@code "slot:text"}), and its times move onto the reference clock. Its own process
 * names and sort indexes are replaced by ones naming the rank, host and pid, written after its events.
 */
final class InputCopy {
    /** Pids given to one input's processes: its host process and up to 998 devices. */
    static final int PID_STRIDE = TraceLimits.PID_STRIDE;
    /** Ids a viewer reads as JavaScript numbers stay exact up to 2^53. */
    static final long MAX_ID = 1L << 53;
    /**
     * The first number of an event in a part of a {@link #source}: its holes times 4, {@link #WRITTEN} and {@link #NEXT} or
     * neither. Then, unless {@link #NEXT}, the lines it is past the last event's and the bytes between them; its length;
     * and, its bytes being the trace's, per hole: its kind ({@link EventBytes#PID} with its process's index times 8),
     * its span's start past the last span's end and its length (quotes included).
     */
    private static final int NEXT = 1;
    /** Of an event in a part of a {@link #source}: its bytes are in the part, as without one (its holes with them). */
    private static final int WRITTEN = 2;
    /** Categories of device work: their process is a device's. */
    private static final Set<String> DEVICE_CATEGORIES = Set.of("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation");

    /** One process of the input: its new pid and what its labels said. */
    static final class Row {
        final String original;
        final int index;
        long pid;
        /** {@link #pid}'s decimal text. */
        byte[] pidText;
        final int order;
        String name;
        boolean device;

        Row(String original, int index) {
            this.original = original;
            this.index = index;
            this.order = index;
        }
    }

    private final Map<String, Row> rows = new LinkedHashMap<>();
    private final Row[] byIndex = new Row[PID_STRIDE];
    private TraceFacts facts;
    private Path part;
    long events;
    long labelsReplaced;
    /** Events whose ts or dur is no time (not a number, a negative duration): left out, counted. */
    long leftOutUnusable;
    /** Whether the fast path read it ({@link EventScan}), not the reader's walk. */
    boolean fast;
    /**
     * The trace whose bytes the copy takes the events as read from ({@link EventScan#asRead}): the fast path's of a file
     * not gzipped; null when the part holds every event's bytes. Its size and time then, to tell a trace changed since.
     */
    Path source;
    private long sourceSize;
    private java.nio.file.attribute.FileTime sourceTime;

    private InputCopy() {
    }

    TraceFacts facts() {
        return facts;
    }

    Map<String, Row> rows() {
        return rows;
    }

    /**
     * Reads {@code trace} once: its facts, and its events into a part in {@code scratch} (deleted by {@link #delete}).
     * The common form's events are taken by {@link EventScan} (the fast path); a trace with any event of another form,
     * or one the reader refuses, is read again by the one reader, whose rules and words decide.
     *
     * @param stop read between events: true when the merge has failed elsewhere and this read may end
     */
    static InputCopy read(Path trace, Path scratch, java.util.function.BooleanSupplier stop) throws IOException {
        return read(trace, scratch, stop, FAST);
    }

    /** Whether merge takes the fast path first ({@code -Dflagtrace.merge.fast=false}: the reader alone, to compare). */
    private static final boolean FAST = !"false".equals(System.getProperty("flagtrace.merge.fast"));

    /** As {@link #read(Path, Path, java.util.function.BooleanSupplier)}; {@code fast}: the fast path first. */
    static InputCopy read(Path trace, Path scratch, java.util.function.BooleanSupplier stop, boolean fast) throws IOException {
        if (fast) {
            InputCopy copy = new InputCopy();
            try {
                readFast(copy, trace, scratch, stop);
                copy.fast = true;
                return copy;
            } catch (java.io.InterruptedIOException | Error e) {
                copy.delete();
                throw e;
            } catch (IOException | RuntimeException e) { // not the common form, or refused: the reader's to say
                copy.delete();
            }
        }
        InputCopy copy = new InputCopy();
        copy.part = Files.createTempFile(scratch, ".flagtrace-merge." + ProcessHandle.current().pid() + "-", ".part");
        copy.part.toFile().deleteOnExit();
        CollectiveEnds collectives = new CollectiveEnds();
        try (PartOut out = new PartOut(Files.newOutputStream(copy.part))) {
            Pass pass = new Pass(copy, trace, out, new EventBytes());
            var blocks = TraceReader.read(trace, TraceFacts.DIRECTORY, TraceReader.Options.MERGE, e -> {
                if (stop.getAsBoolean()) {
                    throw new java.io.InterruptedIOException("merge stopped");
                }
                collectives.accept(e);
                pass.event(e);
            });
            copy.facts = new TraceFacts(trace, blocks.identity(), blocks, collectives.finish());
        } catch (IOException | RuntimeException | Error e) {
            copy.delete();
            throw e;
        }
        return copy;
    }

    /**
     * The fast path: the events taken by {@link EventsCut} and {@link EventScan}, the rest of the document (its top level
     * and blocks) read by the one reader with the events array seen empty.
     */
    private static void readFast(InputCopy copy, Path trace, Path scratch, java.util.function.BooleanSupplier stop) throws IOException {
        if (Files.isRegularFile(trace) && !gzipped(trace)) { // its events' bytes are the file's: the copy reads them there
            copy.source = trace;
            copy.sourceSize = Files.size(trace);
            copy.sourceTime = Files.getLastModifiedTime(trace);
        }
        copy.part = Files.createTempFile(scratch, ".flagtrace-merge." + ProcessHandle.current().pid() + "-", ".part");
        copy.part.toFile().deleteOnExit();
        CollectiveEnds collectives = new CollectiveEnds();
        try (PartOut out = new PartOut(Files.newOutputStream(copy.part))) {
            var blocks = TraceSource.read(trace, TraceFacts.DIRECTORY, in -> {
                if (TraceReader.looksLikePerfetto(in)) {
                    throw new EventScan.Unusual("a Perfetto trace");
                }
                EventsCut[] cut = new EventsCut[1];
                EventsCut.Sink sink = new EventsCut.Sink() {
                    Pass pass;

                    @Override
                    public void event(EventScan s, int line, long offset) throws IOException {
                        if (stop.getAsBoolean()) {
                            throw new java.io.InterruptedIOException("merge stopped");
                        }
                        if (pass == null) {
                            pass = new Pass(copy, trace, out, s.bytes);
                        }
                        if (s.unusable) {
                            copy.leftOutUnusable++;
                            return;
                        }
                        if ("X".equals(s.ph) && s.cat != null && CollectiveKernels.KERNEL_CATEGORIES.contains(s.cat)) { // else no collective
                            collectives.accept(s.ph, s.cat, s.name(), s.group, s.tsNs(), s.durNs());
                        }
                        pass.scanned(s, line, offset);
                    }
                };
                cut[0] = new EventsCut(in, sink, copy.source != null); // the copy takes as-read events' bytes from the trace
                var read = TraceReader.walk(cut[0], trace, TraceReader.Options.FACTS, e -> {
                    throw new EventScan.Unusual("an event the cut left");
                });
                if (!cut[0].cut()) {
                    throw new EventScan.Unusual("no traceEvents array taken");
                }
                return read;
            });
            copy.facts = new TraceFacts(trace, blocks.identity(), blocks, collectives.finish());
        }
    }

    /** Whether {@code file} starts with gzip's magic bytes. */
    private static boolean gzipped(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        }
    }

    /** Deletes the part. */
    void delete() {
        try {
            if (part != null) {
                Files.deleteIfExists(part);
            }
        } catch (IOException ignored) {
            // deleted when the JVM exits, or by the next merge in this folder
        }
    }

    /** The first step's walk: each event kept or left out, and counted. */
    private static final class Pass {
        final InputCopy copy;
        final Path trace;
        final PartOut out;
        final EventBytes bytes;
        final ByteArrayOutputStream written = new ByteArrayOutputStream(1 << 12);

        Pass(InputCopy copy, Path trace, PartOut out, EventBytes bytes) {
            this.copy = copy;
            this.trace = trace;
            this.out = out;
            this.bytes = bytes;
        }

        /** The fast path's event, scanned into {@link #bytes} ({@link EventScan}), usable: kept or left out as {@link #event} does. */
        void scanned(EventScan s, int line, long offset) throws IOException {
            Row row = s.pid == null ? null : copy.row(trace, s.pid);
            String name = row != null && "M".equals(s.ph) ? s.name() : null;
            if ("process_name".equals(name) || "process_sort_index".equals(name)) {
                if ("process_name".equals(name) && s.labelFrom >= 0) {
                    row.name = s.label();
                }
                copy.labelsReplaced++;
                return;
            }
            if (row != null && s.cat != null && DEVICE_CATEGORIES.contains(s.cat)) {
                row.device = true;
            }
            if (copy.source == null) {
                write(row, line);
                return;
            }
            boolean asRead = s.asRead();
            boolean next = line == lastLine && offset - end == 1; // on the line of the one before, after its comma
            out.number((asRead ? bytes.holes << 2 : WRITTEN) | (next ? NEXT : 0));
            if (!next) {
                out.number(line - lastLine);
                out.numberLong(offset - end);
            }
            out.number(s.length());
            lastLine = line;
            end = offset + s.length();
            if (!asRead) {
                writeHolesAndText(row);
                return;
            }
            int spanEnd = 0;
            for (int h = 0; h < bytes.holes; h++) {
                byte kind = bytes.kinds[h];
                out.number(kind == EventBytes.PID ? kind | row.index << 3 : kind);
                out.number(s.spanFrom[h] - spanEnd);
                out.number(s.spanTo[h] - s.spanFrom[h]);
                spanEnd = s.spanTo[h];
            }
            copy.events++;
        }

        /** Where the last event copied ends in the trace, and its line: the next one's are written from there. */
        private long end;
        private int lastLine;

        void event(TraceEvent e) throws IOException {
            if (e.unusable()) { // a ts or dur that is no time: left out, as every reader of the merged trace would
                copy.leftOutUnusable++;
                return;
            }
            Row row = e.pid() == null ? null : copy.row(trace, e.pid());
            String ph = e.ph();
            String name = e.name();
            if (row != null && "M".equals(ph) && ("process_name".equals(name) || "process_sort_index".equals(name))) {
                if ("process_name".equals(name)) {
                    String label = labelName(e);
                    if (label != null) {
                        row.name = label;
                    }
                }
                copy.labelsReplaced++;
                return;
            }
            String category = e.cat();
            if (row != null && category != null && DEVICE_CATEGORIES.contains(category)) {
                row.device = true;
            }
            boolean hasTs = e.tsNs() != TraceEvent.NONE;
            if (e.rawBytes() == null || !bytes.scan(e.rawBytes(), e.rawFrom(), e.rawTo(), false, row != null, hasTs)) {
                byte[] canonical = canonical(e);
                bytes.scan(canonical, 0, written.size(), true, row != null, hasTs);
            }
            write(row, e.line());
        }

        /** The event in {@link #bytes}, of process {@code row} (null: none renumbered), into the part. */
        private void write(Row row, int line) throws IOException {
            out.number(line);
            writeHolesAndText(row);
        }

        /** The holes with their values and the bytes around them, of the event in {@link #bytes}. */
        private void writeHolesAndText(Row row) throws IOException {
            out.number(bytes.holes);
            for (int h = 0; h < bytes.holes; h++) {
                out.number(bytes.kinds[h]);
                out.number(bytes.at[h]);
                if (bytes.kinds[h] == EventBytes.PID) {
                    out.number(row.index);
                } else {
                    int n = bytes.valueTo[h] - bytes.valueFrom[h];
                    out.number(n);
                    out.bytes(bytes.values, bytes.valueFrom[h], n);
                }
            }
            out.number(bytes.size);
            out.bytes(bytes.text, 0, bytes.size);
            copy.events++;
        }

        /** A process_name label's {@code args.name}, when a string. */
        private static String labelName(TraceEvent e) throws IOException {
            EventTokens tokens = e.tokens().size() > 0 ? e.tokens() : EventTokens.parse(e.rawBytes(), e.rawFrom(), e.rawTo());
            int at = tokens.arg("name");
            return at >= 0 && tokens.token(at) == JsonToken.VALUE_STRING ? tokens.text(at) : null;
        }

        /** The event as the JSON writer writes its tokens, in {@link #written}. */
        private byte[] canonical(TraceEvent e) throws IOException {
            EventTokens event = e.tokens().size() > 0 ? e.tokens() : EventTokens.parse(e.rawBytes(), e.rawFrom(), e.rawTo());
            written.reset();
            try (JsonGenerator g = TraceSource.JSON.createGenerator(written, JsonEncoding.UTF8)) {
                for (int i = 0; i < event.size(); i++) {
                    String text = event.text(i);
                    switch (event.token(i)) {
                        case START_OBJECT -> g.writeStartObject();
                        case END_OBJECT -> g.writeEndObject();
                        case START_ARRAY -> g.writeStartArray();
                        case END_ARRAY -> g.writeEndArray();
                        case FIELD_NAME -> g.writeFieldName(text);
                        case VALUE_STRING -> g.writeString(text);
                        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> g.writeNumber(text);
                        case VALUE_TRUE -> g.writeBoolean(true);
                        case VALUE_FALSE -> g.writeBoolean(false);
                        default -> g.writeNull();
                    }
                }
            }
            return writtenBytes();
        }

        private byte[] writtenBytes() {
            return written.toByteArray();
        }
    }

    private Row row(Path trace, String text) throws TraceFormatException {
        Row row = rows.get(text);
        if (row == null) {
            if (rows.size() == PID_STRIDE - 1) {
                throw new TraceFormatException(trace + " has more than " + (PID_STRIDE - 1) + " processes (pids); a merge keeps"
                        + " each trace's processes within " + PID_STRIDE + " pids");
            }
            row = new Row(text, rows.size());
            rows.put(text, row);
            byIndex[row.index] = row;
        }
        return row;
    }

    /**
     * Writes the input's events, then its process labels, into {@code to}.
     *
     * @param slot    this input's place in the merged trace (0 for the reference)
     * @param inputs  how many traces are merged (the id stride)
     * @param shiftNs added to each event's time: its base, its clock offset, less the merged base
     * @param label   how its processes are named: {@code rank 3}, or {@code input 2} without a rank
     */
    void copy(MergedEvents to, int slot, int inputs, long shiftNs, String label) throws IOException {
        for (Row row : rows.values()) {
            row.pid = (long) (slot + 1) * PID_STRIDE + row.index;
            row.pidText = Long.toString(row.pid).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
        try (PartIn in = new PartIn(Files.newInputStream(part)); PartIn trace = source == null ? null : new PartIn(Files.newInputStream(source))) {
            Copier copier = new Copier(in, to, slot, inputs, shiftNs);
            if (trace == null) {
                for (long n = 0; n < events; n++) {
                    copier.event(in.number());
                }
            } else {
                for (long n = 0; n < events; n++) {
                    copier.fromTrace(trace);
                }
            }
        } catch (EOFException e) {
            if (source == null) {
                throw e;
            }
            throw changed();
        }
        if (source != null && (Files.size(source) != sourceSize || !Files.getLastModifiedTime(source).equals(sourceTime))) {
            throw changed();
        }
        writeLabels(to, slot, label);
    }

    /** Writes the part's events one by one (a method per event: the loop around it stays small for the JIT). */
    private final class Copier {
        final PartIn in;
        final MergedEvents to;
        final int slot;
        final int inputs;
        final long shiftNs;
        final byte[] slotPrefix;
        byte[] value = new byte[256];
        byte[] raw = new byte[1 << 12];
        long[] times = new long[8];
        int[] kinds = new int[8];
        int[] at = new int[8];
        int[] from = new int[8];
        int[] lengths = new int[8];

        Copier(PartIn in, MergedEvents to, int slot, int inputs, long shiftNs) {
            this.in = in;
            this.to = to;
            this.slot = slot;
            this.inputs = inputs;
            this.shiftNs = shiftNs;
            this.slotPrefix = ("\"" + slot + ":").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }

        /** The line of the event read last from a {@link #source}'s part. */
        private int line;

        /** The event whose bytes are the trace's, or in the part ({@link #WRITTEN}). */
        void fromTrace(PartIn trace) throws IOException {
            int head = in.number();
            if ((head & NEXT) != 0) {
                trace.skip(1);
            } else {
                line += in.number();
                trace.skip(in.numberLong());
            }
            int length = in.number();
            if ((head & WRITTEN) != 0) {
                trace.skip(length);
                event(line);
                return;
            }
            if (raw.length < length) {
                raw = new byte[Math.max(length, raw.length * 2)];
            }
            trace.readFully(raw, 0, length);
            if (raw[0] != '{' || raw[length - 1] != '}') {
                throw changed();
            }
            int holes = head >>> 2;
            room(holes);
            if (holes > times.length) {
                times = new long[holes];
            }
            int spanEnd = 0;
            for (int h = 0; h < holes; h++) {
                int kind = in.number();
                kinds[h] = kind & 7;
                lengths[h] = kind >>> 3; // a pid's process
                at[h] = spanEnd + in.number(); // the span, quotes included
                from[h] = at[h] + in.number(); // its end
                spanEnd = from[h];
                if (kinds[h] == EventBytes.TS) { // the time first: an event past the bound is refused by its line
                    long ns = Timestamps.nanos(raw, at[h], from[h] - at[h]);
                    times[h] = ns;
                    if (ns == Long.MIN_VALUE) {
                        checkTime(raw, at[h], from[h] - at[h], shiftNs, line);
                    } else {
                        checkTime(ns, shiftNs, line);
                    }
                }
            }
            to.separator();
            int done = 0;
            for (int h = 0; h < holes; h++) {
                to.bytes(raw, done, at[h] - done);
                int f = at[h];
                int n = from[h] - at[h];
                switch (kinds[h]) {
                    case EventBytes.PID -> {
                        byte[] pid = byIndex[lengths[h]].pidText;
                        to.bytes(pid, 0, pid.length);
                    }
                    case EventBytes.TS -> {
                        if (times[h] == Long.MIN_VALUE) {
                            to.time(raw, f, n, shiftNs);
                        } else {
                            to.time(times[h] + shiftNs);
                        }
                    }
                    case EventBytes.ID_INT -> to.decimal(idInt(raw, f, n, slot, inputs));
                    case EventBytes.ID_NUMBER_STRING -> {
                        to.bytes(QUOTE, 0, 1);
                        to.decimal(id(new String(raw, f + 1, n - 2, java.nio.charset.StandardCharsets.UTF_8), true, slot, inputs));
                        to.bytes(QUOTE, 0, 1);
                    }
                    default -> {
                        to.bytes(slotPrefix, 0, slotPrefix.length);
                        to.bytes(raw, f + 1, n - 1); // the text and its closing quote
                    }
                }
                done = from[h];
            }
            to.bytes(raw, done, length - done);
        }

        /** Makes the hole arrays hold {@code holes} entries. */
        private void room(int holes) {
            if (holes > kinds.length) {
                kinds = new int[holes];
                at = new int[holes];
                from = new int[holes];
                lengths = new int[holes];
            }
        }

        /** The event whose holes and bytes are in the part, its line read. */
        void event(int line) throws IOException {
            int holes = in.number();
            room(holes);
            int used = 0;
            for (int h = 0; h < holes; h++) {
                kinds[h] = in.number();
                at[h] = in.number();
                if (kinds[h] == EventBytes.PID) {
                    lengths[h] = in.number();
                } else {
                    int len = in.number();
                    if (used + len > value.length) {
                        value = java.util.Arrays.copyOf(value, Math.max(value.length * 2, used + len));
                    }
                    in.readFully(value, used, len);
                    from[h] = used;
                    lengths[h] = len;
                    used += len;
                }
            }
            for (int h = 0; h < holes; h++) { // the time first: an event past the bound is refused by its line
                if (kinds[h] == EventBytes.TS) {
                    checkTime(value, from[h], lengths[h], shiftNs, line);
                }
            }
            int size = in.number();
            to.separator();
            int done = 0;
            for (int h = 0; h < holes; h++) {
                to.copy(in, at[h] - done);
                done = at[h];
                switch (kinds[h]) {
                    case EventBytes.PID -> {
                        byte[] pid = byIndex[lengths[h]].pidText;
                        to.bytes(pid, 0, pid.length);
                    }
                    case EventBytes.TS -> to.time(value, from[h], lengths[h], shiftNs);
                    case EventBytes.ID_INT -> to.decimal(idInt(value, from[h], lengths[h], slot, inputs));
                    case EventBytes.ID_NUMBER_STRING -> { // "5" stays a string, renumbered as the number 5 is
                        to.bytes(QUOTE, 0, 1);
                        to.decimal(id(new String(value, from[h], lengths[h], java.nio.charset.StandardCharsets.UTF_8), true, slot, inputs));
                        to.bytes(QUOTE, 0, 1);
                    }
                    default -> {
                        to.bytes(slotPrefix, 0, slotPrefix.length);
                        to.bytes(value, from[h], lengths[h]);
                        to.bytes(QUOTE, 0, 1);
                    }
                }
            }
            to.copy(in, size - done);
        }
    }

    /** {@link #id} of an integer's text {@code b[from, from + n)}, read without a string where it has at most 18 digits. */
    private long idInt(byte[] b, int from, int n, int slot, int inputs) throws TraceFormatException {
        boolean negative = n > 0 && b[from] == '-';
        int digits = negative ? n - 1 : n;
        if (digits < 1 || digits > 18) {
            return id(new String(b, from, n, java.nio.charset.StandardCharsets.US_ASCII), false, slot, inputs);
        }
        long v = 0;
        for (int k = negative ? from + 1 : from; k < from + n; k++) {
            v = v * 10 + (b[k] - '0');
        }
        long id;
        try {
            id = Math.addExact(Math.multiplyExact(negative ? -v : v, (long) inputs), slot);
        } catch (ArithmeticException past) {
            id = Long.MAX_VALUE;
        }
        if (Math.abs(id) > MAX_ID) {
            return id(new String(b, from, n, java.nio.charset.StandardCharsets.US_ASCII), false, slot, inputs); // its words
        }
        return id;
    }

    private static final byte[] QUOTE = {'"'};

    /** The refusal of a trace whose bytes are not those read: it changed while it was merged. */
    private TraceFormatException changed() {
        return new TraceFormatException(source + " changed while it was being merged (its events are copied from it); merge it again");
    }

    private void checkTime(byte[] value, int from, int length, long shiftNs, int line) throws TraceFormatException {
        long ns = Timestamps.nanos(value, from, length);
        if (ns == Long.MIN_VALUE) {
            ns = org.flagos.trace.tracefile.Micros.toNanos(new String(value, from, length, java.nio.charset.StandardCharsets.US_ASCII));
        }
        checkTime(ns, shiftNs, line);
    }

    /** As {@link #checkTime(byte[], int, int, long, int)}, of the time {@code ns} read. */
    private void checkTime(long ns, long shiftNs, int line) throws TraceFormatException {
        long at;
        try {
            at = Math.addExact(ns, shiftNs);
        } catch (ArithmeticException overflow) {
            at = Long.MAX_VALUE;
        }
        if (at > TraceLimits.MAX_TIME_NS || at < -TraceLimits.MAX_TIME_NS) {
            throw new TraceFormatException(facts.path() + ": its event on line " + line + " falls beyond ±" + TraceLimits.MAX_TIME_NS
                    + " ns once on the reference's clock (its base time or clock anchors are not a clock's)");
        }
    }

    /**
     * An id renumbered for {@code slot}: {@code id * inputs + slot}; refused past 2^53.
     *
     * @param string whether {@code text} was a string's (read as the reader reads it, {@link TraceEvent#wholeNumber}),
     *               else a number's
     */
    private long id(String text, boolean string, int slot, int inputs) throws TraceFormatException {
        long id;
        try {
            long read = string ? TraceEvent.wholeNumber(text) : Long.parseLong(text);
            id = read == TraceEvent.NONE ? Long.MAX_VALUE : Math.addExact(Math.multiplyExact(read, (long) inputs), slot);
        } catch (NumberFormatException | ArithmeticException e) {
            id = Long.MAX_VALUE;
        }
        if (Math.abs(id) > MAX_ID) {
            throw new TraceFormatException(facts.path() + " has the id " + text + ": ids times " + inputs + " traces pass 2^53,"
                    + " past which a viewer cannot keep them apart; merge fewer traces at once");
        }
        return id;
    }

    /** A process name and sort index per process: ranks in order, each host before its devices. */
    private void writeLabels(MergedEvents to, int slot, String label) throws IOException {
        if (rows.isEmpty()) {
            return;
        }
        ByteArrayOutputStream labels = new ByteArrayOutputStream();
        String host = facts.identity().host();
        try (JsonGenerator g = TraceSource.JSON.createGenerator(labels, JsonEncoding.UTF8)) {
            g.writeStartArray();
            for (Row row : rows.values()) {
                String name;
                if (row.device) {
                    name = label + " · device " + row.original;
                } else {
                    name = label + (host != null ? " · " + host : "") + " · pid " + row.original
                            + (row.name != null && !row.name.isEmpty() ? " · " + row.name : "");
                }
                metadata(g, "process_name", row.pid, "name", name);
                g.writeStartObject();
                g.writeStringField("name", "process_sort_index");
                g.writeStringField("ph", "M");
                g.writeNumberField("ts", 0);
                g.writeNumberField("pid", row.pid);
                g.writeNumberField("tid", 0);
                g.writeObjectFieldStart("args");
                g.writeNumberField("sort_index", (long) (slot + 1) * PID_STRIDE + (row.device ? 1 + row.order : 0));
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        byte[] b = labels.toByteArray();
        to.separator();
        to.bytes(b, 1, b.length - 2); // the objects, without the array's brackets
    }

    private static void metadata(JsonGenerator g, String what, long pid, String key, String value) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", what);
        g.writeStringField("ph", "M");
        g.writeNumberField("ts", 0);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", 0);
        g.writeObjectFieldStart("args");
        g.writeStringField(key, value);
        g.writeEndObject();
        g.writeEndObject();
    }

    /** Bytes to a stream through one buffer of 1 MiB, which the subclasses also fill in place. */
    abstract static class Buffered {
        final OutputStream out;
        final byte[] buf = new byte[1 << 20];
        int pos;

        Buffered(OutputStream out) {
            this.out = out;
        }

        /** Room for {@code n} more bytes in the buffer ({@code n} at most its size). */
        final void room(int n) throws IOException {
            if (pos + n > buf.length) {
                flush();
            }
        }

        final void bytes(byte[] b, int off, int n) throws IOException {
            if (n > buf.length - pos) {
                flush();
                if (n > buf.length) {
                    out.write(b, off, n);
                    return;
                }
            }
            System.arraycopy(b, off, buf, pos, n);
            pos += n;
        }

        /** Writes what the buffer holds (the stream itself is not flushed). */
        final void flush() throws IOException {
            out.write(buf, 0, pos);
            pos = 0;
        }
    }

    /** 10^k for k in 0..18. */
    private static final long[] TENS = new long[19];

    static {
        TENS[0] = 1;
        for (int k = 1; k < TENS.length; k++) {
            TENS[k] = TENS[k - 1] * 10;
        }
    }

    /** The digits of 00 to 99, two bytes each. */
    private static final byte[] PAIRS = new byte[200];

    static {
        for (int k = 0; k < 100; k++) {
            PAIRS[2 * k] = (byte) ('0' + k / 10);
            PAIRS[2 * k + 1] = (byte) ('0' + k % 10);
        }
    }

    /** The merged trace's events array as bytes: elements separated by commas, written in large blocks. */
    static final class MergedEvents extends Buffered {
        private boolean any;

        MergedEvents(OutputStream out) {
            super(out);
        }

        void separator() throws IOException {
            if (any) {
                room(1);
                buf[pos++] = ',';
            }
            any = true;
        }

        /** {@code n} bytes of {@code in}, as they are. */
        void copy(PartIn in, int n) throws IOException {
            while (n > 0) {
                room(1);
                int k = Math.min(n, buf.length - pos);
                in.readFully(buf, pos, k);
                pos += k;
                n -= k;
            }
        }

        void decimal(long v) throws IOException {
            room(20);
            if (v == Long.MIN_VALUE) {
                byte[] b = Long.toString(v).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                bytes(b, 0, b.length);
                return;
            }
            if (v < 0) {
                buf[pos++] = '-';
                v = -v;
            }
            int digits = 1;
            while (digits < 19 && v >= TENS[digits]) {
                digits++;
            }
            int end = pos + digits;
            int k = end;
            while (v >= 100) { // two digits a step
                int r = (int) (v % 100) * 2;
                v /= 100;
                buf[--k] = PAIRS[r + 1];
                buf[--k] = PAIRS[r];
            }
            if (v >= 10) {
                int r = (int) v * 2;
                buf[--k] = PAIRS[r + 1];
                buf[--k] = PAIRS[r];
            } else {
                buf[--k] = (byte) ('0' + v);
            }
            pos = end;
        }

        /** A {@code ts} moved by {@code shiftNs}, as {@link Timestamps#shift} writes it. */
        void time(byte[] value, int from, int length, long shiftNs) throws IOException {
            long ns = Timestamps.nanos(value, from, length);
            if (ns == Long.MIN_VALUE) {
                byte[] b = Timestamps.shift(new String(value, from, length, java.nio.charset.StandardCharsets.US_ASCII), shiftNs)
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                bytes(b, 0, b.length);
                return;
            }
            time(ns + shiftNs);
        }

        /** A time of {@code t} ns, as {@link Timestamps#micros} writes it. */
        void time(long t) throws IOException {
            room(24);
            long abs = Math.abs(t);
            if (t < 0) {
                buf[pos++] = '-';
            }
            decimal(abs / 1_000);
            long fraction = abs % 1_000;
            if (fraction != 0) {
                buf[pos++] = '.';
                buf[pos++] = (byte) ('0' + fraction / 100);
                buf[pos++] = (byte) ('0' + fraction / 10 % 10);
                buf[pos++] = (byte) ('0' + fraction % 10);
            }
        }
    }

    /** A part being written: unsigned variable-length numbers and bytes, through one buffer. */
    static final class PartOut extends Buffered implements AutoCloseable {
        PartOut(OutputStream out) {
            super(out);
        }

        void number(int v) throws IOException {
            room(5);
            while ((v & ~0x7F) != 0) {
                buf[pos++] = (byte) ((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            buf[pos++] = (byte) v;
        }

        void numberLong(long v) throws IOException {
            room(10);
            while ((v & ~0x7FL) != 0) {
                buf[pos++] = (byte) ((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            buf[pos++] = (byte) v;
        }

        @Override
        public void close() throws IOException {
            try {
                flush();
            } finally {
                out.close();
            }
        }
    }

    /** A part being read back, as {@link PartOut} wrote it. */
    static final class PartIn implements AutoCloseable {
        private final InputStream in;
        private final byte[] buf = new byte[1 << 20];
        private int pos;
        private int end;

        PartIn(InputStream in) {
            this.in = in;
        }

        private void fill() throws IOException {
            if (pos == end) {
                pos = 0;
                end = 0;
                int n = in.read(buf, 0, buf.length);
                if (n <= 0) {
                    throw new EOFException("a merge part ends early");
                }
                end = n;
            }
        }

        int number() throws IOException {
            if (end - pos >= 5) { // the whole number is held: no check per byte
                int v = 0;
                for (int shift = 0; ; shift += 7) {
                    int b = buf[pos++];
                    v |= (b & 0x7F) << shift;
                    if (b >= 0) {
                        return v;
                    }
                }
            }
            int v = 0;
            for (int shift = 0; ; shift += 7) {
                fill();
                int b = buf[pos++];
                v |= (b & 0x7F) << shift;
                if (b >= 0) {
                    return v;
                }
            }
        }

        long numberLong() throws IOException {
            long v = 0;
            for (int shift = 0; ; shift += 7) {
                fill();
                int b = buf[pos++];
                v |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    return v;
                }
            }
        }

        /** Passes over {@code n} bytes. */
        void skip(long n) throws IOException {
            while (n > 0) {
                fill();
                int k = (int) Math.min(n, end - pos);
                pos += k;
                n -= k;
            }
        }

        void readFully(byte[] b, int off, int n) throws IOException {
            while (n > 0) {
                fill();
                int k = Math.min(n, end - pos);
                System.arraycopy(buf, pos, b, off, k);
                pos += k;
                off += k;
                n -= k;
            }
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
