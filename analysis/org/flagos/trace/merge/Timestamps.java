package org.flagos.trace.merge;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.flagos.trace.tracefile.Micros;

/**
 * Moves a trace's {@code ts} (microseconds, as text) by a number of nanoseconds, exactly: the
 * common form (at most three decimals, nanoseconds) in integer arithmetic, anything else (an
 * exponent, more decimals) in decimal arithmetic. A double would lose nanoseconds past 2^53 ns.
 * Only a value with digits past {@link #MAX_DECIMALS} decimals is moved as every reader reads it,
 * rounded to the nanosecond ({@link Micros#toNanos}): written out exactly, {@code 1e-100000000}
 * moved by 1 ns would be 100 million digits.
 */
final class Timestamps {
    /** Decimals (of a microsecond) a moved {@code ts} keeps exactly. */
    static final int MAX_DECIMALS = 100;

    private Timestamps() {
    }

    /**
     * {@code micros} moved by {@code shiftNs}; throws ArithmeticException for a value a reader refuses (beyond a long's
     * nanoseconds), without writing it out.
     */
    static String shift(String micros, long shiftNs) {
        byte[] text = micros.getBytes(StandardCharsets.US_ASCII); // a number's text is ASCII; any other character is no digit
        long ns = nanos(text, 0, text.length);
        if (ns == Long.MIN_VALUE) {
            BigDecimal exact = new BigDecimal(micros);
            if (Math.abs(exact.scale()) <= MAX_DECIMALS) {
                return exact.add(BigDecimal.valueOf(shiftNs, 3)).stripTrailingZeros().toPlainString();
            }
            ns = Micros.toNanos(micros);
        }
        return micros(ns + shiftNs);
    }

    /**
     * The ASCII text {@code b[from, from + length)} (microseconds) in nanoseconds, or {@link Long#MIN_VALUE} when it
     * is not of the common form.
     */
    static long nanos(byte[] b, int from, int length) {
        int n = from + length;
        int i = from;
        boolean negative = length > 0 && b[i] == '-';
        if (negative) {
            i++;
        }
        long whole = 0;
        int digits = 0;
        for (; i < n && b[i] >= '0' && b[i] <= '9'; i++) {
            whole = whole * 10 + (b[i] - '0');
            if (++digits > 15) {
                return Long.MIN_VALUE;
            }
        }
        if (digits == 0) {
            return Long.MIN_VALUE;
        }
        long fraction = 0;
        int decimals = 0;
        if (i < n && b[i] == '.') {
            for (i++; i < n && b[i] >= '0' && b[i] <= '9'; i++) {
                if (++decimals > 3) {
                    return Long.MIN_VALUE;
                }
                fraction = fraction * 10 + (b[i] - '0');
            }
            if (decimals == 0) {
                return Long.MIN_VALUE;
            }
        }
        if (i != n) {
            return Long.MIN_VALUE;
        }
        for (int d = decimals; d < 3; d++) {
            fraction *= 10;
        }
        long ns = whole * 1_000 + fraction;
        return negative ? -ns : ns;
    }

    /** Nanoseconds as microseconds, three decimals where there is a fraction. */
    static String micros(long ns) {
        long abs = Math.abs(ns);
        long fraction = abs % 1_000;
        StringBuilder s = new StringBuilder(24);
        if (ns < 0) {
            s.append('-');
        }
        s.append(abs / 1_000);
        if (fraction != 0) {
            s.append('.');
            if (fraction < 100) {
                s.append('0');
            }
            if (fraction < 10) {
                s.append('0');
            }
            s.append(fraction);
        }
        return s.toString();
    }
}
