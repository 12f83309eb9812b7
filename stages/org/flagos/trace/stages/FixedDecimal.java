package org.flagos.trace.stages;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.pipeline.LongIntHashMap;

/**
 * Renders floats with six decimals, as C's {@code %f} prints kineto's "blocks per SM" and
 * "warps per SM": the float is widened to double (printf's varargs promotion) and its exact binary
 * value rounded half-even. A launch configuration repeats across launches, so renders are cached
 * by the float's bits and the hot path only looks them up.
 */
final class FixedDecimal {
    private final LongIntHashMap index = new LongIntHashMap(64, -1);
    private final List<String> rendered = new ArrayList<>();

    String format(float value) {
        long bits = Integer.toUnsignedLong(Float.floatToRawIntBits(value));
        int i = index.get(bits);
        if (i >= 0) {
            return rendered.get(i);
        }
        String text = render(value);
        index.put(bits, rendered.size());
        rendered.add(text);
        return text;
    }

    static String render(float value) {
        return new BigDecimal((double) value).setScale(6, RoundingMode.HALF_EVEN).toPlainString();
    }
}
