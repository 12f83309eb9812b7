package org.flagos.trace.report;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per device-work name (kernels, copies, sets), in one streaming pass: calls, total, min, max, mean
 * (rounded down) and the sample standard deviation (n - 1 in the denominator, as HTA's kernel
 * breakdown; 0 for one call; the exact whole ns below it) of the durations, ns: {@code analyze}'s
 * kernel_stats (docs/analysis.md, "Device analyses") without its percentiles, which need every
 * duration kept. Memory is a few numbers per distinct name.
 */
public final class DeviceWorkStats {
    /** One name's figures, ns. */
    public record Row(String name, long calls, long totalNs, long minNs, long maxNs, long meanNs, long stdNs) {
    }

    /** Per name: calls, total, min, max, and the sum of squares as two 64-bit halves (high, low unsigned). */
    private final Map<String, long[]> byName = new HashMap<>();
    /** The name added last (the same string, not only an equal one) and its figures. */
    private String lastName;
    private long[] lastFigures;

    /**
     * Adds one piece of device work named {@code name} lasting {@code durNs} (0 or more); false, adding
     * nothing, when the name's total would pass 2<sup>63</sup> - 1 ns (292 years: no real trace's, but a
     * trace's durations are each bounded, not their sum).
     */
    public boolean add(String name, long durNs) {
        long[] a = name == lastName ? lastFigures : byName.get(name); // a trace's device work runs in stretches of one name
        long total;
        try {
            total = Math.addExact(a == null ? 0 : a[1], durNs);
        } catch (ArithmeticException e) {
            return false;
        }
        if (a == null) {
            byName.put(name, a = new long[] {0, 0, Long.MAX_VALUE, Long.MIN_VALUE, 0, 0});
        }
        a[0]++;
        a[1] = total;
        a[2] = Math.min(a[2], durNs);
        a[3] = Math.max(a[3], durNs);
        long high = Math.multiplyHigh(durNs, durNs);
        long low = durNs * durNs;
        long sum = a[5] + low;
        a[4] += high + (Long.compareUnsigned(sum, a[5]) < 0 ? 1 : 0);
        a[5] = sum;
        lastName = name;
        lastFigures = a;
        return true;
    }

    /** Every name's row, the longest total first (then by name). */
    public List<Row> rows() {
        List<Row> out = new ArrayList<>();
        for (Map.Entry<String, long[]> e : byName.entrySet()) {
            long[] a = e.getValue();
            long n = a[0];
            long std = 0;
            if (n > 1) {
                BigInteger squares = BigInteger.valueOf(a[4]).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(a[5])));
                BigInteger total = BigInteger.valueOf(a[1]);
                BigInteger num = BigInteger.valueOf(n).multiply(squares).subtract(total.multiply(total));
                std = num.divide(BigInteger.valueOf(n).multiply(BigInteger.valueOf(n - 1))).sqrt().longValueExact();
            }
            out.add(new Row(e.getKey(), n, a[1], a[2], a[3], Math.floorDiv(a[1], n), std));
        }
        out.sort(Comparator.comparingLong(Row::totalNs).reversed().thenComparing(Row::name));
        return out;
    }
}
