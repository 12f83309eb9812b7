package org.flagos.trace.merge;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceLimits;

/**
 * Puts a trace without clock anchors on another trace's clock by the collectives both ran: a
 * collective's kernel ends at the same moment on every rank of its process group (each waits for
 * the last one's data), within the network's jitter. The n-th instance of a key (kind and process
 * group, {@link CollectiveEnds}) in one trace is matched with the n-th in the other; each matched
 * pair gives a difference of end times, and the offset is their median.
 *
 * <p>Why the median: a difference is the offset plus how far apart the two ends really were (jitter,
 * either rank may finish first, so it is not one-sided as a message's delay is, which a minimum
 * estimator such as NTP's assumes), plus, now and then, a pair that is no pair at all (a collective
 * one trace caught and the other did not). A mean (least squares) is moved without limit by one such
 * pair; the median is moved by none until half the pairs are wrong, and for jitter that is symmetric
 * it is as right as the mean. The residual is the largest difference once corrected: every matched end
 * agrees with its pair within it, and it holds the error of the offset itself unless every difference
 * erred to one side (for jitter that is as likely either way, a chance of 2^(1 - matched)). The median
 * of those corrected differences is stated beside it, as what a typical end is off by.
 *
 * <p>Where a key has more instances in one trace than in the other (one trace began or ended
 * mid-run), the shorter run is matched where it fits best: at each of the first {@link #MAX_LAG} and
 * the last of the positions that keep all of it matched, the one whose differences spread least.
 * Traces whose clocks drift apart are not modelled: the drift shows in the residual.
 */
final class CollectiveAlignment {
    /** Fewer shared ends say nothing of their spread: a trace with fewer is not aligned by them. */
    static final int MIN_MATCHED = 3;
    /** Positions tried for a key whose counts differ, besides the last one. */
    static final int MAX_LAG = 16;

    /**
     * What the shared collectives say of one trace's clock against another's.
     *
     * @param offsetNs      added to the trace's times to put them on the other's clock (the median difference)
     * @param residualNs       the largest |difference - offset| over the matched ends
     * @param medianResidualNs the median |difference - offset|
     * @param matched       ends matched
     * @param keys          kinds (with process group) that had matched ends
     */
    record Estimate(long offsetNs, long residualNs, long medianResidualNs, int matched, int keys) {
    }

    private CollectiveAlignment() {
    }

    /**
     * Estimates the offset that puts {@code trace} (base time {@code base}) on the clock of {@code reference}
     * ({@code referenceBase}); null when they share fewer than {@link #MIN_MATCHED} ends.
     */
    static Estimate estimate(CollectiveEnds reference, long referenceBase, CollectiveEnds trace, long base) {
        long bases;
        try {
            bases = Math.subtractExact(referenceBase, base);
        } catch (ArithmeticException e) {
            return null;
        }
        long[] all = new long[0];
        int size = 0;
        int keys = 0;
        for (Map.Entry<String, CollectiveEnds.Series> e : reference.series().entrySet()) {
            CollectiveEnds.Series b = trace.series().get(e.getKey());
            if (b == null) {
                continue;
            }
            long[] d = bestRun(e.getValue(), b, bases);
            if (d.length == 0) {
                continue;
            }
            keys++;
            if (all.length < size + d.length) {
                all = Arrays.copyOf(all, Math.max(all.length * 2, size + d.length));
            }
            System.arraycopy(d, 0, all, size, d.length);
            size += d.length;
        }
        if (size < MIN_MATCHED) {
            return null;
        }
        long[] d = Arrays.copyOf(all, size);
        Arrays.sort(d);
        long offset = median(d);
        long[] deviation = new long[size];
        long max = 0;
        for (int i = 0; i < size; i++) {
            deviation[i] = Math.abs(d[i] - offset); // both within the bounds checked in differences: exact
            max = Math.max(max, deviation[i]);
        }
        Arrays.sort(deviation);
        return new Estimate(offset, max, median(deviation), size, keys);
    }

    /** The differences of the best-fitting run of pairs of one key (the class comment says which). */
    private static long[] bestRun(CollectiveEnds.Series a, CollectiveEnds.Series b, long bases) {
        int extra = Math.abs(a.size - b.size);
        List<Integer> lags = new ArrayList<>();
        for (int k = 0; k <= Math.min(extra, MAX_LAG); k++) {
            lags.add(k);
        }
        if (extra > MAX_LAG) {
            lags.add(extra);
        }
        long[] best = new long[0];
        long bestSpread = Long.MAX_VALUE;
        for (int k : lags) {
            long[] d = differences(a, b, bases, a.size > b.size ? k : 0, a.size > b.size ? 0 : k);
            if (d.length == 0) {
                continue;
            }
            long[] sorted = d.clone();
            Arrays.sort(sorted);
            long m = median(sorted);
            long[] dev = new long[sorted.length];
            for (int i = 0; i < dev.length; i++) {
                dev[i] = Math.abs(sorted[i] - m);
            }
            Arrays.sort(dev);
            long spread = median(dev);
            if (spread < bestSpread) {
                bestSpread = spread;
                best = d;
            }
        }
        return best;
    }

    /** reference end {@code i + fromA} against trace end {@code i + fromB}, for every i both have; pairs past the time bounds left out. */
    private static long[] differences(CollectiveEnds.Series a, CollectiveEnds.Series b, long bases, int fromA, int fromB) {
        int n = Math.min(a.size - fromA, b.size - fromB);
        long[] d = new long[Math.max(n, 0)];
        int size = 0;
        for (int i = 0; i < n; i++) {
            try {
                long diff = Math.addExact(bases, Math.subtractExact(a.ends[i + fromA], b.ends[i + fromB]));
                if (Math.abs(diff) < TraceLimits.MAX_TIME_NS) {
                    d[size++] = diff;
                }
            } catch (ArithmeticException past) {
                // a pair beyond ±2^62 ns apart is no pair of one collective
            }
        }
        return Arrays.copyOf(d, size);
    }

    /** The median of sorted values: the middle one, or the lower middle plus half the gap to the upper. */
    static long median(long[] sorted) {
        int n = sorted.length;
        long lo = sorted[(n - 1) / 2];
        long hi = sorted[n / 2];
        return lo + (hi - lo) / 2; // both within ±2^62: exact
    }

    /**
     * Aligns each trace of {@code order} whose slot in {@code alignments} is null by collectives, against the
     * reference (slot 0) first, else against the already aligned trace with which it shares the most ends, in
     * rounds until none more can be aligned; those that cannot stay null.
     *
     * @param labels each slot's label, {@code rank 3}, for what the alignment says it was aligned against
     */
    static void chain(List<TraceFacts> order, RankAlignment[] alignments, List<String> labels) throws TraceFormatException {
        Map<Long, Estimate> cache = new HashMap<>();
        boolean progress = true;
        while (progress) {
            progress = false;
            for (int p = 0; p < order.size(); p++) {
                if (alignments[p] != null) {
                    continue;
                }
                int via = -1;
                Estimate best = null;
                for (int k = 0; k < order.size(); k++) {
                    if (alignments[k] == null) {
                        continue;
                    }
                    long pair = (long) p * order.size() + k;
                    int kk = k;
                    int pp = p;
                    Estimate e = cache.computeIfAbsent(pair, x -> estimateOrNone(order.get(kk), order.get(pp)));
                    if (e.matched() > 0 && (best == null || e.matched() > best.matched())) {
                        best = e;
                        via = k;
                    }
                    if (k == 0 && best != null) {
                        break; // the reference itself: no chain to add to the residual
                    }
                }
                if (best != null) {
                    alignments[p] = of(order.get(p), best, alignments[via], labels.get(via));
                    progress = true;
                }
            }
        }
    }

    private static final Estimate NONE = new Estimate(0, 0, 0, 0, 0);

    private static Estimate estimateOrNone(TraceFacts reference, TraceFacts trace) {
        Estimate e = estimate(reference.collectives(), reference.baseNs(), trace.collectives(), trace.baseNs());
        return e == null ? NONE : e;
    }

    /** The alignment of a trace by {@code e} against a trace aligned by {@code via}: offsets add, and so do the residuals and bounds. */
    private static RankAlignment of(TraceFacts trace, Estimate e, RankAlignment via, String against) throws TraceFormatException {
        long offset = via.offsetNs() + e.offsetNs(); // each within ±2^62: exact
        if (Math.abs(offset) >= TraceLimits.MAX_TIME_NS) {
            throw new TraceFormatException(trace.path() + ": its collectives put it more than " + TraceLimits.MAX_TIME_NS
                    + " ns from the reference's clock: not a clock of the same time");
        }
        long viaMedian = via.collectives() != null ? via.collectives().medianResidualNs() : Math.max(via.boundNs(), 0);
        long viaBound = Math.max(via.boundNs(), 0);
        return new RankAlignment(offset, satAdd(e.residualNs(), viaBound), "collectives",
                new RankAlignment.Collectives(against, e.matched(), e.keys(), satAdd(e.residualNs(), viaBound),
                        satAdd(e.medianResidualNs(), viaMedian)));
    }

    private static long satAdd(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }
}
