package org.flagos.trace.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.ProcessFacts;
import org.flagos.trace.model.ProcessIdentity;

/**
 * Reads and writes {@link ProcessFacts} as JSON: the {@code NAME.process.json} a session saves beside
 * a dump, the text a journal carries, and the {@code flagtrace_process} and {@code clock_anchors}
 * parts of a trace ({@link #readIdentity}, {@link #readAnchors}).
 */
public final class ProcessFactsFile {
    private static final JsonFactory JSON = new JsonFactory();
    /** More anchors than a session takes by far: a file holding more is not one of ours. */
    static final int MAX_ANCHORS = 1_024;

    private ProcessFactsFile() {
    }

    public static void write(Path path, ProcessFacts facts) throws IOException {
        try (OutputStream out = Files.newOutputStream(path)) {
            out.write(text(facts).getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The facts as one line of JSON. */
    public static String text(ProcessFacts facts) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(bytes)) {
            facts.writeJson(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** Reads the file; a malformed one is a {@link CaptureFormatException} naming it. */
    public static ProcessFacts read(Path path) {
        InputFiles.requireRegular(path, "a process file");
        try (JsonParser p = JSON.createParser(path.toFile())) {
            return read(p, path.toString());
        } catch (IOException e) {
            throw new CaptureFormatException(path + ": cannot read (" + InputFiles.reason(e) + ")", e);
        }
    }

    /** Parses {@code text} (a journal's copy); {@code source} names it in an error. */
    public static ProcessFacts parse(String text, String source) {
        try (JsonParser p = JSON.createParser(text)) {
            return read(p, source);
        } catch (IOException e) {
            throw new CaptureFormatException(source + ": cannot read the process facts (" + e.getMessage() + ")", e);
        }
    }

    private static ProcessFacts read(JsonParser p, String source) throws IOException {
        try {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new CaptureFormatException(source + ": process facts are one JSON object");
            }
            Fields f = new Fields();
            List<ClockAnchor> anchors = List.of();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("clock_anchors")) {
                    anchors = readAnchors(p, source);
                } else {
                    f.take(p, field, value, source);
                }
            }
            return new ProcessFacts(f.identity(source), anchors);
        } catch (JsonProcessingException e) {
            throw new CaptureFormatException(source + ": not process facts (invalid JSON: " + e.getOriginalMessage() + ")");
        }
    }

    /** Reads the object the parser is at (its {@code START_OBJECT} read) as an identity. */
    public static ProcessIdentity readIdentity(JsonParser p, String source) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw new CaptureFormatException(source + ": flagtrace_process must be an object");
        }
        Fields f = new Fields();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            f.take(p, field, p.nextToken(), source);
        }
        return f.identity(source);
    }

    /** Reads the array the parser is at (its {@code START_ARRAY} read) as clock anchors. */
    public static List<ClockAnchor> readAnchors(JsonParser p, String source) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw new CaptureFormatException(source + ": clock_anchors must be an array");
        }
        List<ClockAnchor> anchors = new ArrayList<>();
        while (p.nextToken() == JsonToken.START_OBJECT) {
            if (anchors.size() == MAX_ANCHORS) {
                throw new CaptureFormatException(source + ": more than " + MAX_ANCHORS + " clock anchors");
            }
            String at = null;
            Long real = null;
            Long mono = null;
            Long trace = null;
            Long bound = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "at" -> at = value == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "realtime_ns" -> real = integer(p, value, source, field);
                    case "monotonic_ns" -> mono = integer(p, value, source, field);
                    case "trace_ns" -> trace = integer(p, value, source, field);
                    case "bound_ns" -> bound = integer(p, value, source, field);
                    default -> p.skipChildren();
                }
            }
            if (at == null || real == null || mono == null || trace == null || bound == null || bound < 0) {
                throw new CaptureFormatException(source + ": a clock anchor needs at, realtime_ns, monotonic_ns, trace_ns and bound_ns (0 or more)");
            }
            anchors.add(new ClockAnchor(at, real, mono, trace, bound));
        }
        if (p.currentToken() != JsonToken.END_ARRAY) {
            throw new CaptureFormatException(source + ": clock_anchors holds something other than objects");
        }
        return anchors;
    }

    private static long integer(JsonParser p, JsonToken value, String source, String field) throws IOException {
        if (value != JsonToken.VALUE_NUMBER_INT) {
            throw new CaptureFormatException(source + ": " + field + " must be an integer");
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) { // else Jackson's "out of range of long" reaches the message
            throw new CaptureFormatException(source + ": " + field + " must be an integer within 64 bits");
        }
        return p.getLongValue();
    }

    /** The identity's fields as they are read; unknown ones skipped. */
    private static final class Fields {
        int rank = -1;
        int world = -1;
        int localRank = -1;
        int localWorld = -1;
        String host;
        long pid = -1;
        String bootId;

        void take(JsonParser p, String field, JsonToken value, String source) throws IOException {
            switch (field) {
                case "rank" -> rank = small(p, value, source, field);
                case "world_size" -> world = small(p, value, source, field);
                case "local_rank" -> localRank = small(p, value, source, field);
                case "local_world_size" -> localWorld = small(p, value, source, field);
                case "pid" -> pid = integer(p, value, source, field);
                case "host" -> host = text(p, value, source, field);
                case "boot_id" -> bootId = text(p, value, source, field);
                default -> p.skipChildren();
            }
        }

        ProcessIdentity identity(String source) {
            try {
                return new ProcessIdentity(rank, world, localRank, localWorld, host, pid, bootId);
            } catch (IllegalArgumentException e) {
                throw new CaptureFormatException(source + ": " + e.getMessage());
            }
        }

        private static int small(JsonParser p, JsonToken value, String source, String field) throws IOException {
            long n = integer(p, value, source, field);
            if (n < 0 || n > Integer.MAX_VALUE) {
                throw new CaptureFormatException(source + ": " + field + " must be 0 or more, not " + n);
            }
            return (int) n;
        }

        private static String text(JsonParser p, JsonToken value, String source, String field) throws IOException {
            if (value != JsonToken.VALUE_STRING) {
                throw new CaptureFormatException(source + ": " + field + " must be a string");
            }
            String s = p.getText();
            if (s.length() > 255) {
                throw new CaptureFormatException(source + ": " + field + " is longer than 255 characters");
            }
            return s;
        }
    }
}
