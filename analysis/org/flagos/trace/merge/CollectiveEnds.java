package org.flagos.trace.merge;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.flagos.trace.sql.CollectiveKernels;
import org.flagos.trace.tracefile.TraceEvent;

/**
 * The collectives' kernels of one trace, for aligning its clock on another's by the ends they share
 * ({@link CollectiveAlignment}): each complete event that {@link CollectiveKernels#isCollectiveKernel} calls a
 * collective's kernel (2021's {@code Kernel} category too, as the report and the {@code collectives} analysis), keyed by
 * its kind (the kernel's name up to its parameter list: {@code ncclDevKernel_AllReduce_Sum_f32_RING_LL})
 * and, where torch names it ({@code args["Process Group Name"]}), its process group; per key, the
 * instances in the order they started. Times are the trace's own ({@code ts}, without its base).
 *
 * <p>Bounded: at most {@link #MAX_ENDS} instances are kept per trace; the ones after are counted in
 * {@link #leftOut} (what aligns a clock is a few hundred shared ends, not millions). Held for every
 * input between the merge's two passes (16 bytes an instance: 64 ranks of 8,192 collectives hold 8 MiB)
 * and let go before the copy.
 */
final class CollectiveEnds {
    /** Instances kept per trace: 16 bytes each, 16 MiB at most. */
    static final int MAX_ENDS = 1 << 20;

    /** One key's instances: start and end of each, as read, then sorted by start by {@link #finish}. */
    static final class Series {
        long[] starts = new long[8];
        long[] ends = new long[8];
        int size;

        void add(long start, long end) {
            if (size == starts.length) {
                starts = Arrays.copyOf(starts, size * 2);
                ends = Arrays.copyOf(ends, size * 2);
            }
            starts[size] = start;
            ends[size] = end;
            size++;
        }

        void sort() {
            Integer[] order = new Integer[size];
            for (int i = 0; i < size; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> Long.compare(starts[a], starts[b]));
            long[] s = new long[size];
            long[] e = new long[size];
            for (int i = 0; i < size; i++) {
                s[i] = starts[order[i]];
                e[i] = ends[order[i]];
            }
            starts = s;
            ends = e;
        }
    }

    private final Map<String, Series> series = new LinkedHashMap<>();
    private int kept;
    /** Collective kernels past {@link #MAX_ENDS}, not kept. */
    long leftOut;

    /** Keeps {@code e} when it is a collective's kernel with a usable start and duration. */
    void accept(TraceEvent e) {
        if (!e.unusable()) {
            accept(e.ph(), e.cat(), e.name(), e.processGroup(), e.tsNs(), e.durNs());
        }
    }

    /** As {@link #accept(TraceEvent)}, from a usable event's fields as the reader reads them ({@link TraceEvent#NONE}: absent). */
    void accept(String ph, String cat, String name, String processGroup, long tsNs, long durNs) {
        if (!"X".equals(ph) || !CollectiveKernels.isCollectiveKernel(cat, name) || tsNs == TraceEvent.NONE || durNs == TraceEvent.NONE) {
            return;
        }
        if (kept == MAX_ENDS) {
            leftOut++;
            return;
        }
        long end;
        try {
            end = Math.addExact(tsNs, durNs);
        } catch (ArithmeticException past) {
            leftOut++;
            return;
        }
        series.computeIfAbsent(key(name, processGroup), k -> new Series()).add(tsNs, end);
        kept++;
    }

    /** Sorts each key's instances by start: the n-th instance of a key is then the n-th the trace started. */
    CollectiveEnds finish() {
        series.values().forEach(Series::sort);
        return this;
    }

    /** Lets the instances go (the count stays): once the clocks are aligned, nothing reads them. */
    void release() {
        series.clear();
    }

    /** The instances by key. */
    Map<String, Series> series() {
        return series;
    }

    /** Collective kernels kept. */
    int count() {
        return kept;
    }

    /** A key: the kind, then the process group after a tab where one is named. */
    static String key(String name, String group) {
        int paren = name.indexOf('(');
        String kind = (paren > 0 ? name.substring(0, paren) : name).strip();
        return group == null ? kind : kind + "\t" + group;
    }

    /** A key as words: {@code AllReduce_Sum_f32 of group 0}. */
    static String describe(String key) {
        int tab = key.indexOf('\t');
        return tab < 0 ? key : key.substring(0, tab) + " of group " + key.substring(tab + 1);
    }
}
