package org.flagos.trace.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;

/**
 * Reads an {@code .ops.jsonl} file: a {@code window_start} line, op lines, a {@code window_end}
 * line. Every line must be a JSON object of the expected shape; the first bad line stops the read
 * with its line number and what was wrong.
 */
public final class OpsJsonlReader {
    private static final JsonFactory JSON = new JsonFactory();

    /** Reads a whole ops file into memory (tests, small files); a replay uses {@link #scan(Path)}. */
    public static HostOps read(Path path) {
        try (TextLines in = lines(path)) {
            return read(in, path.toString());
        } catch (NoSuchFileException e) {
            throw new CaptureFormatException(path + ": no such file");
        } catch (IOException e) {
            throw new CaptureFormatException(path + ": cannot read (" + InputFiles.reason(e) + ")", e);
        }
    }

    /**
     * Checks a whole ops file in one streamed pass, holding no op ({@link IdRuns} for the
     * duplicate-id check), and returns a view that streams its ops again for a replay. Errors are
     * the same one-line errors {@link #read(Path)} gives, before anything is replayed.
     */
    public static OpsJsonlFile scan(Path path) {
        try (TextLines in = lines(path)) {
            IdRuns ids = new IdRuns();
            long[] counts = new long[3]; // ops, ending before the window, latest start
            counts[2] = Long.MIN_VALUE;
            long[] window = pass(in, path.toString(), (op, number, windowStart) -> {
                if (!ids.add(op.externalId().value())) {
                    throw bad(path.toString(), number, "external_id " + op.externalId().value() + " was already used on line "
                            + firstLineOf(path, op.externalId().value())
                            + ": each op needs its own id, or its device time would be counted once per op");
                }
                counts[0]++;
                if (op.endNs() < windowStart) {
                    counts[1]++;
                }
                counts[2] = Math.max(counts[2], op.startNs());
            });
            long outside = counts[1];
            if (counts[2] > window[1]) { // rare: ops that start after the window; count them in a second pass
                outside += startingAfter(path, window[0], window[1]);
            }
            List<String> warnings = new ArrayList<>(HostOpsCheck.warnings(counts[0], outside, window[0], window[1]));
            if (ids.givenUp() > 0) {
                warnings.add("the duplicate external_id check stopped at op " + ids.givenUp() + ": ids too scattered to track in "
                        + IdRuns.MAX_RUNS + " runs; later ops were not checked");
            }
            return new OpsJsonlFile(path, window[0], window[1], counts[0], List.copyOf(warnings));
        } catch (IOException e) {
            throw CaptureFormatException.reading(path, e);
        }
    }

    /**
     * The lines of an ops file ({@code .gz} inflated as read), bounded and strict UTF-8
     * ({@link TextLines}); only a regular file is opened.
     */
    static TextLines lines(Path path) throws IOException {
        InputFiles.requireRegular(path, "an ops");
        InputStream file = Files.newInputStream(path);
        try {
            return TextLines.of(path.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(file, 1 << 16) : file,
                    path.toString());
        } catch (IOException e) {
            file.close();
            throw e;
        }
    }

    static BufferedReader open(Path path) throws IOException {
        return new BufferedReader(new InputStreamReader(
                path.getFileName().toString().endsWith(".gz")
                        ? new GZIPInputStream(Files.newInputStream(path), 1 << 16) : Files.newInputStream(path),
                StandardCharsets.UTF_8), 1 << 16);
    }

    static HostOps read(BufferedReader in, String source) throws IOException {
        return read(TextLines.of(in, source), source);
    }

    private static HostOps read(TextLines in, String source) throws IOException {
        List<HostOp> ops = new ArrayList<>();
        java.util.Map<Long, Integer> lineOfId = new java.util.HashMap<>();
        long[] window = pass(in, source, (op, number, windowStart) -> {
            Integer earlier = lineOfId.putIfAbsent(op.externalId().value(), number);
            if (earlier != null) {
                throw bad(source, number, "external_id " + op.externalId().value() + " was already used on line " + earlier
                        + ": each op needs its own id, or its device time would be counted once per op");
            }
            ops.add(op);
        });
        long outside = 0;
        for (HostOp op : ops) {
            outside += HostOpsCheck.outside(op, window[0], window[1]) ? 1 : 0;
        }
        return new HostOps(window[0], window[1], List.copyOf(ops),
                HostOpsCheck.warnings(ops.size(), outside, window[0], window[1]));
    }

    /** What a pass does with each op line. */
    @FunctionalInterface
    private interface OpLine {
        void accept(HostOp op, int number, long windowStart) throws IOException;
    }

    /** Reads every line, checking the file's shape; hands each op over; returns {window start, window end}. */
    private static long[] pass(TextLines in, String source, OpLine each) throws IOException {
        Long windowStart = null;
        Long windowEnd = null;
        boolean anyOp = false;
        String line;
        int number = 0;
        while ((line = in.next()) != null) {
            number = in.number();
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
                if (windowStart != null || anyOp) {
                    throw bad(source, number, "window_start must be the first line, once");
                }
                windowStart = parsed.windowStart;
            } else if (parsed.windowEnd != null) {
                windowEnd = parsed.windowEnd;
            } else {
                if (windowStart == null) {
                    throw bad(source, number, "op line before the window_start line");
                }
                each.accept(parsed.op(source, number), number, windowStart);
                anyOp = true;
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
        return new long[] {windowStart, windowEnd};
    }

    /** The line that first used {@code externalId}: looked up again only to word an error. */
    private static int firstLineOf(Path path, long externalId) throws IOException {
        try (TextLines in = lines(path)) {
            int[] found = {-1};
            try {
                pass(in, path.toString(), (op, number, windowStart) -> {
                    if (op.externalId().value() == externalId) {
                        found[0] = number;
                        throw new Found();
                    }
                });
            } catch (Found done) {
                return found[0];
            }
            return found[0];
        }
    }

    /** Ends a look-up pass early. */
    private static final class Found extends RuntimeException {
        Found() {
            super(null, null, false, false);
        }
    }

    private static long startingAfter(Path path, long windowStart, long windowEnd) throws IOException {
        try (TextLines in = lines(path)) {
            long[] n = {0};
            pass(in, path.toString(), (op, number, ws) -> {
                if (op.endNs() >= windowStart && op.startNs() > windowEnd) {
                    n[0]++;
                }
            });
            return n[0];
        }
    }

    /**
     * Streams the op lines of a file already checked by {@link #scan(Path)}: one parser over the
     * whole file (no string per line), each root object read field by field.
     */
    static HostOpCursor cursor(Path path) {
        final JsonParser parser;
        try {
            InputFiles.requireRegular(path, "an ops");
            parser = JSON.createParser(open(path));
        } catch (IOException e) {
            throw new CaptureFormatException(path + ": cannot read (" + InputFiles.reason(e) + ")", e);
        }
        return new HostOpCursor() {
            @Override
            public HostOp next() {
                try {
                    JsonToken root;
                    while ((root = parser.nextToken()) != null) {
                        if (root != JsonToken.START_OBJECT) {
                            throw changed();
                        }
                        HostOp op = op();
                        if (op != null) {
                            return op;
                        }
                    }
                    return null;
                } catch (IOException e) {
                    throw new CaptureFormatException(path + ": cannot read (" + InputFiles.reason(e) + ")", e);
                }
            }

            /** The op of the object the parser is in, or null for a window line. */
            private HostOp op() throws IOException {
                String name = null;
                String threadName = null;
                long externalId = -1;
                long thread = HostOp.NO_THREAD;
                long start = -1;
                long end = -1;
                OpArgs args = null;
                OpStack stack = null;
                boolean annotation = false;
                boolean window = false;
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String field = parser.currentName();
                    JsonToken value = parser.nextToken();
                    switch (field) {
                        case "name": name = parser.getText(); break;
                        case "thread_name": threadName = parser.getText(); break;
                        case "external_id": externalId = parser.getLongValue(); break;
                        case "thread": thread = parser.getLongValue(); break;
                        case "start": start = parser.getLongValue(); break;
                        case "end": end = parser.getLongValue(); break;
                        case "args":
                            try {
                                args = OpDetailJson.readArgs(parser);
                            } catch (IllegalArgumentException e) {
                                throw changed();
                            }
                            break;
                        case "stack":
                            try {
                                stack = OpDetailJson.readStack(parser);
                            } catch (IllegalArgumentException e) {
                                throw changed();
                            }
                            break;
                        case "annotation":
                            if (!value.isBoolean()) {
                                throw changed();
                            }
                            annotation = value == JsonToken.VALUE_TRUE;
                            break;
                        case "window_start":
                        case "window_end": window = true; break;
                        default:
                            if (value.isStructStart()) {
                                parser.skipChildren();
                            }
                    }
                }
                if (window) {
                    return null;
                }
                if (name == null || externalId < 0 || start < 0 || end < start) {
                    throw changed();
                }
                return new HostOp(name, new ExternalId(externalId), thread, start, end, threadName, args, stack, annotation);
            }

            private CaptureFormatException changed() {
                return new CaptureFormatException(path + ": changed after it was checked (near line "
                        + parser.currentLocation().getLineNr() + ")");
            }

            @Override
            public void close() {
                try {
                    parser.close();
                } catch (IOException e) {
                    // nothing was written from this reader; closing it cannot lose data
                }
            }
        };
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
                    case "args":
                    case "stack":
                        try {
                            if (field.equals("args")) {
                                line.args = OpDetailJson.readArgs(p);
                            } else {
                                line.stack = OpDetailJson.readStack(p);
                            }
                        } catch (IllegalArgumentException e) {
                            throw bad(source, number, e.getMessage());
                        }
                        break;
                    case "annotation":
                        if (!value.isBoolean()) {
                            throw bad(source, number, "\"annotation\" must be true or false");
                        }
                        line.annotation = value == JsonToken.VALUE_TRUE;
                        break;
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
        OpArgs args;
        OpStack stack;
        boolean annotation;

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
                    threadName, args, stack, annotation);
        }
    }

    private OpsJsonlReader() {
    }
}
