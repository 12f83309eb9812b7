package org.flagos.trace.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads and writes how a window of {@code flagtrace run} ended ({@code NAME.window-end.json} beside its capture): the
 * trace's top-level fields known only when the window closes ({@code flagtrace_run_end}, {@code flagtrace_run_buffers},
 * what the injected library dropped), one JSON object of strings in the order they are written into the trace, after
 * its events. A replay of the capture reads them, so it writes the trace {@code run} wrote.
 */
public final class WindowEndFile {
    private static final JsonFactory JSON = new JsonFactory();
    /** Far more fields than a window's end has: a file holding more is not one of ours. */
    static final int MAX_FIELDS = 256;

    private WindowEndFile() {
    }

    /** Writes the fields, in their order. */
    public static void write(Path path, Map<String, String> fields) throws IOException {
        try (OutputStream out = Files.newOutputStream(path); JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            for (Map.Entry<String, String> e : fields.entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
        }
    }

    /** The fields, in the file's order; a malformed file is a {@link CaptureFormatException} naming it. */
    public static Map<String, String> read(Path path) {
        InputFiles.requireRegular(path, "a window's end file");
        Map<String, String> fields = new LinkedHashMap<>();
        try (JsonParser p = JSON.createParser(path.toFile())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new CaptureFormatException(path + ": a window's end is one JSON object of strings");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                if (p.nextToken() != JsonToken.VALUE_STRING) {
                    throw new CaptureFormatException(path + ": field " + field + " is not a string");
                }
                if (fields.put(field, p.getText()) != null) {
                    throw new CaptureFormatException(path + ": field " + field + " appears twice");
                }
                if (fields.size() > MAX_FIELDS) {
                    throw new CaptureFormatException(path + ": more than " + MAX_FIELDS + " fields: not a window's end file");
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw new CaptureFormatException(path + ": a window's end is one JSON object of strings");
            }
        } catch (JsonProcessingException e) {
            throw new CaptureFormatException(path + ": not a window's end (invalid JSON: "
                    + e.getOriginalMessage().lines().findFirst().orElse("") + ")");
        } catch (IOException e) {
            throw new CaptureFormatException(path + ": cannot read (" + InputFiles.reason(e) + ")", e);
        }
        return Collections.unmodifiableMap(fields);
    }
}
