package org.flagos.trace.stages;

/**
 * Formats nanosecond offsets as microseconds with exactly three decimals ({@code 12.000},
 * {@code -0.250}), the form torch writes {@code ts} and {@code dur} in. Integer arithmetic only:
 * no rounding, no allocation.
 */
final class MicrosFormat extends AsciiFragment {
    MicrosFormat() {
        super(24);
    }

    MicrosFormat format(long nanos) {
        to = bytes.length;
        from = writeMicros(bytes, to, nanos);
        return this;
    }

    /** Writes {@code nanos} as µs right-aligned to end at {@code end}; returns where it starts. */
    static int writeMicros(byte[] out, int end, long nanos) {
        boolean negative = nanos < 0;
        // |Long.MIN_VALUE| does not fit; no real timestamp offset comes near it.
        long abs = negative ? -nanos : nanos;
        long micros = abs / 1000;
        int frac = (int) (abs % 1000);
        int pos = end;
        out[--pos] = (byte) ('0' + frac % 10);
        out[--pos] = (byte) ('0' + frac / 10 % 10);
        out[--pos] = (byte) ('0' + frac / 100);
        out[--pos] = '.';
        do {
            out[--pos] = (byte) ('0' + micros % 10);
            micros /= 10;
        } while (micros > 0);
        if (negative) {
            out[--pos] = '-';
        }
        return pos;
    }
}
