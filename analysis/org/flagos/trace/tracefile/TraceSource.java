package org.flagos.trace.tracefile;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.BufferedInputStream;
import java.io.CharConversionException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;
import org.flagos.trace.ingest.InputFiles;

/**
 * One trace file opened for a streaming read: a directory, a missing file or something other than a
 * regular file refused by its path; gzip recognised by its magic bytes, here and nowhere else; and every
 * way the read can fail (JSON that is invalid, cut short, nested too deep, a string or number past
 * {@link TraceLimits}, a gzip stream cut short or failing its CRC) said as one
 * {@link TraceFormatException} naming the file, in words, never a library's.
 */
public final class TraceSource {
    /** The JSON reader of trace files, with {@link TraceLimits}' depth, string and number lengths. */
    public static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(TraceLimits.MAX_DEPTH)
                    .maxStringLength(TraceLimits.MAX_STRING_CHARS)
                    .maxNumberLength(TraceLimits.MAX_NUMBER_CHARS)
                    .build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION) // two values of one field: a reader would have to pick one
            .build();
    /**
     * {@link #JSON} without Jackson's duplicate detection, for the trace reader's walk, which keeps that rule itself
     * ({@link DuplicateFields}: the same refusal, without a set per object).
     */
    static final JsonFactory WALK = JSON.rebuild().disable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    /** What reads the file's bytes, gunzipped. */
    public interface Body<T> {
        T read(BufferedInputStream in) throws IOException;
    }

    private TraceSource() {
    }

    /**
     * Reads {@code path} with {@code body}.
     *
     * @param directory what the line says after "PATH is a directory, " when {@code path} is one
     */
    public static <T> T read(Path path, String directory, Body<T> body) throws IOException {
        if (Files.isDirectory(path)) {
            throw new TraceFormatException(path + " is a directory, " + directory);
        }
        String why = Files.exists(path, LinkOption.NOFOLLOW_LINKS) ? notATrace(path) : null;
        if (why != null) {
            throw new TraceFormatException(path + " " + why);
        }
        InputStream raw;
        try {
            raw = Files.newInputStream(path);
        } catch (NoSuchFileException e) {
            throw new TraceFormatException(path + ": no such file");
        }
        return read(path, raw, body);
    }

    /**
     * Why the local {@code file} is no trace file, in words after its path, or null where it is a regular file
     * (links followed): from its attributes only, nothing opened (a FIFO with no writer would block the open for
     * ever, and {@code /dev/zero} never ends). The one rule for the CLI's readers and the Spark data source.
     */
    public static String notATrace(Path file) {
        if (Files.isDirectory(file)) {
            return "is a directory, not a trace";
        }
        String why = InputFiles.notRegular(file);
        return why == null ? null : why + ": not a trace";
    }

    /**
     * Reads the trace bytes {@code raw} (a file opened elsewhere: a Hadoop file system's stream, on a Spark
     * executor) with {@code body}, under the same rules and words as {@link #read(Path, String, Body)},
     * the faults naming {@code path}; closes {@code raw}.
     */
    public static <T> T read(Path path, InputStream raw, Body<T> body) throws IOException {
        try (BufferedInputStream in = maybeGunzip(new BufferedInputStream(raw, 1 << 16))) {
            return body.read(in);
        } catch (TraceFormatException e) {
            throw e;
        } catch (StreamConstraintsException e) {
            throw new TraceFormatException(path + " " + limit(e));
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
            String what = message.startsWith("Unexpected end-of-input") ? "ends in the middle of its JSON (truncated?)"
                    : message.startsWith("Duplicate field '") ? "is not a trace: an object has its \""
                            + message.substring("Duplicate field '".length(), message.length() - 1) + "\" twice"
                    : "is not valid JSON (" + firstLine(message) + ")";
            if (message.equals("Duplicate field 'traceEvents'")) {
                throw new TraceFormatException(path + " is not a trace: it has two traceEvents arrays");
            }
            throw new TraceFormatException(path + " " + what + where);
        } catch (CharConversionException e) { // Jackson took the first bytes for UTF-16 or UTF-32 and met a bad character
            throw new TraceFormatException(path + " is not valid JSON (" + firstLine(e.getMessage()) + ")");
        } catch (EOFException e) { // cut inside the deflate data ("Unexpected end of ZLIB input stream") or its trailer: one fault, one line
            throw new TraceFormatException(path + " is not a whole gzip file (it ends early); truncated?");
        } catch (ZipException e) {
            throw new TraceFormatException(path + " is not a whole gzip file (" + (e.getMessage() == null ? "it is damaged"
                    : e.getMessage()) + "); truncated?");
        }
    }

    /** A JSON parser over {@code in}, under {@link TraceLimits}. */
    public static JsonParser parser(InputStream in) throws IOException {
        return JSON.createParser(in);
    }

    /** {@code in}, gunzipped when its first two bytes are gzip's magic. */
    static BufferedInputStream maybeGunzip(BufferedInputStream in) throws IOException {
        in.mark(2);
        int b0 = in.read();
        int b1 = in.read();
        in.reset();
        return b0 == 0x1f && b1 == 0x8b ? new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16) : in;
    }

    /** A limit of the JSON reader in the words of {@link TraceLimits}, never the library's API names. */
    private static String limit(StreamConstraintsException e) {
        String m = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        JsonLocation at = e.getLocation();
        String where = at == null || at.getLineNr() < 0 ? "" : " (line " + at.getLineNr() + ")";
        if (m.contains("nesting depth") || m.contains("NestingDepth")) {
            return "is not a trace: it nests JSON more than " + TraceLimits.MAX_DEPTH + " levels deep" + where;
        }
        if (m.contains("String value length") || m.contains("StringLength")) {
            return "is not a trace: it holds a string of more than " + TraceLimits.MAX_STRING_CHARS + " characters" + where;
        }
        if (m.contains("Number value length") || m.contains("NumberLength")) {
            return "is not a trace: it holds a number of more than " + TraceLimits.MAX_NUMBER_CHARS + " digits" + where;
        }
        return "is not a trace: it passes a limit of the trace reader" + where;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
