package org.flagos.trace.tracefile;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.base.ParserBase;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import org.flagos.trace.model.JsonTokenKind;

/**
 * The one reader of a torch-compatible Chrome JSON trace: its top level (an object whose
 * {@code traceEvents} array holds the events, blocks before or after it; or the older bare array of
 * events), each event and every block flagtrace writes, in one streaming pass under one set of rules:
 *
 * <ul>
 *   <li>the file is one JSON document and nothing after it (read to its end, so a gzip stream's CRC is checked);</li>
 *   <li>every element of {@code traceEvents} is an object of at most {@link TraceLimits#MAX_EVENT_BYTES};</li>
 *   <li>an event's fields as {@link TraceEvent} says; its times bounded by {@link TraceLimits#MAX_TIME_NS};</li>
 *   <li>the blocks as {@link TraceBlocks} says.</li>
 * </ul>
 *
 * What breaks a rule ends in a {@link TraceFormatException} naming the file, the same words whichever
 * command reads it. Memory: the parser's buffers, one event, and what the visitor keeps.
 */
public final class TraceReader {
    /** What a walk hands its reader: each event, as it is read. */
    public interface Visitor {
        void event(TraceEvent event) throws IOException;
    }

    /**
     * What the reader keeps besides each event's fields: the rules are the same whatever it keeps.
     *
     * @param tokens  whether each event's tokens are kept, for a reader that copies events
     * @param devices whether each {@code deviceProperties} object is kept as read, for a reader that copies them
     */
    public record Options(boolean tokens, boolean devices, boolean raw) {
        /** The fields only: summary, report, tables, rank times. */
        public static final Options FIELDS = new Options(false, false, false);
        /** The blocks with their device objects: merge's offsets. */
        public static final Options FACTS = new Options(false, true, false);
        /** The fields and each event's tokens. */
        public static final Options COPY = new Options(true, false, false);
        /**
         * The blocks with their device objects, and each event's bytes as read ({@link TraceEvent#rawBytes}): merge.
         * A file the parser reads as characters (UTF-16 or UTF-32, not UTF-8) has no bytes to give: its events'
         * tokens are kept instead.
         */
        public static final Options MERGE = new Options(false, true, true);
    }

    /** The refusal of a Perfetto trace by a reader of JSON only, after the file's name. */
    public static final String PERFETTO_REFUSED = "is a Perfetto trace; this command reads JSON traces (replay the capture with"
            + " -o NAME.json for one)";

    private TraceReader() {
    }

    /**
     * Reads {@code path}, a Chrome JSON trace (gzipped or not), handing each event to {@code visitor};
     * a Perfetto trace is refused.
     *
     * @param directory what the line says after "PATH is a directory, " when {@code path} is one
     * @return the blocks around the events
     */
    public static TraceBlocks read(Path path, String directory, Options options, Visitor visitor) throws IOException {
        return TraceSource.read(path, directory, in -> {
            if (looksLikePerfetto(in)) {
                throw new TraceFormatException(path + " " + PERFETTO_REFUSED);
            }
            return walk(in, path, options, visitor);
        });
    }

    /**
     * As {@link #read(Path, String, Options, Visitor)}, from the bytes {@code raw} of the file {@code path}
     * (opened elsewhere: a Hadoop file system's stream); closes {@code raw}.
     */
    public static TraceBlocks read(InputStream raw, Path path, Options options, Visitor visitor) throws IOException {
        return TraceSource.read(path, raw, in -> {
            if (looksLikePerfetto(in)) {
                throw new TraceFormatException(path + " " + PERFETTO_REFUSED);
            }
            return walk(in, path, options, visitor);
        });
    }

    /** Walks the JSON trace {@code in} (opened by {@link TraceSource#read}) of {@code path}. */
    public static TraceBlocks walk(InputStream in, Path path, Options options, Visitor visitor) throws IOException {
        RawWindow window = options.raw() ? new RawWindow(in) : null;
        JsonParser raw = TraceSource.WALK.createParser(window != null ? window : in);
        try (JsonParser p = new DuplicateFields(raw)) {
            boolean bytes = window != null && raw instanceof com.fasterxml.jackson.core.json.UTF8StreamJsonParser;
            return new Walk(p, (ParserBase) raw, path, options, visitor, bytes ? window : null).run();
        }
    }

    /**
     * Whether the stream starts like a Perfetto trace (field 1, length-delimited: byte 0x0A) and not
     * like JSON, whose first byte may be the same newline; does not consume. JSON is told by its
     * first byte after whitespace, '{' or '[', which Perfetto never writes there (both would be
     * group markers, a wire type no packet of it uses).
     */
    public static boolean looksLikePerfetto(BufferedInputStream in) throws IOException {
        in.mark(4096);
        try {
            int first = in.read();
            if (first != 0x0A) {
                return false;
            }
            for (int i = 1; i < 4096; i++) {
                int b = in.read();
                if (b == '{' || b == '[') {
                    return false;
                }
                if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                    return true;
                }
            }
            return true;
        } finally {
            in.reset();
        }
    }

    /** One pass over one document. */
    private static final class Walk {
        final JsonParser p;
        /** The parser under {@link #p}: where its tokens start, read without a location object made per field. */
        final ParserBase base;
        final TextCache texts = new TextCache();
        final Path path;
        final Options options;
        final Visitor visitor;
        final TraceBlocks blocks;
        final TraceEvent event = new TraceEvent();
        final Recorder recorder;
        /** The bytes read, for a reader that takes each event's bytes; null otherwise. */
        final RawWindow window;
        long eventStart;

        Walk(JsonParser p, ParserBase base, Path path, Options options, Visitor visitor, RawWindow window) {
            this.p = p;
            this.base = base;
            this.path = path;
            this.options = options;
            this.visitor = visitor;
            this.blocks = new TraceBlocks(path, options.devices());
            this.window = window;
            this.recorder = options.tokens() || (options.raw() && window == null) ? new Recorder(p, this) : null;
        }

        TraceBlocks run() throws IOException {
            JsonToken first = p.nextToken();
            boolean sawEvents = false;
            if (first == JsonToken.START_ARRAY) {
                events();
                blocks.bareArray = true;
                sawEvents = true;
            } else if (first == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken value = p.nextToken();
                    if (field.equals("traceEvents") && value == JsonToken.START_ARRAY) {
                        if (sawEvents) {
                            throw new TraceFormatException(path + " is not a trace: it has two traceEvents arrays");
                        }
                        events();
                        sawEvents = true;
                    } else {
                        blocks.read(field, value, p);
                    }
                }
            } else if (first == null) { // nothing, or white space only: no format to name
                throw new TraceFormatException(path + " is not a trace: it is empty");
            } else {
                throw new TraceFormatException(path + " is not a trace: it is JSON, but not an object with traceEvents");
            }
            if (!sawEvents) {
                throw new TraceFormatException(path + " is not a trace: no traceEvents array");
            }
            if (p.nextToken() != null) { // read to the end: a gzip stream's trailer (its CRC) is checked there too
                throw new TraceFormatException(path + " is not a trace: more JSON follows the trace document");
            }
            return blocks;
        }

        private void events() throws IOException {
            JsonToken t;
            if (window != null) {
                window.keepFrom(offset());
            }
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (t == null) {
                    throw new TraceFormatException(path + " ends in the middle of its traceEvents (truncated?)");
                }
                if (t != JsonToken.START_OBJECT) {
                    throw new TraceFormatException(path + " is not a trace: traceEvents holds " + JsonTokenKind.words(t)
                            + " where an event object belongs (line " + p.currentLocation().getLineNr() + ")");
                }
                try {
                    event();
                } catch (StreamConstraintsException e) {
                    String m = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
                    if (m.contains("String value length") || m.contains("StringLength")) { // a string longer than an event may be
                        throw eventTooLong();
                    }
                    throw e;
                }
                long end = tokenStart() + 1; // after the event's closing brace
                if (end - eventStart > TraceLimits.MAX_EVENT_BYTES) {
                    throw eventTooLong();
                }
                if (window != null) {
                    if (!window.holds(eventStart, end)) {
                        throw eventTooLong(); // its first bytes went: it is longer than the window, past the event cap
                    }
                    event.rawBytes = window.buf;
                    event.rawFrom = (int) (eventStart - window.base);
                    event.rawTo = (int) (end - window.base);
                    visitor.event(event);
                    window.keepFrom(end);
                } else {
                    visitor.event(event);
                }
            }
            if (window != null) {
                window.keepFrom(RawWindow.NONE);
            }
        }

        private long offset() {
            var at = p.currentLocation();
            return at.getByteOffset() >= 0 ? at.getByteOffset() : at.getCharOffset();
        }

        /**
         * Where the parser's current token starts (as {@code currentTokenLocation()}'s offset, without the object made):
         * bytes of a UTF-8 file, characters of one read as characters.
         */
        private long tokenStart() {
            return base.getTokenCharacterOffset() - 1; // the parser counts one past the token's first character
        }

        /** Whether the event is past its bound where the parser is (the start of its current token). */
        void checkSize() throws TraceFormatException {
            if (tokenStart() - eventStart > TraceLimits.MAX_EVENT_BYTES) {
                throw eventTooLong();
            }
        }

        /** Whether the reader skipped or kept its strings, an event past the cap is refused in these words. */
        private TraceFormatException eventTooLong() {
            return new TraceFormatException(path + " is not a trace: the event on line " + event.line + " is longer than "
                    + TraceLimits.MAX_EVENT_BYTES + " bytes");
        }

        /** The event the parser is at (its START_OBJECT current), read to its end. */
        private void event() throws IOException {
            TraceEvent e = event;
            e.reset();
            e.line = base.getTokenLineNr();
            eventStart = tokenStart();
            JsonParser ep = p;
            if (recorder != null) {
                e.tokens.add(JsonToken.START_OBJECT, null);
                ep = recorder;
            }
            while (ep.nextToken() == JsonToken.FIELD_NAME) {
                String field = ep.currentName();
                JsonToken v = ep.nextToken();
                switch (field) {
                    case "ph" -> e.ph = string(ep, v);
                    case "cat" -> e.cat = string(ep, v);
                    case "name" -> e.name = string(ep, v);
                    case "pid" -> {
                        e.pid = pidText(ep, v);
                        e.pidNumber = e.pid == null ? TraceEvent.NONE : signed(ep, v);
                    }
                    case "tid" -> {
                        e.tid = pidText(ep, v);
                        e.tidNumber = e.tid == null ? TraceEvent.NONE : signed(ep, v);
                    }
                    case "ts" -> e.tsNs = time(ep, v, "ts", false);
                    case "dur" -> e.durNs = time(ep, v, "dur", true);
                    case "id" -> e.id = number(ep, v);
                    case "args" -> {
                        if (v == JsonToken.START_OBJECT) {
                            args(ep, e);
                        } else {
                            ep.skipChildren();
                        }
                    }
                    default -> ep.skipChildren();
                }
                checkSize();
            }
        }

        private void args(JsonParser ep, TraceEvent e) throws IOException {
            while (ep.nextToken() == JsonToken.FIELD_NAME) {
                String field = ep.currentName();
                JsonToken v = ep.nextToken();
                switch (field) {
                    case TraceEvent.EXTERNAL_ID, TraceEvent.EXTERNAL_ID_2021 -> e.externalId = number(ep, v);
                    case TraceEvent.CORRELATION -> e.correlation = number(ep, v);
                    case "device", "inDevice", "Device Id" -> e.device = number(ep, v); // inDevice: the device that ran a peer copy
                    case "Device Type" -> e.deviceType = number(ep, v);
                    case "stream" -> e.stream = number(ep, v);
                    case "bytes" -> e.bytes = number(ep, v);
                    case "Bytes" -> e.memoryBytes = number(ep, v);
                    case "Total Allocated" -> e.totalAllocated = number(ep, v);
                    case "Total Reserved" -> e.totalReserved = number(ep, v);
                    case "fromDevice" -> e.fromDevice = number(ep, v);
                    case "toDevice" -> e.toDevice = number(ep, v);
                    case "fromContext" -> e.fromContext = number(ep, v);
                    case "toContext" -> e.toContext = number(ep, v);
                    case "value" -> e.value = number(ep, v);
                    case "In msg nelems" -> e.inElems = number(ep, v);
                    case "Out msg nelems" -> e.outElems = number(ep, v);
                    case "Group size" -> e.groupSize = number(ep, v);
                    case "dtype" -> e.dtype = string(ep, v);
                    case "Process Group Name" -> e.processGroup = string(ep, v);
                    default -> ep.skipChildren();
                }
            }
        }

        /** A string field's text; anything else is no value. */
        private String string(JsonParser ep, JsonToken v) throws IOException {
            if (v == JsonToken.VALUE_STRING) {
                return texts.text(ep);
            }
            ep.skipChildren();
            return null;
        }

        /** A pid's or tid's text: an integer within 64 bits (signed), or a string; null for anything else. */
        private String pidText(JsonParser ep, JsonToken v) throws IOException {
            if (v == JsonToken.VALUE_STRING) {
                return texts.text(ep);
            }
            if (v == JsonToken.VALUE_NUMBER_INT && ep.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                return texts.text(ep);
            }
            ep.skipChildren();
            return null;
        }

        /** A pid's number: an integer within 64 bits (signed), or a string holding one; {@link TraceEvent#NONE} otherwise. */
        private static long signed(JsonParser ep, JsonToken v) throws IOException {
            if (v == JsonToken.VALUE_NUMBER_INT) {
                return ep.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? TraceEvent.NONE : ep.getLongValue();
            }
            return v == JsonToken.VALUE_STRING ? TraceEvent.wholeNumber(ep.getText()) : TraceEvent.NONE;
        }

        /**
         * An id: an integer or a string holding one, within 64 bits; one past a long and below 2^64 (flagtrace's unsigned
         * correlation ids) keeps its low 64 bits, as the trace walk's table does. {@link TraceEvent#NONE} otherwise.
         */
        private static long number(JsonParser ep, JsonToken v) throws IOException {
            if (v == JsonToken.VALUE_NUMBER_INT) {
                if (ep.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                    return ep.getLongValue();
                }
                java.math.BigInteger big = ep.getBigIntegerValue();
                return big.signum() > 0 && big.bitLength() <= 64 ? big.longValue() : TraceEvent.NONE;
            }
            if (v == JsonToken.VALUE_STRING) {
                return TraceEvent.wholeNumber(ep.getText());
            }
            ep.skipChildren();
            return TraceEvent.NONE;
        }

        /**
         * A time in nanoseconds: a number past {@link TraceLimits#MAX_TIME_NS} refuses the file; anything not a number,
         * or a negative duration, makes the event unusable ({@link TraceEvent#NONE}).
         */
        private long time(JsonParser ep, JsonToken v, String what, boolean duration) throws IOException {
            if (!TraceEvent.isTime(v)) {
                ep.skipChildren();
                event.unusable = true;
                return TraceEvent.NONE;
            }
            String text = ep.getText();
            long ns;
            try {
                ns = Micros.toNanos(text);
            } catch (ArithmeticException | NumberFormatException e) {
                ns = Long.MAX_VALUE;
            }
            if (ns > TraceLimits.MAX_TIME_NS || ns < -TraceLimits.MAX_TIME_NS) {
                throw new TraceFormatException(path + " is not a trace: the event on line " + event.line + " has a " + what + " of "
                        + text + " µs, beyond ±" + TraceLimits.MAX_TIME_NS + " ns");
            }
            if (duration && ns < 0) {
                event.unusable = true;
                return TraceEvent.NONE;
            }
            return ns;
        }
    }

    /**
     * The parser, each token it reads kept in the event's {@link EventTokens} (a skip reads every token), and the
     * event's size checked as it grows: what a copy keeps is bounded as it is read.
     */
    private static final class Recorder extends EveryTokenParser {
        private final Walk walk;

        Recorder(JsonParser p, Walk walk) {
            super(p);
            this.walk = walk;
        }

        @Override
        public JsonToken nextToken() throws IOException {
            JsonToken t = delegate.nextToken();
            if (t != null) {
                walk.checkSize();
                walk.event.tokens.add(t, switch (t) {
                    case FIELD_NAME -> delegate.currentName();
                    case VALUE_STRING, VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> delegate.getText();
                    default -> null;
                });
            }
            return t;
        }
    }
}
