package org.flagos.trace.stages;

import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.flagos.trace.model.NameTable;

/**
 * Folds host ops into the summary's per-name rows one at a time, as they settle, holding per
 * thread only the ops still waiting for a parent. Ops come in post-order per thread (by end, then
 * later start first, then higher External id first), so an op's children, the ops of its thread
 * inside its range, have all been folded when it comes: they are the siblings on top of its
 * thread's stack that start at or after it. Its self CPU time is its duration less theirs; its
 * device total adds their totals to its own device time. This is the nesting {@link OpSummary}
 * describes, computed without the list of every op.
 *
 * <p>What is held: per thread, the completed ops no parent has claimed yet (the top-level ops so
 * far, and the children of ops still running), at most {@link #MAX_SIBLINGS}; past that the older
 * half is merged into a few entries, split at its longest idle gaps (where outer ops begin: between
 * steps, epochs, repetitions). A parent later claims a merged entry whole when it starts at or
 * before its first part, and none of it when it starts after its last; a parent that starts in
 * between cannot be split exactly and is counted in {@link #approximate()}, as is an op that comes
 * after a later op of its thread was folded (it arrived past the settling horizon): it is folded
 * as a leaf. Ops that start inside an op of their thread and end after it are counted as crossing
 * (self CPU times are then not meaningful), with the first example.
 *
 * <p>Per-stream device spans ({@link StreamSpans}, for GPU annotations) fold the same way as device
 * totals: a parent's spans widen by its children's, and a merged entry's are its parts' together.
 */
final class OpSummaryFold {
    static final int MAX_SIBLINGS = 4096;
    /** Boundaries kept when the older half of a thread's siblings is merged. */
    static final int KEPT_BOUNDARIES = 256;

    private static final int COUNT = 0;
    private static final int CPU = 1;
    private static final int SELF_CPU = 2;
    private static final int DEVICE = 3;
    private static final int SELF_DEVICE = 4;

    private final Long2ObjectHashMap<Siblings> threads = new Long2ObjectHashMap<>();
    private final Int2ObjectHashMap<long[]> byName = new Int2ObjectHashMap<>();
    private final NameTable names;
    private long approximate;
    private long spansPastLimit;
    private long crossing;
    private String firstCrossing;

    OpSummaryFold(NameTable names) {
        this.names = names;
    }

    /** Completed ops of one thread not yet claimed by a parent, oldest first, disjoint. */
    private static final class Siblings {
        int size;
        long[] start = new long[16];
        long[] lastPartStart = new long[16];
        long[] end = new long[16];
        long[] cpu = new long[16];
        long[] device = new long[16];
        int[] nameId = new int[16];
        long[] externalId = new long[16];
        long lastEnd = Long.MIN_VALUE;
        long lastStart;
        long lastExternalId;
        /** Each entry's spans per stream; null when the ops carry none. */
        StreamSpans spans;

        void push(long s, long partStart, long e, long c, long d, int name, long external) {
            if (size == start.length) {
                int n = size * 2;
                start = java.util.Arrays.copyOf(start, n);
                lastPartStart = java.util.Arrays.copyOf(lastPartStart, n);
                end = java.util.Arrays.copyOf(end, n);
                cpu = java.util.Arrays.copyOf(cpu, n);
                device = java.util.Arrays.copyOf(device, n);
                nameId = java.util.Arrays.copyOf(nameId, n);
                externalId = java.util.Arrays.copyOf(externalId, n);
                if (spans != null) {
                    spans.ensure(n);
                }
            }
            start[size] = s;
            lastPartStart[size] = partStart;
            end[size] = e;
            cpu[size] = c;
            device[size] = d;
            nameId[size] = name;
            externalId[size] = external;
            size++;
        }

        /**
         * Merges the older half's entries into at most {@link #KEPT_BOUNDARIES} + 1 groups, keeping
         * apart the siblings separated by the longest idle gaps: a parent still to come starts in a
         * gap, and the long ones (between steps, epochs, repetitions) are where outer ops begin.
         *
         * @return spans that found no room in their merged entry ({@link StreamSpans#PER_HOLDER} streams)
         */
        int compactOlderHalf() {
            int lost = 0;
            int half = size / 2;
            long[] gaps = new long[half - 1];
            for (int i = 1; i < half; i++) {
                gaps[i - 1] = start[i] - end[i - 1];
            }
            long[] sorted = gaps.clone();
            java.util.Arrays.sort(sorted);
            long threshold = sorted.length > KEPT_BOUNDARIES ? sorted[sorted.length - KEPT_BOUNDARIES] : Long.MIN_VALUE;
            int kept = 0;
            int to = -1;
            for (int i = 0; i < half; i++) {
                boolean boundary = i == 0 || gaps[i - 1] > threshold || gaps[i - 1] == threshold && kept < KEPT_BOUNDARIES;
                if (i > 0 && boundary) {
                    kept++;
                }
                long partCpu = cpu[i]; // read before the group (at or below i) is written
                long partDevice = device[i];
                if (boundary) {
                    to++;
                    start[to] = start[i];
                    cpu[to] = 0;
                    device[to] = 0;
                    if (spans != null) {
                        spans.copy(to, spans, i);
                    }
                } else if (spans != null) {
                    lost += spans.addAll(to, spans, i);
                }
                lastPartStart[to] = lastPartStart[i];
                end[to] = end[i];
                cpu[to] += partCpu;
                device[to] += partDevice;
                nameId[to] = nameId[i];
                externalId[to] = externalId[i];
            }
            int rest = size - half;
            int at = to + 1;
            System.arraycopy(start, half, start, at, rest);
            System.arraycopy(lastPartStart, half, lastPartStart, at, rest);
            System.arraycopy(end, half, end, at, rest);
            System.arraycopy(cpu, half, cpu, at, rest);
            System.arraycopy(device, half, device, at, rest);
            System.arraycopy(nameId, half, nameId, at, rest);
            System.arraycopy(externalId, half, externalId, at, rest);
            if (spans != null) {
                for (int k = 0; k < rest; k++) {
                    spans.copy(at + k, spans, half + k);
                }
            }
            size = at + rest;
            return lost;
        }

        boolean afterLast(long s, long e, long external) {
            if (lastEnd == Long.MIN_VALUE || e != lastEnd) {
                return e > lastEnd;
            }
            return s != lastStart ? s < lastStart : external < lastExternalId;
        }
    }

    /** Folds one op whose own device time ({@code selfDeviceNs}) is complete. */
    void fold(int nameId, long externalId, long thread, long start, long end, long selfDeviceNs) {
        fold(nameId, externalId, thread, start, end, selfDeviceNs, null, 0);
    }

    /**
     * As {@link #fold(int, long, long, long, long, long)}, and widens the op's spans ({@code holder} of
     * {@code opSpans}; null: none) by those of the children it claims, so they are its total spans after.
     */
    void fold(int nameId, long externalId, long thread, long start, long end, long selfDeviceNs,
              StreamSpans opSpans, int holder) {
        Siblings t = threads.get(thread);
        if (t == null) {
            t = new Siblings();
            threads.put(thread, t);
        }
        long cpu = end - start;
        if (!t.afterLast(start, end, externalId)) {
            approximate++; // a later op of this thread was folded already: this one is a leaf
            add(nameId, cpu, cpu, selfDeviceNs, selfDeviceNs);
            return;
        }
        t.lastEnd = end;
        t.lastStart = start;
        t.lastExternalId = externalId;
        long childCpu = 0;
        long childDevice = 0;
        while (t.size > 0) {
            int top = t.size - 1;
            if (t.start[top] >= start) {
                childCpu += t.cpu[top];
                childDevice += t.device[top];
                if (opSpans != null && t.spans != null) {
                    spansPastLimit += opSpans.addAll(holder, t.spans, top);
                }
                t.size--;
                continue;
            }
            if (t.lastPartStart[top] >= start) {
                approximate++; // starts between the parts of a merged entry: claims none of it
            } else if (t.end[top] > start) {
                crossing++;
                if (firstCrossing == null) {
                    firstCrossing = "'" + names.name(nameId) + "' (External id " + externalId + ") starts inside '"
                            + names.name(t.nameId[top]) + "' (External id " + t.externalId[top] + ") but ends after it";
                }
            }
            break;
        }
        long total = selfDeviceNs + childDevice;
        add(nameId, cpu, cpu - childCpu, total, selfDeviceNs);
        t.push(start, start, end, cpu, total, nameId, externalId);
        if (opSpans != null) {
            if (t.spans == null) {
                t.spans = new StreamSpans(t.start.length);
            }
            t.spans.ensure(t.start.length);
            t.spans.copy(t.size - 1, opSpans, holder);
        }
        if (t.size > MAX_SIBLINGS) {
            spansPastLimit += t.compactOlderHalf();
        }
    }

    private void add(int nameId, long cpu, long selfCpu, long device, long selfDevice) {
        long[] row = byName.get(nameId);
        if (row == null) {
            row = new long[5];
            byName.put(nameId, row);
        }
        row[COUNT]++;
        row[CPU] += cpu;
        row[SELF_CPU] += selfCpu;
        row[DEVICE] += device;
        row[SELF_DEVICE] += selfDevice;
    }

    /** Children's spans a parent had no room for ({@link StreamSpans#PER_HOLDER} streams). */
    long spansPastLimit() {
        return spansPastLimit;
    }

    /** Ops whose nesting could not be told exactly (see the class comment). */
    long approximate() {
        return approximate;
    }

    /** Ops that start inside an op of their thread and end after it. */
    long crossing() {
        return crossing;
    }

    /** The note for crossing ops, or null when there were none. */
    String crossingNote() {
        return crossing == 0 ? null : crossing + " ops overlap an op on their thread without nesting in it (first: "
                + firstCrossing + "); self CPU times of the ops involved are not meaningful";
    }

    OpSummary summary() {
        java.util.List<OpSummaryRow> rows = new java.util.ArrayList<>(byName.size());
        byName.forEachInt((nameId, a) -> rows.add(new OpSummaryRow(names.name(nameId), a[COUNT], a[CPU] / 1000.0,
                a[SELF_CPU] / 1000.0, a[DEVICE] / 1000.0, a[SELF_DEVICE] / 1000.0)));
        return OpSummary.of(rows);
    }
}
