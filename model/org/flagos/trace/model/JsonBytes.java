package org.flagos.trace.model;

import com.fasterxml.jackson.core.io.NumberOutput;
import java.util.Arrays;

/**
 * A growing byte array that JSON text is written into without a {@code String} per value: integers
 * as ASCII digits (Jackson's {@link NumberOutput}, as the trace's events are), strings quoted
 * exactly as {@link JsonText#quotedUtf8} quotes them. Each write has a length function beside it,
 * so a caller can check what a value will take before writing it.
 * Not thread-safe.
 */
final class JsonBytes {
    private byte[] bytes;
    private int size;

    JsonBytes(int capacity) {
        bytes = new byte[capacity];
    }

    int size() {
        return size;
    }

    /** The backing array: bytes {@code [0, size())} are the text. */
    byte[] array() {
        return bytes;
    }

    void write(char c) {
        ensure(1);
        bytes[size++] = (byte) c;
    }

    void write(byte[] b, int from, int to) {
        ensure(to - from);
        System.arraycopy(b, from, bytes, size, to - from);
        size += to - from;
    }

    /** Writes {@code s}, whose characters are all ASCII, one byte each. */
    void writeAscii(String s) {
        ensure(s.length());
        for (int i = 0; i < s.length(); i++) {
            bytes[size++] = (byte) s.charAt(i);
        }
    }

    /** The characters of {@code v} in decimal, as {@link Long#toString(long)} writes it. */
    static int longLength(long v) {
        if (v < 0) {
            return v == Long.MIN_VALUE ? 20 : 1 + digits(-v);
        }
        return digits(v);
    }

    private static int digits(long v) {
        long bound = 10;
        for (int d = 1; d < 19; d++) {
            if (v < bound) {
                return d;
            }
            bound *= 10;
        }
        return 19;
    }

    /**
     * Writes {@code v}'s {@link #longLength} characters with Jackson's digit writer, the one the
     * trace's events are written with ({@code EventBytes}): one writer of decimal digits for both.
     */
    void writeLong(long v) {
        ensure(longLength(v));
        size = NumberOutput.outputLong(v, bytes, size);
    }

    /** The bytes of {@code s} as a quoted JSON string, quotes included. */
    static long quotedLength(String s) {
        return 2L + (plain(s) ? s.length() : JsonText.quotedUtf8(s).length);
    }

    /** Writes {@code s} as a quoted JSON string. */
    void writeQuoted(String s) {
        write('"');
        if (plain(s)) {
            writeAscii(s);
        } else {
            byte[] body = JsonText.quotedUtf8(s);
            write(body, 0, body.length);
        }
        write('"');
    }

    /**
     * Whether {@code s} is printable ASCII that JSON quoting leaves as it is: no control character,
     * quote or backslash (which {@link JsonText} escapes) and nothing past {@code ~} (which takes
     * more than a byte, or is DEL, left to Jackson to decide).
     */
    static boolean plain(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
                return false;
            }
        }
        return true;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
