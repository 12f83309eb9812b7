package org.flagos.trace.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Streams a {@code .marks.jsonl} file ({@link MarksJsonlWriter}'s lines) one mark at a time, in file order,
 * holding only the current line. Every line must be a JSON object with a string {@code name}, numbers {@code pid},
 * {@code thread} and {@code ts} (non-negative) and, optionally, a string {@code domain}; the first bad line stops
 * the read with its line number and what was wrong ({@link CaptureFormatException}).
 */
public final class MarksJsonlReader implements HostMarkCursor {
    private static final JsonFactory JSON = new JsonFactory();

    private final TextLines lines;
    private final String source;

    private MarksJsonlReader(TextLines lines, String source) {
        this.lines = lines;
        this.source = source;
    }

    /** Opens a marks file (a regular file only). */
    public static MarksJsonlReader open(Path path) {
        InputFiles.requireRegular(path, "a marks");
        try {
            InputStream in = Files.newInputStream(path);
            return new MarksJsonlReader(TextLines.of(in, path.toString()), path.toString());
        } catch (IOException e) {
            throw CaptureFormatException.reading(path, e);
        }
    }

    /** The next mark, or null after the last. */
    @Override
    public HostMark next() {
        try {
            String line;
            while ((line = lines.next()) != null) {
                if (!line.isBlank()) {
                    return parse(line, lines.number());
                }
            }
            return null;
        } catch (IOException e) {
            throw CaptureFormatException.reading(source, e);
        }
    }

    private HostMark parse(String line, int number) throws IOException {
        String name = null;
        String domain = null;
        long pid = -1;
        long thread = -1;
        long ts = -1;
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw bad(number, "not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "name" -> name = text(value, p, number, field);
                    case "domain" -> domain = text(value, p, number, field);
                    case "pid" -> pid = number(value, p, number, field);
                    case "thread" -> thread = number(value, p, number, field);
                    case "ts" -> ts = number(value, p, number, field);
                    default -> p.skipChildren(); // a later writer's field
                }
            }
            if (p.nextToken() != null) {
                throw bad(number, "content after the object");
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw bad(number, "not JSON (" + e.getOriginalMessage() + ")");
        }
        if (name == null || pid < 0 || thread < 0 || ts < 0) {
            throw bad(number, "a mark needs name, pid, thread and ts");
        }
        return new HostMark(name, domain, pid, thread, ts);
    }

    private String text(JsonToken value, JsonParser p, int number, String field) throws IOException {
        if (value != JsonToken.VALUE_STRING) {
            throw bad(number, field + " must be a string");
        }
        return p.getText();
    }

    private long number(JsonToken value, JsonParser p, int number, String field) throws IOException {
        if (value != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER || p.getLongValue() < 0) {
            throw bad(number, field + " must be a non-negative integer");
        }
        return p.getLongValue();
    }

    private CaptureFormatException bad(int number, String what) {
        return new CaptureFormatException(source + ": line " + number + ": " + what);
    }

    @Override
    public void close() {
        try {
            lines.close();
        } catch (IOException e) {
            // closing a file read to its end or abandoned
        }
    }
}
