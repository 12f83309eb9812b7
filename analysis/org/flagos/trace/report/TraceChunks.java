package org.flagos.trace.report;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import org.flagos.trace.tracefile.TraceSource;

/**
 * Where a plain (not gzipped) UTF-8 JSON trace file can be cut into chunks of whole events, for reading on
 * several threads ({@link ChunkedTraceRead}). Each cut is the comma between two elements of the trace's
 * {@code traceEvents} array (or of the bare array).
 *
 * <p>The first cut is found by parsing the start of the file (so it is known to lie between two events of
 * the one events array); the others by looking at the bytes near each chunk's end for a comma between a
 * {@code &#125;} and a {@code &#123;}, which could also lie inside a string or inside an event. Such a cut is
 * never trusted: every chunk is read as a document of its own, and a chunk that is not a well-formed list of
 * values makes the whole file be read on one thread. A chunk that is one shows that its closing cut lies where
 * its opening one does, between two elements of the events array (by induction from the first cut).
 */
final class TraceChunks {
    /** How the file is cut: where, and what the first chunk holds. */
    record Plan(boolean bareArray, int headEvents, long[] cuts, long size) {
        /** Chunks read on their own: the stretches between consecutive cuts. */
        int middleChunks() {
            return cuts.length - 1;
        }
    }

    /** How far past a chunk's end a cut is looked for, at most, before the chunks stop (the rest goes to the last). */
    static final int SEARCH_BYTES = 1 << 20;

    private TraceChunks() {
    }

    /**
     * The cuts of {@code file} ({@code size} bytes), about {@code chunkBytes} apart, the first past
     * {@code headBytes}; null when the file cannot be cut (gzip, not UTF-8 JSON, no events array found near its
     * start, too few events).
     */
    static Plan plan(FileChannel file, long size, long headBytes, long chunkBytes) throws IOException {
        byte[] start = read(file, 0, 4);
        int at = start.length >= 3 && (start[0] & 0xFF) == 0xEF && (start[1] & 0xFF) == 0xBB && (start[2] & 0xFF) == 0xBF ? 3 : 0;
        byte[] first = read(file, at, 64);
        int i = 0;
        while (i < first.length && whitespace(first[i])) {
            i++;
        }
        if (i == first.length || (first[i] != '{' && first[i] != '[')) {
            return null; // gzip, Perfetto, UTF-16 or -32, or not JSON: read as it is, by the one reader
        }
        boolean bare = first[i] == '[';
        long[] head = head(file, size, bare, headBytes);
        if (head == null) {
            return null;
        }
        long[] cuts = new long[16];
        cuts[0] = head[0];
        int n = 1;
        long last = head[0];
        while (last + chunkBytes + chunkBytes / 2 < size) {
            long cut = cutFrom(file, last + chunkBytes, size);
            if (cut < 0) {
                break;
            }
            if (n == cuts.length) {
                cuts = Arrays.copyOf(cuts, 2 * n);
            }
            cuts[n++] = cut;
            last = cut;
        }
        return n < 2 ? null : new Plan(bare, (int) head[1], Arrays.copyOf(cuts, n), size);
    }

    /**
     * The first cut, found by parsing: the comma after the first event that ends past {@code headBytes}, and the
     * events before it; null where the parse finds anything but events there (another reader says why).
     */
    private static long[] head(FileChannel file, long size, boolean bare, long headBytes) throws IOException {
        try (InputStream in = new FileRange(file, 0, size); JsonParser p = TraceSource.parser(in)) {
            if (!bare) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    return null;
                }
                while (true) {
                    if (p.nextToken() != JsonToken.FIELD_NAME) {
                        return null;
                    }
                    boolean events = p.currentName().equals("traceEvents");
                    JsonToken v = p.nextToken();
                    if (events) {
                        if (v != JsonToken.START_ARRAY) {
                            return null;
                        }
                        break;
                    }
                    p.skipChildren();
                    if (p.currentLocation().getByteOffset() > headBytes + SEARCH_BYTES) {
                        return null; // blocks this long before the events: not worth the cut
                    }
                }
            } else if (p.nextToken() != JsonToken.START_ARRAY) {
                return null;
            }
            long events = 0;
            Window window = new Window(file);
            while (true) {
                JsonToken t = p.nextToken();
                if (t != JsonToken.START_OBJECT) {
                    return null;
                }
                p.skipChildren();
                events++;
                long end = p.currentLocation().getByteOffset();
                if (end < 1 || window.at(end - 1) != '}') {
                    return null;
                }
                if (end >= headBytes) {
                    long comma = skipWhitespace(file, end, size);
                    if (comma < 0 || read(file, comma, 1)[0] != ',' || events > Integer.MAX_VALUE) {
                        return null;
                    }
                    return new long[] {comma, events};
                }
            }
        } catch (IOException e) {
            return null; // the one reader says what is wrong, in its words
        }
    }

    /** A file's bytes read a block at a time, for looking at one byte after another near each other. */
    private static final class Window {
        private static final int BLOCK = 1 << 16;
        private final FileChannel file;
        private byte[] bytes = new byte[0];
        private long from = -1;

        Window(FileChannel file) {
            this.file = file;
        }

        /** The byte at {@code at}, which the file holds. */
        byte at(long at) throws IOException {
            if (from < 0 || at < from || at >= from + bytes.length) {
                from = at;
                bytes = read(file, at, BLOCK);
                if (bytes.length == 0) {
                    throw new IOException("the file ended early");
                }
            }
            return bytes[(int) (at - from)];
        }
    }

    /** The first comma at or after {@code from} between a closing and an opening brace (white space aside), or -1. */
    static long cutFrom(FileChannel file, long from, long size) throws IOException {
        int window = 1 << 12; // most cuts lie within an event or two: a small read first, then larger ones
        for (long at = from; at < from + SEARCH_BYTES && at < size; at += window, window = 1 << 16) {
            long lo = Math.max(0, at - 64);
            byte[] b = read(file, lo, (int) Math.min(window + 128, size - lo));
            int begin = (int) (at - lo);
            int end = Math.min(b.length, begin + window);
            for (int i = begin; i < end; i++) {
                if (b[i] != ',') {
                    continue;
                }
                int before = i - 1;
                while (before >= 0 && whitespace(b[before])) {
                    before--;
                }
                int after = i + 1;
                while (after < b.length && whitespace(b[after])) {
                    after++;
                }
                if (before >= 0 && b[before] == '}' && after < b.length && b[after] == '{') {
                    return lo + i;
                }
            }
        }
        return -1;
    }

    private static long skipWhitespace(FileChannel file, long at, long size) throws IOException {
        while (at < size) {
            byte[] b = read(file, at, (int) Math.min(4096, size - at));
            for (int i = 0; i < b.length; i++) {
                if (!whitespace(b[i])) {
                    return at + i;
                }
            }
            at += b.length;
        }
        return -1;
    }

    static boolean whitespace(byte b) {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }

    /** Up to {@code n} bytes of {@code file} from {@code at} (fewer at its end). */
    static byte[] read(FileChannel file, long at, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            int got = file.read(b, at + b.position());
            if (got < 0) {
                break;
            }
        }
        return Arrays.copyOf(b.array(), b.position());
    }
}
