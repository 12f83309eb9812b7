package org.flagos.trace.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * A torch-compatible Chrome trace (PyTorch's own or flagtrace's), read in one streaming pass:
 * complete events of the classes in {@link EventClass} are kept in {@link TraceEvents}; flow
 * arrows, metadata and args other than the External id are skipped as they stream by. Gzip is
 * recognised by its magic bytes. Also keeps the device names ({@code deviceProperties}) and the
 * capture's accounting ({@code flagtrace} block) when the trace has them.
 */
public final class TraceFile {
    /** Events kept at most (about 40 bytes each in memory): a larger trace is refused, not truncated. */
    public static final long DEFAULT_MAX_EVENTS = 100_000_000L;

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build())
            .build();

    private final TraceEvents events;
    private final Map<String, Long> accounting;
    private final List<String> notes;
    private final List<String> devices;
    private final boolean cuda;
    private final long otherEvents;
    private final long invalidEvents;
    private final long originNs;

    private TraceFile(Reader r) {
        this.events = r.events;
        this.accounting = Collections.unmodifiableMap(r.accounting);
        this.notes = List.copyOf(r.notes);
        this.devices = List.copyOf(r.devices);
        this.cuda = r.cuda;
        this.otherEvents = r.other;
        this.invalidEvents = r.invalid;
        this.originNs = r.spanStart != Long.MAX_VALUE ? r.spanStart : r.firstStart != Long.MAX_VALUE ? r.firstStart : 0;
    }

    public static TraceFile read(Path path) throws IOException {
        return read(path, DEFAULT_MAX_EVENTS);
    }

    /** Reads {@code path}; a file that is not a whole trace ends in a {@link TraceFormatException}. */
    public static TraceFile read(Path path, long maxEvents) throws IOException {
        InputStream raw;
        try {
            raw = Files.newInputStream(path);
        } catch (NoSuchFileException e) {
            throw new TraceFormatException(path + ": no such file");
        }
        try (InputStream in = maybeGunzip(new BufferedInputStream(raw, 1 << 16));
             JsonParser p = JSON.createParser(in)) {
            Reader r = new Reader(new TraceEvents(maxEvents), path);
            r.read(p);
            return new TraceFile(r);
        } catch (TraceFormatException e) {
            throw e;
        } catch (StreamConstraintsException e) {
            throw new TraceFormatException(path + " is not a trace: " + firstLine(e.getOriginalMessage()));
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            String what = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Unexpected end-of-input")
                    ? "ends in the middle of its JSON (truncated?)" : "is not valid JSON (" + firstLine(e.getOriginalMessage()) + ")";
            throw new TraceFormatException(path + " " + what + where);
        } catch (EOFException | ZipException e) {
            throw new TraceFormatException(path + " is not a whole gzip file (" + e.getMessage() + "); truncated?");
        }
    }

    private static InputStream maybeGunzip(BufferedInputStream in) throws IOException {
        in.mark(2);
        int b0 = in.read();
        int b1 = in.read();
        in.reset();
        return b0 == 0x1f && b1 == 0x8b ? new GZIPInputStream(in, 1 << 16) : in;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    public TraceEvents events() {
        return events;
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

    /** Complete events without a usable name, ts or dur (negative or non-numeric): left out. */
    public long invalidEvents() {
        return invalidEvents;
    }

    /** One streaming pass over the document. */
    private static final class Reader {
        final TraceEvents events;
        final Path path;
        final Map<String, Long> accounting = new LinkedHashMap<>();
        final List<String> notes = new ArrayList<>();
        final List<String> devices = new ArrayList<>();
        boolean cuda;
        boolean sawEvents;
        long other;
        long invalid;
        long spanStart = Long.MAX_VALUE;
        long firstStart = Long.MAX_VALUE;

        Reader(TraceEvents events, Path path) {
            this.events = events;
            this.path = path;
        }

        void read(JsonParser p) throws IOException {
            JsonToken first = p.nextToken();
            if (first == JsonToken.START_ARRAY) { // the Chrome trace format's bare array form
                readEvents(p);
            } else if (first == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken value = p.nextToken();
                    if (field.equals("traceEvents") && value == JsonToken.START_ARRAY) {
                        readEvents(p);
                    } else if (field.equals("flagtrace") && value == JsonToken.START_OBJECT) {
                        readBlock(p, "");
                    } else if (field.equals("deviceProperties") && value == JsonToken.START_ARRAY) {
                        readDevices(p);
                    } else {
                        cuda |= field.startsWith("cuda_");
                        p.skipChildren();
                    }
                }
            } else {
                throw new TraceFormatException(path + " is not a trace: it is JSON, but not an object with traceEvents");
            }
            if (!sawEvents) {
                throw new TraceFormatException(path + " is not a trace: no traceEvents array");
            }
            if (p.nextToken() != null) {
                throw new TraceFormatException(path + " is not a trace: more JSON follows the trace document");
            }
        }

        void readEvents(JsonParser p) throws IOException {
            sawEvents = true;
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (t == JsonToken.START_OBJECT) {
                    readEvent(p);
                } else if (t == null) {
                    throw new TraceFormatException(path + " ends in the middle of its traceEvents (truncated?)");
                } else {
                    throw new TraceFormatException(path + " is not a trace: traceEvents holds a " + t.asString()
                            + " where an event object belongs (line " + p.currentLocation().getLineNr() + ")");
                }
            }
        }

        void readEvent(JsonParser p) throws IOException {
            String ph = null;
            String cat = null;
            String name = null;
            String pid = "";
            String tid = "";
            String ts = null;
            String dur = null;
            long external = TraceEvents.NO_EXTERNAL_ID;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "ph": ph = scalar(p, v); break;
                    case "cat": cat = scalar(p, v); break;
                    case "name": name = scalar(p, v); break;
                    case "pid": pid = scalar(p, v); break;
                    case "tid": tid = scalar(p, v); break;
                    case "ts": ts = scalar(p, v); break;
                    case "dur": dur = scalar(p, v); break;
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
            if (!"X".equals(ph)) {
                return;
            }
            EventClass c = EventClass.of(cat);
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
            firstStart = Math.min(firstStart, start);
            if (!events.add(c, name, pid, tid, start, length, external)) {
                throw new TraceFormatException(path + " holds more than " + events.size()
                        + " events; summarise a shorter window of it");
            }
        }

        /** A scalar's text; null for objects, arrays and null. */
        private static String scalar(JsonParser p, JsonToken v) throws IOException {
            if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
                p.skipChildren();
                return null;
            }
            return v == JsonToken.VALUE_NULL ? null : p.getText();
        }

        /** The External id among an event's args, skipping the rest. */
        private long readArgs(JsonParser p) throws IOException {
            long external = TraceEvents.NO_EXTERNAL_ID;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (field.equals("External id") && v == JsonToken.VALUE_NUMBER_INT) {
                    try {
                        external = p.getLongValue();
                    } catch (IOException e) { // beyond a long: no usable link
                        external = TraceEvents.NO_EXTERNAL_ID;
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
