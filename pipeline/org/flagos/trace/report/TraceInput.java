package org.flagos.trace.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.BufferedInputStream;
import java.io.CharConversionException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * One trace file opened for a streaming read, gzipped or not, and every way it can fail said as one
 * {@link TraceFormatException} naming the file: a directory, a missing file, JSON that is invalid,
 * cut short or nested too deep, a gzip stream cut short, a limit of the reader.
 */
final class TraceInput {
    /** The JSON reader of trace files: no trace nests deeper than this, a hostile file may. */
    static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build())
            .build();

    /** What reads the file's bytes, gunzipped. */
    interface Body<T> {
        T read(BufferedInputStream in) throws IOException;
    }

    private TraceInput() {
    }

    /**
     * Reads {@code path} with {@code body}.
     *
     * @param directory what the line says after "PATH is a directory, " when {@code path} is one
     */
    static <T> T read(Path path, String directory, Body<T> body) throws IOException {
        if (Files.isDirectory(path)) {
            throw new TraceFormatException(path + " is a directory, " + directory);
        }
        InputStream raw;
        try {
            raw = Files.newInputStream(path);
        } catch (NoSuchFileException e) {
            throw new TraceFormatException(path + ": no such file");
        }
        try (BufferedInputStream in = maybeGunzip(new BufferedInputStream(raw, 1 << 16))) {
            return body.read(in);
        } catch (TraceFormatException e) {
            throw e;
        } catch (TraceLimitException e) {
            throw new TraceFormatException(path + " " + e.getMessage());
        } catch (StreamConstraintsException e) {
            throw new TraceFormatException(path + " is not a trace: " + firstLine(e.getOriginalMessage()));
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            String what = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Unexpected end-of-input")
                    ? "ends in the middle of its JSON (truncated?)" : "is not valid JSON (" + firstLine(e.getOriginalMessage()) + ")";
            throw new TraceFormatException(path + " " + what + where);
        } catch (CharConversionException e) { // Jackson took the first bytes for UTF-16 or UTF-32 and met a bad character
            throw new TraceFormatException(path + " is not valid JSON (" + firstLine(e.getMessage()) + ")");
        } catch (EOFException | ZipException e) {
            throw new TraceFormatException(path + " is not a whole gzip file (" + e.getMessage() + "); truncated?");
        }
    }

    /** A JSON parser over {@code in}. */
    static JsonParser parser(InputStream in) throws IOException {
        return JSON.createParser(in);
    }

    static BufferedInputStream maybeGunzip(BufferedInputStream in) throws IOException {
        in.mark(2);
        int b0 = in.read();
        int b1 = in.read();
        in.reset();
        return b0 == 0x1f && b1 == 0x8b ? new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16) : in;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
