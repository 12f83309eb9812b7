package org.flagos.trace.encoders;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import org.agrona.collections.Long2LongHashMap;

/**
 * Renders kineto's per-SM kernel figures ("blocks per SM", "warps per SM") exactly as kineto
 * prints them. A launch configuration repeats across launches, so renders are cached by the
 * float's bits and the hot path only looks them up.
 */
public final class FixedDecimal {
    private static final long[] POW10 = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000};

    private final Long2LongHashMap index = new Long2LongHashMap(64, 0.65f, -1, true);
    private final List<String> rendered = new ArrayList<>();

    /** {@link #render}, cached. */
    String format(float value) {
        long bits = Integer.toUnsignedLong(Float.floatToRawIntBits(value));
        int i = (int) index.get(bits);
        if (i >= 0) {
            return rendered.get(i);
        }
        String text = render(value);
        index.put(bits, rendered.size());
        rendered.add(text);
        return text;
    }

    /**
     * The JSON text kineto writes for a {@code "blocks per SM"} or {@code "warps per SM"} value: C's
     * {@code std::to_string(float)}, i.e. {@code printf("%f")} of the value widened to double (six
     * decimals, exact binary value rounded to nearest with ties to even, a '-' for a set sign bit), or
     * the quoted string {@code "inf"} (quotes included) when the value is infinite.
     *
     * <p>A NaN cannot arise from a launched kernel (it needs an empty grid on a device with no SMs);
     * it is written as the quoted string {@code "nan"} to keep the JSON valid.
     *
     * @return the JSON token
     */
    public static String render(float value) {
        return append(new StringBuilder(16), value).toString();
    }

    /**
     * Appends {@link #render(float)}'s text to {@code out} without allocating, for magnitudes up to
     * 2<sup>39</sup>.
     *
     * @return {@code out}
     */
    public static StringBuilder append(StringBuilder out, float value) {
        if (Float.isInfinite(value)) {
            return out.append("\"inf\"");
        }
        if (Float.isNaN(value)) {
            return out.append("\"nan\"");
        }
        int bits = Float.floatToRawIntBits(value);
        if (bits < 0) {
            out.append('-');
        }
        int biased = (bits >>> 23) & 0xff;
        long mantissa = bits & 0x7fffff;
        int exp;
        if (biased == 0) {
            exp = -149;
        } else {
            mantissa |= 0x800000;
            exp = biased - 150;
        }
        // |value| == mantissa * 2^exp exactly
        long micros;
        if (exp >= 0) {
            if (exp > 39) {
                String digits = new BigDecimal((double) Math.abs(value)).setScale(6, RoundingMode.HALF_EVEN)
                        .toPlainString();
                return out.append(digits);
            }
            out.append(mantissa << exp);
            return out.append(".000000");
        }
        int shift = -exp;
        long scaled = mantissa * POW10[6]; // < 2^44
        if (shift >= 63) {
            micros = 0; // scaled < 2^44 <= 2^(shift-1): below one half
        } else {
            micros = scaled >>> shift;
            long rest = scaled & ((1L << shift) - 1);
            long half = 1L << (shift - 1);
            if (rest > half || (rest == half && (micros & 1) != 0)) {
                micros++;
            }
        }
        out.append(micros / POW10[6]).append('.');
        long frac = micros % POW10[6];
        for (int d = 5; d > 0 && frac < POW10[d]; d--) {
            out.append('0');
        }
        return out.append(frac);
    }
}
