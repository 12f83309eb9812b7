package org.flagos.trace.encoders;

import com.fasterxml.jackson.core.SerializableString;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A reusable run of ASCII JSON text handed to Jackson as one raw value, which Jackson copies into
 * its output buffer ({@link #appendUnquotedUTF8}). Subclasses fill {@link #bytes} in
 * {@code [from, to)} with text that is valid JSON by construction.
 */
abstract class AsciiFragment implements SerializableString {
    protected byte[] bytes;
    protected int from;
    protected int to;

    AsciiFragment(int capacity) {
        bytes = new byte[capacity];
    }

    final int length() {
        return to - from;
    }

    @Override
    public final String getValue() {
        return new String(bytes, from, to - from, StandardCharsets.UTF_8);
    }

    @Override
    public final String toString() {
        return getValue();
    }

    @Override
    public final int charLength() {
        return getValue().length();
    }

    @Override
    public final int appendUnquotedUTF8(byte[] buffer, int offset) {
        int length = to - from;
        if (offset + length > buffer.length) {
            return -1;
        }
        System.arraycopy(bytes, from, buffer, offset, length);
        return length;
    }

    @Override
    public final byte[] asUnquotedUTF8() {
        return Arrays.copyOfRange(bytes, from, to);
    }

    @Override
    public final int writeUnquotedUTF8(OutputStream out) throws IOException {
        out.write(bytes, from, to - from);
        return to - from;
    }

    @Override
    public final int putUnquotedUTF8(ByteBuffer buffer) {
        if (buffer.remaining() < to - from) {
            return -1;
        }
        buffer.put(bytes, from, to - from);
        return to - from;
    }

    @Override
    public final int appendUnquoted(char[] buffer, int offset) {
        String value = getValue();
        if (offset + value.length() > buffer.length) {
            return -1;
        }
        value.getChars(0, value.length(), buffer, offset);
        return value.length();
    }

    // The quoted forms are never used: these fragments are raw values, not strings.
    @Override
    public final char[] asQuotedChars() {
        throw new UnsupportedOperationException("raw JSON fragment");
    }

    @Override
    public final byte[] asQuotedUTF8() {
        throw new UnsupportedOperationException("raw JSON fragment");
    }

    @Override
    public final int appendQuotedUTF8(byte[] buffer, int offset) {
        throw new UnsupportedOperationException("raw JSON fragment");
    }

    @Override
    public final int appendQuoted(char[] buffer, int offset) {
        throw new UnsupportedOperationException("raw JSON fragment");
    }

    @Override
    public final int writeQuotedUTF8(OutputStream out) {
        throw new UnsupportedOperationException("raw JSON fragment");
    }

    @Override
    public final int putQuotedUTF8(ByteBuffer buffer) {
        throw new UnsupportedOperationException("raw JSON fragment");
    }
}
