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
    /** Runtime calls of one row held at most before the earliest are folded without waiting for their op. */
    static final int MAX_PENDING_CALLS = 1 << 18; // the join's horizon: a call's op settles within it
    /** Overhead records held at most while they wait for their op (the trace's summary holds as many). */
    static final int MAX_OVERHEAD = 1 << 18;
    /** The row of overhead records outside every op (torch's pid -1 row). */
    private static final long OVERHEAD_ROW = Long.MIN_VALUE;

    private static final int COUNT = 0;
    private static final int CPU = 1;
    private static final int SELF_CPU = 2;
    private static final int DEVICE = 3;
    private static final int SELF_DEVICE = 4;
    /** The start of the row's first event, and its length: where torch lists the row among ties. */
    private static final int FIRST_START = 5;
    private static final int FIRST_LENGTH = 6;

    private final Long2ObjectHashMap<Siblings> threads = new Long2ObjectHashMap<>();
    private final Int2ObjectHashMap<long[]> byName = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<long[]> byCall = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<long[]> byDevice = new Int2ObjectHashMap<>();
    private final Long2ObjectHashMap<Calls> calls = new Long2ObjectHashMap<>();
    /** Overhead records no op around them has folded yet. */
    private final Calls overhead = new Calls();
    private final KeyAveragesRule.UnionInEndOrder union = new KeyAveragesRule.UnionInEndOrder();
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
        /** Nanoseconds the entry's parts cover: its span for one event, less for a merged entry with gaps. */
        long[] cover = new long[16];
        long[] device = new long[16];
        int[] nameId = new int[16];
        long[] externalId = new long[16];
        long lastEnd = Long.MIN_VALUE;
        long lastStart;
        long lastExternalId;
        /** Each entry's spans per stream; null when the ops carry none. */
        StreamSpans spans;
        /** Scratch of {@link #compactOlderHalf}: the gaps between the older half's entries, and sorted. */
        long[] gaps = new long[0];
        long[] sorted = new long[0];

        void push(long s, long partStart, long e, long c, long d, int name, long external) {
            push(s, partStart, e, c, e - s, d, name, external);
        }

        void push(long s, long partStart, long e, long c, long cov, long d, int name, long external) {
            if (size == start.length) {
                int n = size * 2;
                start = java.util.Arrays.copyOf(start, n);
                lastPartStart = java.util.Arrays.copyOf(lastPartStart, n);
                end = java.util.Arrays.copyOf(end, n);
                cpu = java.util.Arrays.copyOf(cpu, n);
                cover = java.util.Arrays.copyOf(cover, n);
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
            cover[size] = cov;
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
            if (gaps.length < half - 1) { // scratch kept between compactions: they come every MAX_SIBLINGS / 2 events
                gaps = new long[half - 1];
                sorted = new long[half - 1];
            }
            for (int i = 1; i < half; i++) {
                gaps[i - 1] = start[i] - end[i - 1];
            }
            System.arraycopy(gaps, 0, sorted, 0, half - 1);
            java.util.Arrays.sort(sorted, 0, half - 1);
            long threshold = half - 1 > KEPT_BOUNDARIES ? sorted[half - 1 - KEPT_BOUNDARIES] : Long.MIN_VALUE;
            int kept = 0;
            int to = -1;
            for (int i = 0; i < half; i++) {
                boolean boundary = i == 0 || gaps[i - 1] > threshold || gaps[i - 1] == threshold && kept < KEPT_BOUNDARIES;
                if (i > 0 && boundary) {
                    kept++;
                }
                long partCpu = cpu[i]; // read before the group (at or below i) is written
                long partCover = Math.min(cover[i], end[i] - Math.max(start[i], to >= 0 && !boundary ? end[to] : Long.MIN_VALUE));
                long partDevice = device[i];
                if (boundary) {
                    to++;
                    start[to] = start[i];
                    cpu[to] = 0;
                    cover[to] = 0;
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
                cover[to] += Math.max(0, partCover);
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
            System.arraycopy(cover, half, cover, at, rest);
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
            if (lastEnd == Long.MIN_VALUE) {
                return true;
            }
            int c = KeyAveragesRule.postOrder(lastStart, lastEnd, s, e);
            return c != 0 ? c < 0 : external < lastExternalId;
        }
    }

    /** Folds one op whose own device time ({@code selfDeviceNs}) is complete. */
    void fold(int nameId, long externalId, long thread, long start, long end, long selfDeviceNs) {
        fold(nameId, externalId, thread, start, end, selfDeviceNs, null, 0);
    }

    /**
     * As {@link #fold(int, long, long, long, long, long)}, and widens the op's spans ({@code holder} of
     * {@code opSpans}; null: none) by those of the children it claims, so they are its total spans after.
     * {@code thread} is the row the op is drawn on: the runtime calls drawn there that end before it
     * in post-order ({@link KeyAveragesRule#postOrder}) are folded first, as its children or siblings.
     */
    void fold(int nameId, long externalId, long thread, long start, long end, long selfDeviceNs,
              StreamSpans opSpans, int holder) {
        Siblings t = threads.get(thread);
        if (t == null) {
            t = new Siblings();
            threads.put(thread, t);
        }
        Calls pending = calls.get(thread);
        if (overhead.size() > 0 && end > start) {
            pending = claimOverhead(thread, pending, start, end, selfDeviceNs);
        }
        if (pending != null) {
            pending.foldBefore(t, start, end);
        }
        foldEvent(t, nameId, false, externalId, start, end, selfDeviceNs, opSpans, holder);
    }

    /**
     * One event on its row's stack: it claims the completed siblings on top that nest in it
     * ({@link KeyAveragesRule#nests}); its self CPU time is its duration less their union.
     */
    private void foldEvent(Siblings t, int nameId, boolean call, long externalId, long start, long end, long selfDeviceNs,
                           StreamSpans opSpans, int holder) {
        long cpu = end - start;
        if (!t.afterLast(start, end, externalId)) {
            approximate++; // a later event of this row was folded already: this one is a leaf
            add(call ? byCall : byName, nameId, start, cpu, cpu, cpu, selfDeviceNs, selfDeviceNs);
            return;
        }
        t.lastEnd = end;
        t.lastStart = start;
        t.lastExternalId = externalId;
        union.reset();
        long childDevice = 0;
        while (t.size > 0 && end > start) { // an event of zero length has no children
            int top = t.size - 1;
            if (t.start[top] >= start) {
                union.add(t.start[top], t.end[top], t.cover[top], start, end);
                childDevice += t.device[top];
                if (opSpans != null && t.spans != null) {
                    spansPastLimit += opSpans.addAll(holder, t.spans, top);
                }
                t.size--;
                continue;
            }
            if (t.lastPartStart[top] >= start) {
                approximate++; // starts between the parts of a merged entry: claims none of it
            } else if (t.end[top] > start && !call) {
                crossing++;
                if (firstCrossing == null) {
                    firstCrossing = "'" + names.name(nameId) + "' (External id " + externalId + ") starts inside '"
                            + names.name(t.nameId[top]) + "' (External id " + t.externalId[top] + ") but ends after it";
                }
            }
            break;
        }
        long total = selfDeviceNs + childDevice;
        add(call ? byCall : byName, nameId, start, cpu, cpu, KeyAveragesRule.selfNs(cpu, union.union()), total, selfDeviceNs);
        t.push(start, start, end, cpu, total, nameId, externalId);
        if (opSpans != null) {
            if (t.spans == null) {
                t.spans = new StreamSpans(t.start.length);
            }
            t.spans.ensure(t.start.length);
            t.spans.copy(t.size - 1, opSpans, holder);
        } else if (t.spans != null) { // a runtime call or overhead record: no spans of its own (none left from an entry before)
            t.spans.ensure(t.start.length);
            t.spans.clear(t.size - 1);
        }
        if (t.size > MAX_SIBLINGS) {
            spansPastLimit += t.compactOlderHalf();
        }
    }

    /**
     * A runtime or driver call drawn on row {@code thread}: a child of the op around it there, a row
     * of its own. Held until an op of the row that ends after it folds (or {@link #summary()}), at
     * most {@link #MAX_PENDING_CALLS} a row: past that the earliest are folded then.
     */
    void call(int nameId, long thread, long start, long end) {
        Calls c = calls.get(thread);
        if (c == null) {
            c = new Calls();
            calls.put(thread, c);
        }
        c.add(nameId, start, end, 0);
        if (c.size() > MAX_PENDING_CALLS) {
            Siblings t = threads.get(thread);
            if (t == null) {
                t = new Siblings();
                threads.put(thread, t);
            }
            c.foldEarliest(t, c.size() / 2);
        }
    }

    /**
     * A profiler-overhead record (CUPTI's "Activity Buffer Request", ...): as the trace's summary and
     * torch take it, it belongs to the innermost op around it on any thread, nests on that op's row
     * and is credited with the op's own device time. Held (at most {@link #MAX_OVERHEAD}; past that
     * it is a row alone) until the first op around it folds: that op is its owner. (An op of another
     * thread around it that starts later but ends later still is not looked for.)
     */
    void overhead(int nameId, long start, long end) {
        if (overhead.size() == MAX_OVERHEAD) {
            Siblings alone = threads.get(OVERHEAD_ROW);
            if (alone == null) {
                alone = new Siblings();
                threads.put(OVERHEAD_ROW, alone);
            }
            approximate++;
            foldEvent(alone, nameId, true, Long.MIN_VALUE, start, end, 0, null, 0);
            return;
        }
        overhead.add(nameId, start, end, 0);
    }

    /** Moves the held overhead records inside {@code [start, end]} to that row's calls, with the op's device time. */
    private Calls claimOverhead(long thread, Calls pending, long start, long end, long deviceNs) {
        Calls c = pending;
        if (c == null) {
            c = new Calls();
            calls.put(thread, c);
        }
        overhead.moveInside(start, end, c, deviceNs);
        return c;
    }

    /** One device record (kernel, copy, set): a device row of its own, its duration its self device time. */
    void deviceEvent(int nameId, long startNs, long durationNs) {
        add(byDevice, nameId, startNs, durationNs, 0, 0, durationNs, durationNs);
    }

    /** A row's runtime calls (or overhead records) not folded yet, leaving in post-order. */
    private final class Calls {
        private final PostOrderQueue queue = new PostOrderQueue();

        int size() {
            return queue.size();
        }

        void add(int name, long s, long e, long d) {
            queue.add(name, s, e, d);
        }

        /** Folds the entries that come before an event {@code [s, e]} in post-order. */
        void foldBefore(Siblings t, long s, long e) {
            while (queue.size() > 0 && KeyAveragesRule.postOrder(queue.firstStart(), queue.firstEnd(), s, e) < 0) {
                foldFirst(t);
            }
        }

        void foldEarliest(Siblings t, int n) {
            for (int k = 0; k < n; k++) {
                foldFirst(t);
            }
        }

        private void foldFirst(Siblings t) {
            int name = queue.firstName();
            long start = queue.firstStart();
            long end = queue.firstEnd();
            long device = queue.firstDevice();
            queue.removeFirst();
            foldEvent(t, name, true, Long.MIN_VALUE, start, end, device, null, 0);
        }

        /** Hands the entries inside {@code [s, e]} to {@code out} (credited with {@code deviceNs}), keeps the others. */
        void moveInside(long s, long e, Calls out, long deviceNs) {
            queue.moveInside(s, e, out.queue, deviceNs);
        }
    }

    private static void add(Int2ObjectHashMap<long[]> rows, int nameId, long start, long length, long cpu, long selfCpu,
                            long device, long selfDevice) {
        long[] row = rows.get(nameId);
        if (row == null) {
            row = new long[7];
            row[FIRST_START] = start;
            row[FIRST_LENGTH] = length;
            rows.put(nameId, row);
        } else if (start < row[FIRST_START] || start == row[FIRST_START] && length > row[FIRST_LENGTH]) {
            row[FIRST_START] = start;
            row[FIRST_LENGTH] = length;
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

    /** The rows; runtime calls still held are folded first (a trace's end closes every row). */
    OpSummary summary() {
        if (overhead.size() > 0) {
            Siblings alone = threads.get(OVERHEAD_ROW);
            if (alone == null) {
                alone = new Siblings();
                threads.put(OVERHEAD_ROW, alone);
            }
            overhead.foldEarliest(alone, overhead.size()); // outside every op: rows alone, no device time
        }
        calls.forEach((thread, c) -> {
            Siblings t = threads.get(thread);
            if (t == null) {
                t = new Siblings();
                threads.put(thread, t);
            }
            c.foldEarliest(t, c.size());
        });
        return OpSummary.of(rows(byName), rows(byCall), rows(byDevice));
    }

    private java.util.List<OpSummaryRow> rows(Int2ObjectHashMap<long[]> table) {
        java.util.List<OpSummaryRow> rows = new java.util.ArrayList<>(table.size());
        table.forEachInt((nameId, a) -> rows.add(new OpSummaryRow(names.name(nameId), a[COUNT], a[CPU] / 1000.0,
                a[SELF_CPU] / 1000.0, a[DEVICE] / 1000.0, a[SELF_DEVICE] / 1000.0, a[FIRST_START], a[FIRST_LENGTH])));
        return rows;
    }
}
