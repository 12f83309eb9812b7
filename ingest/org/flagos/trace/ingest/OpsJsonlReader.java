package org.flagos.trace.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.pipeline.ExternalId;

/**
 * Reads an {@code .ops.jsonl} file: a {@code window_start} line, op lines, a {@code window_end}
 * line. Every line must be a JSON object of the expected shape; the first bad line stops the read
 * with its line number and what was wrong.
 */
public final class OpsJsonlReader {
    private static final JsonFactory JSON = new JsonFactory();

    public static HostOps read(Path path) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                path.getFileName().toString().endsWith(".gz")
                        ? new GZIPInputStream(Files.newInputStream(path)) : Files.newInputStream(path),
                StandardCharsets.UTF_8))) {
            return read(in, path.toString());
        } catch (NoSuchFileException e) {
            throw new CaptureFormatException(path + ": no such file");
        } catch (IOException e) {
            throw new CaptureFormatException(path + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    static HostOps read(BufferedReader in, String source) throws IOException {
        Long windowStart = null;
        Long windowEnd = null;
        List<HostOp> ops = new ArrayList<>();
        java.util.Map<Long, Integer> lineOfId = new java.util.HashMap<>();
        String line;
        int number = 0;
        while ((line = in.readLine()) != null) {
            number++;
            if (line.isBlank()) {
                continue;
            }
            if (windowEnd != null) {
                throw bad(source, number, "content after the window_end line");
            }
            Line parsed = parse(line, source, number);
            if (parsed.windowStart != null && parsed.windowStart < 0 || parsed.windowEnd != null && parsed.windowEnd < 0) {
                throw bad(source, number, "window times must be non-negative (UNIX-epoch nanoseconds)");
            }
            if (parsed.windowStart != null) {
                if (windowStart != null || !ops.isEmpty()) {
                    throw bad(source, number, "window_start must be the first line, once");
                }
                windowStart = parsed.windowStart;
            } else if (parsed.windowEnd != null) {
                windowEnd = parsed.windowEnd;
            } else {
                if (windowStart == null) {
                    throw bad(source, number, "op line before the window_start line");
                }
                HostOp op = parsed.op(source, number);
                Integer earlier = lineOfId.putIfAbsent(op.externalId().value(), number);
                if (earlier != null) {
                    throw bad(source, number, "external_id " + op.externalId().value() + " was already used on line " + earlier
                            + ": each op needs its own id, or its device time would be counted once per op");
                }
                ops.add(op);
            }
        }
        if (windowStart == null) {
            throw new CaptureFormatException(source + ": no window_start line (empty or not an ops file)");
        }
        if (windowEnd == null) {
            throw new CaptureFormatException(source + ": no window_end line: the file is truncated");
        }
        if (windowEnd < windowStart) {
            throw new CaptureFormatException(source + ": window_end " + windowEnd + " precedes window_start " + windowStart);
        }
        return new HostOps(windowStart, windowEnd, List.copyOf(ops), HostOpsCheck.warnings(new ArrayList<>(ops), windowStart, windowEnd));
    }

    private static Line parse(String text, String source, int number) throws IOException {
        Line line = new Line();
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw bad(source, number, "not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "window_start": line.windowStart = integer(p, value, field, source, number); break;
                    case "window_end": line.windowEnd = integer(p, value, field, source, number); break;
                    case "external_id": line.externalId = integer(p, value, field, source, number); break;
                    case "thread": line.thread = integer(p, value, field, source, number); break;
                    case "thread_name": line.threadName = text(p, value, field, source, number); break;
                    case "start": line.start = integer(p, value, field, source, number); break;
                    case "end": line.end = integer(p, value, field, source, number); break;
                    case "name":
                        if (value != JsonToken.VALUE_STRING) {
                            throw bad(source, number, "\"name\" must be a string");
                        }
                        line.name = p.getText();
                        break;
                    default:
                        p.skipChildren(); // fields added by later writers are ignored
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw bad(source, number, "not a single JSON object");
            }
        } catch (JsonParseException e) {
            throw bad(source, number, "invalid JSON (" + e.getOriginalMessage() + ")");
        }
        return line;
    }

    private static String text(JsonParser p, JsonToken value, String field, String source, int number) throws IOException {
        if (value != JsonToken.VALUE_STRING) {
            throw bad(source, number, "\"" + field + "\" must be a string");
        }
        return p.getText();
    }

    private static long integer(JsonParser p, JsonToken value, String field, String source, int number) throws IOException {
        if (value != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw bad(source, number, "\"" + field + "\" must be an integer that fits in 64 bits");
        }
        return p.getLongValue();
    }

    private static CaptureFormatException bad(String source, int number, String why) {
        return new CaptureFormatException(source + ":" + number + ": " + why);
    }

    private static final class Line {
        Long windowStart;
        Long windowEnd;
        Long externalId;
        Long thread;
        String threadName;
        Long start;
        Long end;
        String name;

        HostOp op(String source, int number) {
            if (name == null || externalId == null || start == null || end == null) {
                throw bad(source, number, "an op line needs name, external_id, start and end");
            }
            if (externalId < 0) {
                throw bad(source, number, "external_id must be non-negative");
            }
            if (start < 0 || end < 0) {
                throw bad(source, number, "start and end must be non-negative (UNIX-epoch nanoseconds)");
            }
            if (end < start) {
                throw bad(source, number, "op ends before it starts");
            }
            if (thread != null && thread < 0) {
                throw bad(source, number, "thread must be non-negative");
            }
            return new HostOp(name, new ExternalId(externalId), thread == null ? HostOp.NO_THREAD : thread, start, end,
                    threadName);
        }
    }

    private OpsJsonlReader() {
    }
}
