package org.flagos.trace.ingest;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The lines of a text input (an ops file, a kernel name table), each at most {@link #MAX_LINE_BYTES}
 * long and strict UTF-8: a value read from input never sizes memory unchecked, so a file of one
 * endless line fails at the limit with its line number instead of filling the heap, and bytes that
 * are not UTF-8 are an error naming their line instead of being replaced silently. A line ends at
 * {@code \n}; a {@code \r} before it is dropped.
 */
public final class TextLines implements Closeable {
    /** The longest line read: 1 MiB, far above any op or kernel name a profiler writes. */
    public static final int MAX_LINE_BYTES = 1 << 20;

    private final InputStream bytes;
    private final Reader chars;
    private final String source;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    private final byte[] buffer = new byte[1 << 16];
    private int at;
    private int end;
    private byte[] line = new byte[256];
    private int number;

    private TextLines(InputStream bytes, Reader chars, String source) {
        this.bytes = bytes;
        this.chars = chars;
        this.source = source;
    }

    /** Lines of UTF-8 bytes; errors name {@code source}. */
    public static TextLines of(InputStream in, String source) {
        return new TextLines(in, null, source);
    }

    /** Lines of text already decoded (tests, fuzzing); the limit counts characters. */
    public static TextLines of(Reader in, String source) {
        return new TextLines(null, in, source);
    }

    /** The next line without its terminator, or null at the end of the input. */
    public String next() throws IOException {
        return bytes != null ? nextOfBytes() : nextOfChars();
    }

    /** One-based number of the line last returned. */
    public int number() {
        return number;
    }

    private String nextOfBytes() throws IOException {
        int length = 0;
        boolean any = false;
        while (true) {
            if (at == end) {
                end = bytes.read(buffer, 0, buffer.length);
                at = 0;
                if (end <= 0) {
                    end = 0;
                    if (!any) {
                        return null;
                    }
                    break;
                }
            }
            any = true;
            int newline = -1;
            for (int i = at; i < end; i++) {
                if (buffer[i] == '\n') {
                    newline = i;
                    break;
                }
            }
            int take = (newline < 0 ? end : newline) - at;
            if (length + take > MAX_LINE_BYTES) {
                throw tooLong(number + 1);
            }
            if (length + take > line.length) {
                line = java.util.Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, Math.max(length + take, line.length * 2)));
            }
            System.arraycopy(buffer, at, line, length, take);
            length += take;
            at += take;
            if (newline >= 0) {
                at++; // the \n
                break;
            }
        }
        number++;
        if (length > 0 && line[length - 1] == '\r') {
            length--;
        }
        return decode(length);
    }

    private String decode(int length) {
        boolean ascii = true;
        for (int i = 0; i < length && ascii; i++) {
            ascii = line[i] >= 0;
        }
        if (ascii) {
            return new String(line, 0, length, StandardCharsets.US_ASCII);
        }
        try {
            return utf8.reset().decode(ByteBuffer.wrap(line, 0, length)).toString();
        } catch (CharacterCodingException e) {
            throw new CaptureFormatException(source + ":" + number + ": not UTF-8 text (bytes that no UTF-8 character"
                    + " encodes); save the file as UTF-8");
        }
    }

    private String nextOfChars() throws IOException {
        StringBuilder text = new StringBuilder();
        int c;
        boolean any = false;
        while ((c = chars.read()) >= 0) {
            any = true;
            if (c == '\n') {
                break;
            }
            if (text.length() == MAX_LINE_BYTES) {
                throw tooLong(number + 1);
            }
            text.append((char) c);
        }
        if (!any) {
            return null;
        }
        number++;
        int length = text.length();
        if (length > 0 && text.charAt(length - 1) == '\r') {
            text.setLength(length - 1);
        }
        return text.toString();
    }

    private CaptureFormatException tooLong(int at) {
        return new CaptureFormatException(source + ":" + at + ": a line longer than " + MAX_LINE_BYTES + " bytes (1 MiB,"
                + " the most a line may hold); is this the right file?");
    }

    @Override
    public void close() throws IOException {
        if (bytes != null) {
            bytes.close();
        } else {
            chars.close();
        }
    }
}
