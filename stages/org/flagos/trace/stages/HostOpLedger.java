package org.flagos.trace.stages;

import java.util.Arrays;
import org.agrona.collections.Long2LongHashMap;
import org.flagos.trace.model.GenerationalMap;
import org.flagos.trace.model.NearbyKeyMap;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;

/**
 * The host ops the trace walk holds until they settle, and the device time and API thread that
 * records bring for them. An op settles once nothing can still refer to it: a horizon of records
 * (those the join counts: activity and bindings) has arrived after it, so the device and API records
 * that name its External id, parked ones included, have been written. Settling folds it into the
 * summary ({@link OpSummaryFold}, in post-order per thread) and then hands its {@code cpu_op} row out,
 * in start order among the ops waiting; {@code Ev Idx} is the rank in which rows are written. A
 * capture shorter than the horizon settles everything at its end, as the writer always did: every
 * row in start order, numbered by it.
 *
 * <p>What is held is bounded: the ops of one horizon (and at most {@link #capacity} of them; more
 * settle early, counted in {@link #settledAtCapacity()}), and for device and API records whose op
 * has not come yet one small entry per External id, kept for a horizon. An entry no op claims in
 * that time is dropped and its device records counted ({@link #unclaimedDeviceRecords()}): they are
 * in the trace, but in no summary row. Ops written before their thread's row was known are counted
 * when it becomes known ({@link #drawnBeforeRowKnown()}).
 *
 * <p>A live session settles sooner ({@link #settleAfter(int)}: its tracer's bound, which grows past
 * any record seen late, {@link #seen(long)}); a record for an op it settled is then counted
 * ({@link #recordsAfterSettled()}), never given to another op.
 *
 * <p>With GPU annotations on ({@link #annotateStreams()}), each op and each early entry also holds its
 * span on each stream its device records ran on ({@link StreamSpans}, at most
 * {@link StreamSpans#PER_HOLDER} streams); settling folds the children's spans into their parent's as
 * it folds their device time, so a settled op's spans are those of its own records and its nested ops'.
 * A record on one stream more than an op holds is counted ({@link #spansPastLimit()}).
 */
final class HostOpLedger {
    private static final long NONE = -1;
    /** What {@link #settled} returns for an op not settled recently (arrival clocks are never negative). */
    private static final long NOT_SETTLED = -1;
    /** Unsettled ops one barrier steps past at most before it stops looking. */
    private static final int BARRIER_ASIDE_MAX = 4096;

    /** Records after an op's arrival by which records come for it once it arrived: then it settles. */
    private int settleAfter;
    /** Records a device or API record waits for its op to arrive (the join's horizon). */
    private final int horizon;
    private final int capacity;
    /**
     * Ops settled recently (External id to the record clock at its arrival, never negative), so that a
     * record arriving for one is counted as late for its op rather than as a record of no op; kept for
     * a horizon of later settlings. Only when their settling horizon is shorter than the join's; else null.
     */
    private GenerationalMap settled;
    private long recordsAfterSettled;
    /** The latest a record came after its op (records), while the op was held; live bound only. */
    private long latestSeen;
    /** The bound declared for a live session ({@link #settleAfter(int)}). */
    private int declared;
    private final OpSummaryFold fold;
    private final TraceRowLayout layout = new TraceRowLayout();

    int[] nameId = new int[256];
    int[] threadNameId = new int[256];
    long[] externalId = new long[256];
    long[] thread = new long[256];
    long[] start = new long[256];
    long[] end = new long[256];
    OpArgs[] args = new OpArgs[256];
    OpStack[] stacks = new OpStack[256];
    /**
     * True for an op drawn as {@code user_annotation}: an annotation range ({@link MarkerRanges}) or a
     * host op that says it is one (a scheduled session's {@code ProfilerStep#N}); a range's domain's name id or -1.
     */
    boolean[] annotation = new boolean[256];
    int[] domainId = new int[256];
    /** True for an annotation range: its thread is the vendor's API thread, not an ops-file thread. */
    boolean[] range = new boolean[256];
    private int lastOp;
    private long[] deviceNs = new long[256];
    private long[] apiThread = new long[256];
    private long[] arrivedAt = new long[256];
    private boolean[] folded = new boolean[256];
    /** True once a record named the op (binding, API or device record): it launched something. */
    private boolean[] bound = new boolean[256];
    private int[] freeSlots = new int[256];
    private int freeCount;
    private int used;
    private int live;
    private int maxLive;
    /**
     * Op slot by External id. Ops arrive with nearly consecutive External ids, so a direct-mapped
     * window ({@link NearbyKeyMap}) keeps the lookups of the device and API records that follow in
     * cache; Agrona's map scattered them (the join's bindings had the same pattern: 30% of a 10M
     * replay's CPU samples in {@code Long2LongHashMap.get}, docs/benchmarks.md "Where the time goes").
     */
    private final NearbyKeyMap slotOf = new NearbyKeyMap(1024, NONE);
    private final SlotHeap byStart = new SlotHeap() {
        @Override
        boolean before(int a, int b) {
            return start[a] != start[b] ? start[a] < start[b] : externalId[a] < externalId[b];
        }
    };
    private final SlotHeap byEnd = new SlotHeap() {
        @Override
        boolean before(int a, int b) { // children before parents: earlier end, then later start, then the later id
            if (end[a] != end[b]) {
                return end[a] < end[b];
            }
            return start[a] != start[b] ? start[a] > start[b] : externalId[a] > externalId[b];
        }
    };

    /** Device and API records whose op has not come yet, by External id, in arrival order. */
    private final NearbyKeyMap earlyOf = new NearbyKeyMap(1024, NONE); // nearly consecutive ids too, see slotOf
    private long[] earlyExternal = new long[256];
    private long[] earlyDevice = new long[256];
    private long[] earlyRecords = new long[256];
    private long[] earlyApi = new long[256];
    private long[] earlyAt = new long[256];
    private boolean[] earlyLive = new boolean[256];
    private long earlyOldest;
    private long earlyNext;

    private final Long2LongHashMap fallbackWritten = new Long2LongHashMap(16, 0.65f, 0, true);
    private long now;
    private long written;
    private long unclaimedDeviceRecords;
    private long settledAtCapacity;
    private long drawnBeforeRowKnown;
    private long barriers;
    private boolean barriersExpected;
    private long settledAtBarrier;
    /** Ops a barrier could not settle yet, put back after its scan. */
    private int[] aside = new int[BARRIER_ASIDE_MAX];
    /** Threads on which a barrier met an op it could not settle: their later ops wait (post-order). */
    private final org.agrona.collections.LongHashSet blocked = new org.agrona.collections.LongHashSet();
    private volatile boolean recordsExpected = true;
    /** Each op's span per stream, or null when GPU annotations are off. */
    StreamSpans spans;
    private StreamSpans earlySpans;
    private long spansPastLimit;

    /**
     * @param horizon  records after an op's arrival by which its records have come (the join's)
     * @param capacity ops held at most
     */
    HostOpLedger(OpSummaryFold fold, int horizon, int capacity) {
        this.fold = fold;
        this.horizon = horizon;
        this.settleAfter = horizon;
        this.capacity = capacity;
    }

    /**
     * Settles an op once {@code records} have arrived after it, sooner than the join's horizon (a live
     * tracer that delivers an op's records within that many, {@code DeviceTracer.opSettleRecords});
     * called before any op arrives. Records arriving for an op settled sooner are then told apart from
     * those of no op: {@link #recordsAfterSettled()}. Records that come before their op still wait the
     * join's horizon for it (an outer op closes after all its launches).
     */
    void settleAfter(int records) {
        if (records > 0 && records < horizon) {
            settleAfter = records;
            declared = records;
            settled = new GenerationalMap(records, NOT_SETTLED);
        }
    }

    /**
     * A record came for op {@code s}, held or settled. When it came later than three quarters of the bound, the
     * bound becomes that lateness plus the declared bound, up to the join's horizon; never lowered.
     * Why: under backpressure (a full ring; ops kept aside and published when room appears, ahead of
     * the vendor buffers still waiting for slots) records trail their op by the tracer's backlog, not
     * one buffer: on the CPU probe with the loop outrunning the stages, the fixed bound left 83,000 and
     * 106,000 records after their op settled. The backlog grows a buffer at a time, so one declared
     * bound past the latest seen keeps ahead of it. A session that keeps up sees at most about one
     * buffer (43,232 records on the probe, under the 65,536 declared) and keeps its bound.
     */
    private void seen(int s) {
        seen(now - arrivedAt[s]);
    }

    /** A record of a settled op: counted, and its lateness raises the bound as {@link #seen(int)} says. */
    private boolean lateForSettled(long external) {
        long at = settled.get(external);
        if (at == NOT_SETTLED) {
            return false;
        }
        recordsAfterSettled++;
        seen(now - at);
        return true;
    }

    private void seen(long late) {
        if (late > latestSeen && declared > 0) {
            latestSeen = late;
            if (late > settleAfter - settleAfter / 4) {
                settleAfter = (int) Math.min(horizon, late + declared);
            }
        }
    }

    /**
     * Flush barriers will come ({@link #barrier}): ops settled at them are remembered, so a record that
     * names one later is counted as late for its op. Before any op arrives.
     */
    void expectBarriers() {
        barriersExpected = true;
        if (settled == null) {
            settled = new GenerationalMap(Math.min(horizon, 1 << 16), NOT_SETTLED);
        }
    }

    /** True in a live session: a settle bound was declared ({@link #settleAfter(int)}) or barriers will come. */
    boolean live() {
        return declared > 0 || barriersExpected;
    }

    /** The records after which an op settles (a live bound may have grown: {@link #seen}). */
    int settlesAfter() {
        return settleAfter;
    }

    /** No device or API record will come: settling at capacity then loses nothing. */
    void expectNoRecords() {
        recordsExpected = false;
    }

    /**
     * Keeps each op's span on each stream it ran device work on (its own and its nested ops'), for
     * GPU annotations; called before any op or record arrives.
     */
    void annotateStreams() {
        spans = new StreamSpans(nameId.length);
        earlySpans = new StreamSpans(earlyExternal.length);
    }

    /** A host op arrived. */
    void op(int name, long external, long opThread, long startNs, long endNs, int threadName) {
        int s = allocate();
        lastOp = s;
        nameId[s] = name;
        threadNameId[s] = threadName;
        externalId[s] = external;
        thread[s] = opThread;
        start[s] = startNs;
        end[s] = endNs;
        deviceNs[s] = 0;
        apiThread[s] = NONE;
        arrivedAt[s] = now;
        folded[s] = false;
        bound[s] = false;
        annotation[s] = false;
        domainId[s] = -1;
        range[s] = false;
        if (spans != null) {
            spans.clear(s);
        }
        long early = earlyOf.remove(external);
        if (early != NONE) {
            int e = earlySlot(early);
            deviceNs[s] = earlyDevice[e];
            apiThread[s] = earlyApi[e];
            bound[s] = true; // a binding, API or device record came first
            earlyLive[e] = false;
            if (spans != null) {
                spans.copy(s, earlySpans, e);
            }
        }
        slotOf.put(external, s);
        byStart.add(s);
        byEnd.add(s);
        live++;
        maxLive = Math.max(maxLive, live);
    }

    /** The args and stack of the op that {@link #op} just took (null: none). */
    void detail(OpArgs opArgs, OpStack stack) {
        args[lastOp] = opArgs;
        stacks[lastOp] = stack;
    }

    /**
     * Marks the op that {@link #op} just took as an annotation range on the vendor's API thread
     * (its {@code opThread}): it folds with the ops-file thread drawn on that row, so it nests with them.
     */
    void annotation(int domainNameId) {
        annotation[lastOp] = true;
        domainId[lastOp] = domainNameId;
        range[lastOp] = true;
    }

    /**
     * Marks the host op that {@link #op} just took as a user annotation: drawn as {@code user_annotation},
     * on its own (ops-file) thread's row, settled, nested and summed as any op.
     */
    void userAnnotation() {
        annotation[lastOp] = true;
    }

    /** A device record of {@code ns} with this External id was written (its stream and times not told: no span). */
    void device(long external, long ns) {
        device(external, 0, 0, 0, ns, false);
    }

    /** A device record with this External id, on {@code stream} ({@link StreamSpans#streamKey}), from {@code startNs} to {@code endNs}, was written. */
    void device(long external, long stream, long startNs, long endNs) {
        device(external, stream, startNs, endNs, endNs - startNs, spans != null);
    }

    private void device(long external, long stream, long startNs, long endNs, long ns, boolean spanned) {
        long s = slotOf.get(external);
        if (s != NONE) {
            if (settled != null) {
                seen((int) s);
            }
            deviceNs[(int) s] += ns;
            bound[(int) s] = true;
            if (spanned && !spans.add((int) s, stream, startNs, endNs)) {
                spansPastLimit++;
            }
            return;
        }
        if (settled != null && lateForSettled(external)) {
            return; // drawn with its External id; its time is in no op's total or span
        }
        int e = earlyEntry(external);
        earlyDevice[e] += ns;
        earlyRecords[e]++;
        if (spanned && !earlySpans.add(e, stream, startNs, endNs)) {
            spansPastLimit++;
        }
    }

    /** An API record with this External id ran on {@code apiThreadId}; the first one counts. */
    void api(long external, long apiThreadId) {
        long s = slotOf.get(external);
        if (s != NONE) {
            if (settled != null) {
                seen((int) s);
            }
            if (apiThread[(int) s] == NONE) {
                apiThread[(int) s] = apiThreadId;
            }
            bound[(int) s] = true;
            return;
        }
        if (settled != null && lateForSettled(external)) {
            return; // drawn on its own thread; the op's row is where it was drawn
        }
        int e = earlyEntry(external);
        if (earlyApi[e] == NONE) {
            earlyApi[e] = apiThreadId;
        }
    }

    /**
     * A binding named this External id: its op launched something, so a flush barrier leaves it to
     * its records. Before the op arrives the mark waits in an early entry (a horizon, like records).
     */
    void bound(long external) {
        long s = slotOf.get(external);
        if (s != NONE) {
            bound[(int) s] = true;
        } else if (settled == null || settled.get(external) == NOT_SETTLED) {
            earlyEntry(external); // an early entry of any record marks its op bound when it comes
        }
    }

    /**
     * A flush barrier at {@code ns}: the tracer has published every binding and API record of calls
     * that returned before it. Among the held ops that ended before it, in end order, those no record
     * named launched nothing and settle now; so do those that did, once they ended more than
     * {@code boundLagNs} before it (their device work has had that long to complete; a record still
     * to come is counted, {@link #recordsAfterSettled()}). An op that must wait blocks the later ops of
     * its thread (the summary folds each thread's ops in post-order); an annotation range that must
     * wait ends the scan (its thread is the vendor's, not an op's).
     */
    void barrier(long ns, long boundLagNs) {
        barriers++;
        int n = 0;
        blocked.clear();
        long boundBefore = ns - boundLagNs;
        while (byEnd.size > 0 && n < aside.length) {
            int s = byEnd.peek();
            if (end[s] >= ns) {
                break;
            }
            boolean due = !bound[s] || end[s] < boundBefore;
            if (range[s]) {
                if (!due || !blocked.isEmpty()) {
                    break;
                }
            } else if (!due || blocked.contains(thread[s])) {
                blocked.add(thread[s]);
                aside[n++] = byEnd.poll();
                continue;
            }
            fold(byEnd.poll());
            settledAtBarrier++;
        }
        for (int i = 0; i < n; i++) {
            byEnd.add(aside[i]);
        }
    }

    /** Flush barriers seen. */
    long barriers() {
        return barriers;
    }

    /** Ops settled by a flush barrier rather than by their records or the capture's end. */
    long settledAtBarrier() {
        return settledAtBarrier;
    }

    /** One record (activity or binding) arrived: the clock the horizon is counted in. */
    void record() {
        now++;
        while (earlyOldest < earlyNext) {
            int e = earlySlot(earlyOldest);
            if (earlyLive[e]) {
                if (now - earlyAt[e] <= horizon) {
                    return;
                }
                unclaimedDeviceRecords += earlyRecords[e];
                earlyOf.remove(earlyExternal[e]);
                earlyLive[e] = false;
            }
            earlyOldest++;
        }
    }

    /**
     * Folds the ops whose horizon has passed; {@link #nextRow()} then hands the rows that are due,
     * in start order.
     */
    void settle() {
        while (byEnd.size > 0 && now - arrivedAt[byEnd.peek()] > settleAfter) {
            fold(byEnd.poll());
        }
    }

    /**
     * The end of the capture: everything settles (drain {@link #nextRow()} after it), and what no
     * op claimed is counted.
     */
    void finish() {
        while (byEnd.size > 0) {
            fold(byEnd.poll());
        }
        for (long q = earlyOldest; q < earlyNext; q++) {
            int e = earlySlot(q);
            if (earlyLive[e]) {
                unclaimedDeviceRecords += earlyRecords[e];
                earlyLive[e] = false;
            }
        }
        earlyOf.clear();
        earlyOldest = earlyNext;
    }

    /**
     * The slot of the next op row to write, or -1 when none is due: the earliest-starting op once it
     * is folded; while more ops are held than {@link #capacity}, the op that ends first is folded
     * early to make room. The slot's fields stay valid until the next {@link #op}; its {@code Ev Idx}
     * is {@link #written()} less one.
     */
    int nextRow() {
        while (true) {
            if (byStart.size > 0 && folded[byStart.peek()]) {
                int s = byStart.poll();
                if (!range[s] && !layout.knows(thread[s])) {
                    fallbackWritten.put(thread[s], fallbackWritten.get(thread[s]) + 1);
                }
                written++;
                freeSlots[freeCount++] = s;
                live--;
                return s;
            }
            if (live <= capacity || byEnd.size == 0) {
                return -1;
            }
            if (recordsExpected) {
                settledAtCapacity++;
            }
            fold(byEnd.poll());
        }
    }

    private void fold(int s) {
        if (range[s]) {
            thread[s] = layout.opThreadOf(thread[s]); // the row stays the API thread: hostRow maps it back
        }
        fold.fold(nameId[s], externalId[s], thread[s], start[s], end[s], deviceNs[s], spans, s);
        folded[s] = true;
        if (slotOf.get(externalId[s]) == s) {
            slotOf.remove(externalId[s]);
        }
        if (settled != null) {
            settled.put(externalId[s], arrivedAt[s]);
        }
        if (apiThread[s] != NONE && !layout.knows(thread[s])) {
            layout.learn(thread[s], apiThread[s]);
            drawnBeforeRowKnown += fallbackWritten.remove(thread[s]);
        }
    }

    /** The row an op is drawn on: the thread its API calls ran on, once known. */
    long row(int slot) {
        return layout.hostRow(thread[slot]);
    }

    /** Rows written. */
    long written() {
        return written;
    }

    long unclaimedDeviceRecords() {
        return unclaimedDeviceRecords;
    }

    /** The most ops held at once. */
    long maxHeld() {
        return maxLive;
    }

    /** Device records and nested spans left out of an op's spans: it held {@link StreamSpans#PER_HOLDER} streams already. */
    long spansPastLimit() {
        return spansPastLimit + fold.spansPastLimit();
    }

    /**
     * Device and API records that named an op already settled because its settling horizon
     * ({@link #settleAfter}) had passed: drawn with their External id, in no op's device total, span or
     * row choice. Records of ops settled longer ago than {@link #settled} remembers count in
     * {@link #unclaimedDeviceRecords()} instead.
     */
    long recordsAfterSettled() {
        return recordsAfterSettled;
    }

    long settledAtCapacity() {
        return settledAtCapacity;
    }

    long drawnBeforeRowKnown() {
        return drawnBeforeRowKnown;
    }

    private int allocate() {
        if (freeCount > 0) {
            return freeSlots[--freeCount];
        }
        if (used == nameId.length) {
            int n = used * 2;
            nameId = Arrays.copyOf(nameId, n);
            threadNameId = Arrays.copyOf(threadNameId, n);
            externalId = Arrays.copyOf(externalId, n);
            thread = Arrays.copyOf(thread, n);
            start = Arrays.copyOf(start, n);
            end = Arrays.copyOf(end, n);
            args = Arrays.copyOf(args, n);
            stacks = Arrays.copyOf(stacks, n);
            annotation = Arrays.copyOf(annotation, n);
            domainId = Arrays.copyOf(domainId, n);
            range = Arrays.copyOf(range, n);
            deviceNs = Arrays.copyOf(deviceNs, n);
            apiThread = Arrays.copyOf(apiThread, n);
            arrivedAt = Arrays.copyOf(arrivedAt, n);
            folded = Arrays.copyOf(folded, n);
            bound = Arrays.copyOf(bound, n);
            freeSlots = Arrays.copyOf(freeSlots, n);
            if (spans != null) {
                spans.ensure(n);
            }
        }
        return used++;
    }

    /** The entry for records of {@code external} whose op has not come, made when missing. */
    private int earlyEntry(long external) {
        long q = earlyOf.get(external);
        if (q != NONE) {
            return earlySlot(q);
        }
        if (earlyNext - earlyOldest == earlyExternal.length) {
            growEarly();
        }
        q = earlyNext++;
        int e = earlySlot(q);
        earlyExternal[e] = external;
        earlyDevice[e] = 0;
        earlyRecords[e] = 0;
        earlyApi[e] = NONE;
        earlyAt[e] = now;
        earlyLive[e] = true;
        if (earlySpans != null) {
            earlySpans.clear(e);
        }
        earlyOf.put(external, q);
        return e;
    }

    private int earlySlot(long sequence) {
        return (int) (sequence & (earlyExternal.length - 1));
    }

    private void growEarly() {
        int n = earlyExternal.length;
        long[] x = new long[n * 2];
        long[] d = new long[n * 2];
        long[] r = new long[n * 2];
        long[] a = new long[n * 2];
        long[] t = new long[n * 2];
        boolean[] l = new boolean[n * 2];
        StreamSpans sp = earlySpans == null ? null : new StreamSpans(n * 2);
        for (long q = earlyOldest; q < earlyNext; q++) {
            int from = (int) (q & (n - 1));
            int to = (int) (q & (2 * n - 1));
            x[to] = earlyExternal[from];
            d[to] = earlyDevice[from];
            r[to] = earlyRecords[from];
            a[to] = earlyApi[from];
            t[to] = earlyAt[from];
            l[to] = earlyLive[from];
            if (sp != null) {
                sp.copy(to, earlySpans, from);
            }
        }
        earlySpans = sp;
        earlyExternal = x;
        earlyDevice = d;
        earlyRecords = r;
        earlyApi = a;
        earlyAt = t;
        earlyLive = l;
    }

    /** A binary min-heap of op slots. */
    private abstract static class SlotHeap {
        int[] heap = new int[256];
        int size;

        abstract boolean before(int a, int b);

        void add(int slot) {
            if (size == heap.length) {
                heap = Arrays.copyOf(heap, size * 2);
            }
            int i = size++;
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (!before(slot, heap[parent])) {
                    break;
                }
                heap[i] = heap[parent];
                i = parent;
            }
            heap[i] = slot;
        }

        int peek() {
            return heap[0];
        }

        int poll() {
            int top = heap[0];
            int last = heap[--size];
            int i = 0;
            while (true) {
                int child = 2 * i + 1;
                if (child >= size) {
                    break;
                }
                if (child + 1 < size && before(heap[child + 1], heap[child])) {
                    child++;
                }
                if (!before(heap[child], last)) {
                    break;
                }
                heap[i] = heap[child];
                i = child;
            }
            if (size > 0) {
                heap[i] = last;
            }
            return top;
        }
    }
}
