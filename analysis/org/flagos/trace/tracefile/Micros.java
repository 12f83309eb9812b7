package org.flagos.trace.tracefile;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/** Chrome-trace times (microseconds, as decimal text) to whole nanoseconds, exactly. */
public final class Micros {
    /** Digits a long holds with room to spare after scaling by 1,000. */
    private static final int FAST_DIGITS = 15;

    /** {@code text} microseconds in nanoseconds; throws NumberFormatException or ArithmeticException (beyond a long), quickly whatever the exponent. */
    public static long toNanos(String text) {
        byte[] b = text.getBytes(StandardCharsets.ISO_8859_1); // any other character is no digit: the exact path judges it
        return toNanos(b, 0, b.length, text);
    }

    /**
     * {@link #toNanos(String)} of the ASCII text {@code b[from, to)} (a number as a trace file holds it): the same value,
     * the same exceptions, without a string made for the common form.
     */
    public static long toNanos(byte[] b, int from, int to) {
        return toNanos(b, from, to, null);
    }

    /** The common form from the bytes; any other, exactly, from {@code text} (null: the bytes as text). */
    private static long toNanos(byte[] b, int from, int to, String text) {
        int i = from;
        boolean negative = false;
        if (i < to && (b[i] == '-' || b[i] == '+')) {
            negative = b[i] == '-';
            i++;
        }
        long whole = 0;
        int digits = 0;
        while (i < to && b[i] >= '0' && b[i] <= '9') {
            whole = whole * 10 + (b[i++] - '0');
            digits++;
        }
        long fraction = 0;
        int fractionDigits = 0;
        if (i < to && b[i] == '.') {
            i++;
            while (i < to && b[i] >= '0' && b[i] <= '9' && fractionDigits < 3) {
                fraction = fraction * 10 + (b[i++] - '0');
                fractionDigits++;
            }
        }
        if (i != to || digits == 0 || digits > FAST_DIGITS) {
            return exact(text != null ? text : new String(b, from, to - from, StandardCharsets.ISO_8859_1));
        }
        for (int k = fractionDigits; k < 3; k++) {
            fraction *= 10;
        }
        long ns = whole * 1000 + fraction;
        return negative ? -ns : ns;
    }

    /** Exponents, sub-nanosecond digits, huge values: the slow exact path. */
    private static long exact(String text) {
        // only the scale moves (movePointRight would write a negative scale out: 1e100000000 as 10^100000003, minutes
        // of BigInteger work), so the value is bounded before any digit is made
        BigDecimal d = new BigDecimal(text).scaleByPowerOfTen(3);
        long magnitude = (long) d.precision() - d.scale(); // digits before the point
        if (magnitude > 19) {
            throw new ArithmeticException("beyond a long");
        }
        if (magnitude < -1) {
            return 0; // below a hundredth of a nanosecond
        }
        return d.setScale(0, RoundingMode.HALF_EVEN).longValueExact();
    }

    private Micros() {
    }
}
