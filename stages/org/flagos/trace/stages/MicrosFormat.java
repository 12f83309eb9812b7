package org.flagos.trace.stages;

import com.fasterxml.jackson.core.SerializableString;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Formats nanosecond offsets as microseconds with exactly three decimals ({@code 12.000},
 * {@code -0.250}), the form torch writes {@code ts} and {@code dur} in. Integer arithmetic only:
 * no rounding, no allocation. The result is ASCII bytes that Jackson copies straight into its
 * output buffer ({@link com.fasterxml.jackson.core.JsonGenerator#writeRawValue(SerializableString)}),
 * which is valid because the text is always a JSON number.
 */
final class MicrosFormat implements SerializableString {
    private final byte[] bytes = new byte[24];
    private int start;

    MicrosFormat format(long nanos) {
        boolean negative = nanos < 0;
        // |Long.MIN_VALUE| does not fit; no real timestamp offset comes near it.
        long abs = negative ? -nanos : nanos;
        long micros = abs / 1000;
        int frac = (int) (abs % 1000);
        int pos = bytes.length;
        bytes[--pos] = (byte) ('0' + frac % 10);
        bytes[--pos] = (byte) ('0' + frac / 10 % 10);
        bytes[--pos] = (byte) ('0' + frac / 100);
        bytes[--pos] = '.';
        do {
            bytes[--pos] = (byte) ('0' + micros % 10);
            micros /= 10;
        } while (micros > 0);
        if (negative) {
            bytes[--pos] = '-';
        }
        start = pos;
        return this;
    }

    @Override
    public String getValue() {
        return new String(bytes, start, bytes.length - start, StandardCharsets.US_ASCII);
    }

    @Override
    public int charLength() {
        return bytes.length - start;
    }

    @Override
    public String toString() {
        return getValue();
    }

    @Override
    public int appendUnquotedUTF8(byte[] buffer, int offset) {
        int length = bytes.length - start;
        if (offset + length > buffer.length) {
            return -1;
        }
        System.arraycopy(bytes, start, buffer, offset, length);
        return length;
    }

    @Override
    public byte[] asUnquotedUTF8() {
        return java.util.Arrays.copyOfRange(bytes, start, bytes.length);
    }

    @Override
    public char[] asQuotedChars() {
        return getValue().toCharArray();
    }

    @Override
    public byte[] asQuotedUTF8() {
        return asUnquotedUTF8();
    }

    @Override
    public int appendQuotedUTF8(byte[] buffer, int offset) {
        return appendUnquotedUTF8(buffer, offset);
    }

    @Override
    public int appendQuoted(char[] buffer, int offset) {
        return appendUnquoted(buffer, offset);
    }

    @Override
    public int appendUnquoted(char[] buffer, int offset) {
        int length = bytes.length - start;
        if (offset + length > buffer.length) {
            return -1;
        }
        for (int i = 0; i < length; i++) {
            buffer[offset + i] = (char) bytes[start + i];
        }
        return length;
    }

    @Override
    public int writeQuotedUTF8(OutputStream out) throws java.io.IOException {
        return writeUnquotedUTF8(out);
    }

    @Override
    public int writeUnquotedUTF8(OutputStream out) throws java.io.IOException {
        int length = bytes.length - start;
        out.write(bytes, start, length);
        return length;
    }

    @Override
    public int putQuotedUTF8(ByteBuffer buffer) {
        return putUnquotedUTF8(buffer);
    }

    @Override
    public int putUnquotedUTF8(ByteBuffer buffer) {
        int length = bytes.length - start;
        if (buffer.remaining() < length) {
            return -1;
        }
        buffer.put(bytes, start, length);
        return length;
    }
}
