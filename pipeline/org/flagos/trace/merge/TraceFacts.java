package org.flagos.trace.merge;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.ProcessFactsFile;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.ProcessIdentity;
import org.flagos.trace.report.TraceFormatException;
import org.flagos.trace.report.TraceTopLevel;

/**
 * What a merge needs to know of one Chrome JSON trace before copying its events: who captured it
 * (torch's {@code distributedInfo}, flagtrace's {@code flagtrace_process}), its clock anchors (in the
 * {@code flagtrace} block) and the base its {@code ts} values count from. Read in one streamed pass
 * that skips the events, since a trace may put these before or after them.
 *
 * @param path       the trace
 * @param identity   who captured; fields not said are unknown (-1, null)
 * @param anchors    the clock anchors, the start one first; empty when the trace has none
 * @param baseNs     {@code baseTimeNanoseconds}, or 0 when absent (every {@code ts} is then absolute)
 * @param bareArray  true for the old form that is the event array alone
 */
record TraceFacts(Path path, ProcessIdentity identity, List<ClockAnchor> anchors, long baseNs, boolean bareArray) {
    static final JsonFactory JSON = new JsonFactory();

    /** Reads the facts of {@code path} ({@code .gz} or not, by its first bytes). */
    static TraceFacts read(Path path) throws IOException {
        try (JsonParser p = open(path)) {
            Blocks blocks = new Blocks(path);
            if (TraceTopLevel.walk(p, path, RULES, blocks)) {
                return new TraceFacts(path, unknown(), List.of(), 0, true);
            }
            return new TraceFacts(path, identity(blocks.process, blocks.rank, blocks.world, path), blocks.anchors, blocks.base, false);
        } catch (CaptureFormatException e) {
            throw new TraceFormatException(e.getMessage());
        } catch (JsonProcessingException e) {
            throw notJson(path, e);
        } catch (IOException e) {
            if (gzipDamage(e)) {
                throw notWholeGzip(path, e);
            }
            throw e;
        }
    }

    /** Either form; the events are skipped unread, since the copy reads them (InputCopy). */
    private static final TraceTopLevel.Rules RULES = new TraceTopLevel.Rules(true, false, false,
            "is not a Chrome JSON trace (neither an object nor an array of events)", null,
            "has no traceEvents array: not a Chrome JSON trace");

    /** What the blocks around the events say. */
    private static final class Blocks implements TraceTopLevel.Visitor {
        final Path path;
        int rank = -1;
        int world = -1;
        ProcessIdentity process;
        List<ClockAnchor> anchors = List.of();
        long base;

        Blocks(Path path) {
            this.path = path;
        }

        @Override
        public void event(JsonParser p) throws IOException {
            p.skipChildren(); // not called: the rules skip the events
        }

        @Override
        public void block(String field, JsonToken value, JsonParser p) throws IOException {
            switch (field) {
                case "traceEvents" -> throw new TraceFormatException(path + ": traceEvents is not an array"); // an array is the walk's
                case "baseTimeNanoseconds" -> {
                    if (value != JsonToken.VALUE_NUMBER_INT) {
                        throw new TraceFormatException(path + ": baseTimeNanoseconds is not an integer");
                    }
                    base = p.getLongValue();
                }
                case "distributedInfo" -> {
                    if (value == JsonToken.START_OBJECT) {
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String key = p.currentName();
                            JsonToken v = p.nextToken();
                            if (key.equals("rank") && v == JsonToken.VALUE_NUMBER_INT) {
                                rank = nonNegative(p, path, "distributedInfo.rank");
                            } else if (key.equals("world_size") && v == JsonToken.VALUE_NUMBER_INT) {
                                world = nonNegative(p, path, "distributedInfo.world_size");
                            } else {
                                p.skipChildren();
                            }
                        }
                    } else {
                        p.skipChildren();
                    }
                }
                case "flagtrace_process" -> process = ProcessFactsFile.readIdentity(p, path.toString());
                case "flagtrace" -> anchors = anchorsIn(p, value, path);
                default -> p.skipChildren();
            }
        }
    }

    /** The rank: torch's {@code distributedInfo} where it says one, else {@code flagtrace_process}'s, else -1. */
    int rank() {
        return identity.rank();
    }

    /** Opens {@code path} for streaming, gunzipping it when its first bytes say gzip. */
    static JsonParser open(Path path) throws IOException {
        if (!Files.isRegularFile(path)) {
            throw new TraceFormatException(path + (Files.exists(path) ? " is not a regular file" : " does not exist"));
        }
        BufferedInputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16);
        in.mark(2);
        int b0 = in.read();
        int b1 = in.read();
        in.reset();
        InputStream body = b0 == 0x1f && b1 == 0x8b ? new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16) : in;
        return JSON.createParser(body);
    }

    /** One line for a trace that is not JSON, or ends early. */
    static TraceFormatException notJson(Path path, JsonProcessingException e) {
        String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage().lines().findFirst().orElse("");
        String what = message.startsWith("Unexpected end-of-input") ? "ends in the middle of its JSON (truncated?)"
                : "is not valid JSON (" + message + ")";
        var at = e.getLocation();
        return new TraceFormatException(path + " " + what + (at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr()));
    }

    /** A gzip stream cut short, in one line. */
    static TraceFormatException notWholeGzip(Path path, IOException e) {
        return new TraceFormatException(path + " is not a whole gzip file (" + e.getMessage() + "); truncated?");
    }

    static boolean gzipDamage(IOException e) {
        return e instanceof EOFException || e instanceof ZipException;
    }

    private static List<ClockAnchor> anchorsIn(JsonParser p, JsonToken value, Path path) throws IOException {
        if (value != JsonToken.START_OBJECT) {
            p.skipChildren();
            return List.of();
        }
        List<ClockAnchor> anchors = List.of();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken v = p.nextToken();
            if (key.equals("clock_anchors") && v == JsonToken.START_ARRAY) {
                anchors = ProcessFactsFile.readAnchors(p, path.toString());
            } else {
                p.skipChildren();
            }
        }
        return anchors;
    }

    private static int nonNegative(JsonParser p, Path path, String what) throws IOException {
        long n = p.getLongValue();
        if (n < 0 || n > Integer.MAX_VALUE) {
            throw new TraceFormatException(path + ": " + what + " must be 0 or more, not " + n);
        }
        return (int) n;
    }

    private static ProcessIdentity identity(ProcessIdentity process, int rank, int world, Path path) throws TraceFormatException {
        ProcessIdentity base = process != null ? process : unknown();
        try {
            return rank >= 0 ? base.withRank(rank, world >= 0 ? world : base.worldSize()) : base;
        } catch (IllegalArgumentException e) {
            throw new TraceFormatException(path + ": " + e.getMessage());
        }
    }

    private static ProcessIdentity unknown() {
        return new ProcessIdentity(-1, -1, -1, -1, null, -1, null);
    }
}
