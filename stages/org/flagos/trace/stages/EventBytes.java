package org.flagos.trace.stages;

import com.fasterxml.jackson.core.io.SerializedString;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One trace event assembled as JSON text and handed to Jackson as a single raw value. The event's
 * fixed parts are ASCII constants; every string comes quoted and escaped by Jackson itself
 * ({@link SerializedString#asQuotedUTF8()}); numbers are digits. This keeps the per-event cost to
 * one generator call: field-by-field generator calls cost about twice as much per event on the
 * hot path (measured, docs/benchmarks.md).
 */
final class EventBytes extends AsciiFragment {
    private final byte[] scratch = new byte[24];

    EventBytes() {
        super(1024);
    }

    /** ASCII bytes of a constant fragment. */
    static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    EventBytes reset() {
        from = 0;
        to = 0;
        return this;
    }

    EventBytes raw(byte[] fragment) {
        ensure(fragment.length);
        System.arraycopy(fragment, 0, bytes, to, fragment.length);
        to += fragment.length;
        return this;
    }

    /** A string, quoted and escaped by Jackson. */
    EventBytes string(SerializedString value) {
        byte[] quoted = value.asQuotedUTF8(); // cached inside the SerializedString after first use
        ensure(quoted.length + 2);
        bytes[to++] = '"';
        System.arraycopy(quoted, 0, bytes, to, quoted.length);
        to += quoted.length;
        bytes[to++] = '"';
        return this;
    }

    /** ASCII text that is already a JSON number (a cached six-decimal rendering). */
    EventBytes number(String asciiNumber) {
        int n = asciiNumber.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            bytes[to++] = (byte) asciiNumber.charAt(i);
        }
        return this;
    }

    EventBytes number(long value) {
        if (value == Long.MIN_VALUE) {
            return number(Long.toString(value));
        }
        boolean negative = value < 0;
        long v = negative ? -value : value;
        int pos = scratch.length;
        do {
            scratch[--pos] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v > 0);
        if (negative) {
            scratch[--pos] = '-';
        }
        return copyScratch(pos);
    }

    /** Nanoseconds as microseconds with three decimals. */
    EventBytes micros(long nanos) {
        return copyScratch(MicrosFormat.writeMicros(scratch, scratch.length, nanos));
    }

    /** A finite double, as Java prints it (exponent form included, which JSON allows). */
    EventBytes number(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("not a JSON number: " + value);
        }
        return number(Double.toString(value));
    }

    private EventBytes copyScratch(int pos) {
        int n = scratch.length - pos;
        ensure(n);
        System.arraycopy(scratch, pos, bytes, to, n);
        to += n;
        return this;
    }

    private void ensure(int more) {
        if (to + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, to + more));
        }
    }
}
