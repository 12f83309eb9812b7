package org.flagos.trace.tracefile;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Chrome-trace times (microseconds, as decimal text) to whole nanoseconds, exactly. */
public final class Micros {
    /** Digits a long holds with room to spare after scaling by 1,000. */
    private static final int FAST_DIGITS = 15;
    /** A byte array read as longs, little-endian: eight digits at a time. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long[] POWERS = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000};

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
        if (i + 16 <= b.length) { // the integer digits eight at a time (a trace's times have up to 15); the bytes past to are not taken
            long x = (long) LONGS.get(b, i);
            int n = Math.min(leadingDigits(x), to - i);
            whole = digitsValue(x, n);
            digits = n;
            i += n;
            if (n == 8) {
                x = (long) LONGS.get(b, i);
                n = Math.min(leadingDigits(x), to - i);
                whole = whole * POWERS[n] + digitsValue(x, n);
                digits += n;
                i += n;
            }
        }
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

    /** How many of the eight bytes {@code x} (the first the lowest) are digits before the first that is none. */
    private static int leadingDigits(long x) {
        // per byte, its top bit where the byte is not '0' to '9': exact for the first such byte (those before it are digits)
        long other = ((x + 0x4646464646464646L) | (x - 0x3030303030303030L)) & 0x8080808080808080L;
        return Long.numberOfTrailingZeros(other) >>> 3; // 8 where all are
    }

    /** The value of the first {@code n} (at most 8) bytes of {@code x}, digits, the first the most significant. */
    private static long digitsValue(long x, int n) {
        if (n == 0) {
            return 0;
        }
        long v = x << (8 * (8 - n)); // the digits to the top bytes: the zero bytes below them read as leading zeros
        v = (v & 0x0F0F0F0F0F0F0F0FL) * 2561 >>> 8; // pairs of digits
        v = (v & 0x00FF00FF00FF00FFL) * 6553601 >>> 16; // fours
        return (v & 0x0000FFFF0000FFFFL) * 42949672960001L >>> 32; // eight
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
