package org.flagos.trace.encoders;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer that writes protobuf's wire format: varints, fixed64, length-delimited
 * strings and nested messages. A nested message reserves one length byte and, when it ends up
 * longer than 127 bytes, shifts its body to fit the longer varint, so nothing is encoded twice.
 */
final class ProtoBuffer {
    private static final int VARINT = 0;
    private static final int FIXED64 = 1;
    private static final int LEN = 2;
    private static final int MAX_DEPTH = 8;

    private byte[] bytes = new byte[1 << 16];
    private int size;
    private final int[] open = new int[MAX_DEPTH];
    private int depth;

    int size() {
        return size;
    }

    void clear() {
        size = 0;
        depth = 0;
    }

    void writeTo(OutputStream out) throws IOException {
        out.write(bytes, 0, size);
    }

    void uint64(int field, long value) {
        // Tag and value in one capacity check, locals for the array and position: varint was 27% of a
        // 10M-record .pftrace replay's CPU samples (JFR), a dozen and more varints per event.
        ensure(20);
        byte[] b = bytes;
        int at = putVarint(b, size, ((long) field << 3) | VARINT);
        size = putVarint(b, at, value);
    }

    /** int64 and int32 fields: two's complement as a varint (a negative value takes ten bytes). */
    void int64(int field, long value) {
        uint64(field, value);
    }

    void fixed64(int field, long value) {
        tag(field, FIXED64);
        ensure(8);
        for (int i = 0; i < 8; i++) {
            bytes[size++] = (byte) (value >>> (8 * i));
        }
    }

    void float64(int field, double value) {
        fixed64(field, Double.doubleToRawLongBits(value));
    }

    void string(int field, String value) {
        bytes(field, value.getBytes(StandardCharsets.UTF_8));
    }

    void bytes(int field, byte[] value) {
        tag(field, LEN);
        varint(value.length);
        ensure(value.length);
        System.arraycopy(value, 0, bytes, size, value.length);
        size += value.length;
    }

    /** A length-delimited field holding the ASCII text {@code [x,y,z]}, written without a String. */
    void asciiTriple(int field, long x, long y, long z) {
        begin(field);
        ensure(64);
        bytes[size++] = '[';
        decimal(x);
        bytes[size++] = ',';
        decimal(y);
        bytes[size++] = ',';
        decimal(z);
        bytes[size++] = ']';
        end();
    }

    private void decimal(long v) {
        if (v < 0) {
            bytes[size++] = '-';
            if (v == Long.MIN_VALUE) {
                byte[] text = Long.toString(v).substring(1).getBytes(StandardCharsets.US_ASCII);
                System.arraycopy(text, 0, bytes, size, text.length);
                size += text.length;
                return;
            }
            v = -v;
        }
        int start = size;
        do {
            bytes[size++] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        for (int i = start, j = size - 1; i < j; i++, j--) {
            byte t = bytes[i];
            bytes[i] = bytes[j];
            bytes[j] = t;
        }
    }

    /** Opens a nested message; every {@code begin} is closed by one {@link #end()}. */
    void begin(int field) {
        if (depth == MAX_DEPTH) {
            throw new IllegalStateException("protobuf nesting deeper than " + MAX_DEPTH);
        }
        tag(field, LEN);
        ensure(1);
        open[depth++] = size;
        size++; // one length byte reserved
    }

    void end() {
        int at = open[--depth];
        int body = size - at - 1;
        int lengthBytes = varintSize(body);
        if (lengthBytes > 1) {
            ensure(lengthBytes - 1);
            System.arraycopy(bytes, at + 1, bytes, at + lengthBytes, body);
            size += lengthBytes - 1;
        }
        int p = at;
        long v = body;
        while ((v & ~0x7FL) != 0) {
            bytes[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        bytes[p] = (byte) v;
    }

    private void tag(int field, int wireType) {
        varint(((long) field << 3) | wireType);
    }

    private void varint(long value) {
        ensure(10);
        size = putVarint(bytes, size, value);
    }

    /** Writes {@code value} as a varint at {@code at} (10 bytes must be free); returns the position after it. */
    private static int putVarint(byte[] b, int at, long value) {
        while ((value & ~0x7FL) != 0) {
            b[at++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        b[at++] = (byte) value;
        return at;
    }

    private static int varintSize(long value) {
        int n = 1;
        while ((value & ~0x7FL) != 0) {
            value >>>= 7;
            n++;
        }
        return n;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
