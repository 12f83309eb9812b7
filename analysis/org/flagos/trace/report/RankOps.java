package org.flagos.trace.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The op table of each rank of a merged trace, side by side: for every row name of torch's
 * key_averages (ops, and kernels, copies and sets as their own rows) each rank's calls and self
 * device time, counted as {@link KeyAverages} counts them (an op's self device time is the device
 * work of its own External id). One pass of {@link TraceFile#readBySlot}: the summary's own
 * machinery with every name keyed by its rank, so its bounded memory holds (external sorts that
 * spill, at most 2^19 distinct names, now rank-and-name pairs); then one {@link Op} a name with two
 * values a rank.
 */
public final class RankOps {
    /** One row name across the ranks; {@code calls[i]} and {@code selfDeviceUs[i]} are {@code RankTimes.ranks().get(i)}'s. */
    public record Op(String name, boolean device, long[] calls, double[] selfDeviceUs) {
        /** Self device time summed over the ranks, microseconds. */
        public double totalDeviceUs() {
            double sum = 0;
            for (double v : selfDeviceUs) {
                sum += v;
            }
            return sum;
        }

        /** The median rank's self device time (the mean of the two middle ones for an even count), microseconds. */
        public double medianDeviceUs() {
            return median(selfDeviceUs.clone());
        }

        /** The median rank's calls (the mean of the two middle ones, rounded down, for an even count). */
        public long medianCalls() {
            double[] c = new double[calls.length];
            for (int i = 0; i < c.length; i++) {
                c[i] = calls[i];
            }
            return (long) median(c);
        }
    }

    private final List<String> labels;
    private final List<Op> ops;
    private final long unplaced;

    private RankOps(List<String> labels, List<Op> ops, long unplaced) {
        this.labels = labels;
        this.ops = ops;
        this.unplaced = unplaced;
    }

    /** The ranks' labels, in {@link RankTimes#ranks()}'s order. */
    public List<String> labels() {
        return labels;
    }

    /** Every row name, by self device time summed over the ranks (largest first), then name, host rows first. */
    public List<Op> ops() {
        return ops;
    }

    /** Complete events on a pid of no rank: left out. */
    public long unplacedEvents() {
        return unplaced;
    }

    /** Reads the merged trace at {@code path}, whose ranks {@code times} read. */
    public static RankOps read(Path path, RankTimes times) throws IOException {
        TraceFile file = TraceFile.readBySlot(path);
        return of(file.averages().rows(), times, file.unplacedEvents());
    }

    /** Groups rows keyed by slot ({@link TraceFile#readBySlot}) into one {@link Op} a name. */
    static RankOps of(List<KeyAveragesRow> keyedRows, RankTimes times, long unplaced) {
        List<String> labels = new ArrayList<>();
        Map<Integer, Integer> column = new HashMap<>();
        for (RankTimes.Rank r : times.ranks()) {
            column.put(r.slot(), labels.size());
            labels.add(r.label());
        }
        Map<String, Op> byName = new LinkedHashMap<>();
        for (KeyAveragesRow row : keyedRows) {
            Integer col = column.get(TraceFile.slotOf(row.name()));
            if (col == null) { // RankTimes places every event of a slot, so this is not reached
                continue;
            }
            String name = TraceFile.nameOf(row.name());
            Op op = byName.computeIfAbsent((row.device() ? 'd' : 'h') + name,
                    k -> new Op(name, row.device(), new long[labels.size()], new double[labels.size()]));
            op.calls()[col] += row.count();
            op.selfDeviceUs()[col] += row.selfDeviceUs();
        }
        List<Op> ops = new ArrayList<>(byName.values());
        ops.sort(Comparator.comparingDouble(Op::totalDeviceUs).reversed().thenComparing(Op::name)
                .thenComparing(Op::device));
        return new RankOps(List.copyOf(labels), List.copyOf(ops), unplaced);
    }

    /**
     * Which ranks to show as columns, at most {@code max}, in rank order: all of them when they
     * fit; else the ranks whose self device times over the first {@code top} ops are farthest from
     * the median rank's (the sum over those ops of the absolute difference; the lower rank on a tie).
     */
    public int[] shownRanks(int top, int max) {
        int n = labels.size();
        if (n <= max) {
            int[] all = new int[n];
            Arrays.setAll(all, i -> i);
            return all;
        }
        double[] distance = new double[n];
        for (Op op : ops.subList(0, Math.min(top, ops.size()))) {
            double median = op.medianDeviceUs();
            for (int i = 0; i < n; i++) {
                distance[i] += Math.abs(op.selfDeviceUs()[i] - median);
            }
        }
        Integer[] order = new Integer[n];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, (a, b) -> distance[a] != distance[b] ? Double.compare(distance[b], distance[a]) : Integer.compare(a, b));
        int[] shown = new int[max];
        for (int i = 0; i < max; i++) {
            shown[i] = order[i];
        }
        Arrays.sort(shown);
        return shown;
    }

    private static double median(double[] values) {
        Arrays.sort(values);
        int m = values.length / 2;
        return values.length == 0 ? 0 : values.length % 2 == 1 ? values[m] : (values[m - 1] + values[m]) / 2;
    }
}
