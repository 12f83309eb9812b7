package org.flagos.trace.stages;

/**
 * Formats nanosecond offsets as microseconds with exactly three decimals ({@code 12.000},
 * {@code -0.250}) into a reusable char buffer, the form torch writes {@code ts} and {@code dur} in.
 * Integer arithmetic only: no rounding, no allocation.
 */
final class MicrosFormat {
    private final char[] chars = new char[24];
    private int length;

    /** Formats {@code nanos}; the result is {@link #chars()}[0, {@link #length()}). */
    MicrosFormat format(long nanos) {
        boolean negative = nanos < 0;
        // |Long.MIN_VALUE| does not fit; no real timestamp offset comes near it.
        long abs = negative ? -nanos : nanos;
        long micros = abs / 1000;
        int frac = (int) (abs % 1000);
        int pos = chars.length;
        chars[--pos] = (char) ('0' + frac % 10);
        chars[--pos] = (char) ('0' + frac / 10 % 10);
        chars[--pos] = (char) ('0' + frac / 100);
        chars[--pos] = '.';
        do {
            chars[--pos] = (char) ('0' + micros % 10);
            micros /= 10;
        } while (micros > 0);
        if (negative) {
            chars[--pos] = '-';
        }
        length = chars.length - pos;
        System.arraycopy(chars, pos, chars, 0, length);
        return this;
    }

    char[] chars() {
        return chars;
    }

    int length() {
        return length;
    }

    @Override
    public String toString() {
        return new String(chars, 0, length);
    }
}
