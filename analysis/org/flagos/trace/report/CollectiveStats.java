package org.flagos.trace.report;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.sql.CollectiveKernels;

/**
 * Per kind of collective (all_reduce, all_gather, ...; {@link CollectiveKernels#kind}), in one streaming
 * pass over the collective kernels: calls, total time, and where torch recorded the message in the
 * kernel's args, the bytes and the algorithm bandwidth over those calls ({@code analyze}'s collectives
 * table, docs/analysis.md, summed per kind; without its skew across ranks, which needs every kernel kept).
 */
public final class CollectiveStats {
    /**
     * One kind's figures: calls and their total ns; of those, {@code sizedCalls} carry a message size,
     * {@code bytes} in all over {@code sizedNs}; {@code algbwBytesPerS} is {@code floor(bytes * 10^9 / sizedNs)},
     * -1 when no call carries a size (or they took 0 ns).
     */
    public record Row(String kind, long calls, long totalNs, long sizedCalls, long bytes, long sizedNs, long algbwBytesPerS) {
    }

    private final Map<String, long[]> byKind = new TreeMap<>();

    /**
     * Adds one collective kernel named {@code name} lasting {@code durNs}, its message of {@code inElems}
     * and {@code outElems} elements of torch's {@code dtype} (each absent as a negative count or null).
     */
    public void add(String name, long durNs, long inElems, long outElems, String dtype) {
        long[] a = byKind.computeIfAbsent(CollectiveKernels.kind(name), k -> new long[5]);
        a[0]++;
        a[1] = Math.addExact(a[1], durNs);
        long elems = Math.max(inElems, outElems);
        Integer size = dtype == null ? null : CollectiveKernels.ELEMENT_BYTES.get(dtype);
        if (elems >= 0 && size != null) {
            a[2]++;
            a[3] = Math.addExact(a[3], Math.multiplyExact(elems, size));
            a[4] = Math.addExact(a[4], durNs);
        }
    }

    /** Whether no collective kernel was added. */
    public boolean isEmpty() {
        return byKind.isEmpty();
    }

    /** Every kind's row, the longest total first (then by kind). */
    public List<Row> rows() {
        List<Row> out = new ArrayList<>();
        for (Map.Entry<String, long[]> e : byKind.entrySet()) {
            long[] a = e.getValue();
            long sizedNs = a[4];
            long bw = a[2] == 0 || sizedNs == 0 ? -1
                    : BigInteger.valueOf(a[3]).multiply(BigInteger.TEN.pow(9)).divide(BigInteger.valueOf(sizedNs)).longValueExact();
            out.add(new Row(e.getKey(), a[0], a[1], a[2], a[3], sizedNs, bw));
        }
        out.sort(Comparator.comparingLong(Row::totalNs).reversed().thenComparing(Row::kind));
        return out;
    }
}
