package org.flagos.trace.encoders;

import com.fasterxml.jackson.core.io.NumberOutput;
import com.fasterxml.jackson.core.io.SerializedString;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Trace events assembled as JSON text, one after another in one large buffer that the sink hands to
 * its stream whole ({@link ChromeJsonSink}). The event's fixed parts are ASCII constants; every
 * string comes quoted and escaped by Jackson itself ({@link SerializedString#asQuotedUTF8()},
 * {@link org.flagos.trace.model.JsonText#quotedUtf8}); numbers are digits. {@link #reset()} starts
 * the buffer afresh with one event (the first of a document goes to Jackson as one raw value, and
 * tests read single numbers that way); {@link #next()} starts the next event after the ones already
 * gathered, behind a comma.
 */
final class EventBytes extends AsciiFragment {
    private static final int REPEATED_BITS = 6;
    private static final int MAX_DIGITS = 20; // Long.MIN_VALUE: a sign and 19 digits

    /** The three digits of 0..999, zeros included: {@code 007} at 21..23. */
    private static final byte[] TRIPLETS = new byte[3000];

    static {
        for (int i = 0; i < 1000; i++) {
            TRIPLETS[i * 3] = (byte) ('0' + i / 100);
            TRIPLETS[i * 3 + 1] = (byte) ('0' + i / 10 % 10);
            TRIPLETS[i * 3 + 2] = (byte) ('0' + i % 10);
        }
    }

    private final long[] repeatedValue = new long[1 << REPEATED_BITS];
    private final byte[] repeatedLength = new byte[1 << REPEATED_BITS]; // 0: empty
    private final byte[] repeatedDigits = new byte[MAX_DIGITS << REPEATED_BITS];
    private final RowFields rows = new RowFields();
    private long lastUnsigned;
    private int lastUnsignedLength; // 0: none yet
    private final byte[] lastUnsignedDigits = new byte[MAX_DIGITS];

    /** A buffer for single events (tests). */
    EventBytes() {
        this(1024);
    }

    /** A buffer of {@code capacity} bytes, grown only for an event larger than what is left. */
    EventBytes(int capacity) {
        super(capacity);
    }

    /** ASCII bytes of a constant fragment. */
    static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** Empties the buffer and starts an event at its start. */
    EventBytes reset() {
        from = 0;
        to = 0;
        return this;
    }

    /** Starts an event after those gathered, behind a comma (the events are an array's elements). */
    EventBytes next() {
        ensure(1);
        from = to;
        bytes[to++] = ',';
        return this;
    }

    /** Bytes gathered since the last {@link #reset()}. */
    int size() {
        return to;
    }

    /** The buffer: its first {@link #size()} bytes are the events gathered. */
    byte[] buffer() {
        return bytes;
    }

    EventBytes raw(byte[] fragment) {
        ensure(fragment.length);
        System.arraycopy(fragment, 0, bytes, to, fragment.length);
        to += fragment.length;
        return this;
    }

    /** {@code length} bytes of {@code fragment} from {@code from}. */
    EventBytes raw(byte[] fragment, int from, int length) {
        ensure(length);
        System.arraycopy(fragment, from, bytes, to, length);
        to += length;
        return this;
    }

    /** A string, quoted and escaped by Jackson. */
    EventBytes string(SerializedString value) {
        return string(value.asQuotedUTF8()); // cached inside the SerializedString after first use
    }

    /** A string value from its quoted UTF-8 body ({@link org.flagos.trace.model.JsonText#quotedUtf8}). */
    EventBytes string(byte[] quoted) {
        ensure(quoted.length + 2);
        bytes[to++] = '"';
        System.arraycopy(quoted, 0, bytes, to, quoted.length);
        to += quoted.length;
        bytes[to++] = '"';
        return this;
    }

    /** ASCII text that is already a JSON value (a cached six-decimal rendering, or kineto's "inf"). */
    EventBytes number(String asciiNumber) {
        int n = asciiNumber.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            bytes[to++] = (byte) asciiNumber.charAt(i);
        }
        return this;
    }

    EventBytes number(long value) {
        ensure(20);
        to = NumberOutput.outputLong(value, bytes, to); // Jackson's own digit writer: thousands at a time
        return this;
    }

    /**
     * Digits of a value that repeats from event to event (pid, tid, device, stream: one of a few
     * rows, TraceRows), copied from a small direct-mapped cache instead of written again. Digits
     * were about a fifth of the writer's CPU samples in a cold 10M-record replay (JFR, Jackson's
     * {@code NumberOutput} 6-12% of all samples, docs/benchmarks.md "Where the time goes"); a host
     * thread id is 10 or more digits, past Jackson's int fast path. With this cache, a cold replay of
     * a 3M-record capture with ops went from 10.2% to 2.9% of its samples in {@code number} (JFR,
     * this method 1.0%). A miss overwrites the slot in place: nothing is allocated.
     */
    EventBytes repeated(long value) {
        int slot = (int) ((value * 0x9E3779B97F4A7C15L) >>> (64 - REPEATED_BITS));
        int at = slot * MAX_DIGITS;
        int n = repeatedLength[slot];
        if (n == 0 || repeatedValue[slot] != value) {
            n = NumberOutput.outputLong(value, repeatedDigits, at) - at;
            repeatedValue[slot] = value;
            repeatedLength[slot] = (byte) n;
        }
        ensure(n);
        System.arraycopy(repeatedDigits, at, bytes, to, n);
        to += n;
        return this;
    }

    /** {@code ,"pid":P,"tid":T,"ts":}, the text between an event's name and its time, cached per row ({@link RowFields}). */
    EventBytes row(long pid, long tid) {
        ensure(RowFields.WIDTH);
        to = rows.copy(pid, tid, bytes, to);
        return this;
    }

    /**
     * {@code value}'s 64 bits as an unsigned integer (vendor correlation ids are u64). The last value's
     * digits are kept: a launch's correlation is written three times in a row, in the device (or API)
     * slice that completes its arrow and as the id of the arrow's two halves.
     */
    EventBytes unsigned(long value) {
        ensure(MAX_DIGITS);
        if (value == lastUnsigned && lastUnsignedLength > 0) {
            System.arraycopy(lastUnsignedDigits, 0, bytes, to, lastUnsignedLength);
            to += lastUnsignedLength;
            return this;
        }
        int start = to;
        if (value >= 0) {
            to = NumberOutput.outputLong(value, bytes, to);
        } else {
            long high = Long.divideUnsigned(value, 10);
            to = NumberOutput.outputLong(high, bytes, to);
            bytes[to++] = (byte) ('0' + Long.remainderUnsigned(value, 10));
        }
        lastUnsigned = value;
        lastUnsignedLength = to - start;
        System.arraycopy(bytes, start, lastUnsignedDigits, 0, lastUnsignedLength);
        return this;
    }

    /** Nanoseconds as microseconds with exactly three decimals, truncated, never rounded. */
    EventBytes micros(long nanos) {
        ensure(24);
        if (nanos < 0) {
            bytes[to++] = '-';
            nanos = -nanos; // Long.MIN_VALUE stays negative: read as unsigned below, it is its magnitude
        }
        long whole = nanos >= 0 ? nanos / 1000 : Long.divideUnsigned(nanos, 1000); // Long.MIN_VALUE alone
        int frac = (int) (nanos - whole * 1000);
        to = NumberOutput.outputLong(whole, bytes, to);
        bytes[to] = '.';
        int t = frac * 3;
        bytes[to + 1] = TRIPLETS[t];
        bytes[to + 2] = TRIPLETS[t + 1];
        bytes[to + 3] = TRIPLETS[t + 2];
        to += 4;
        return this;
    }

    /** A finite double, as Java prints it (exponent form included, which JSON allows). */
    EventBytes number(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("not a JSON number: " + value);
        }
        return number(Double.toString(value));
    }

    private void ensure(int more) {
        if (to + more > bytes.length) {
            grow(more);
        }
    }

    private void grow(int more) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, to + more));
    }
}
