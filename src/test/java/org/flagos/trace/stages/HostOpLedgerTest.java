package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.flagos.trace.model.NameTable;
import org.junit.jupiter.api.Test;

/**
 * Host ops settle as a capture goes: a horizon of records after an op arrives it is folded into the
 * summary and its row written, so what is held does not grow with the capture, and the summary is
 * the one the whole list of ops gives (a reference that nests every op against every other).
 */
class HostOpLedgerTest {
    private final NameTable names = new NameTable();
    private final OpSummaryFold fold = new OpSummaryFold(names);
    private final List<long[]> rows = new ArrayList<>(); // external id, ev idx, row

    /** Settles what is due and keeps the rows handed out, as the walk writes them. */
    private void settle(HostOpLedger ops) {
        ops.settle();
        drain(ops);
    }

    private void finish(HostOpLedger ops) {
        ops.finish();
        drain(ops);
    }

    private void drain(HostOpLedger ops) {
        for (int slot; (slot = ops.nextRow()) >= 0; ) {
            rows.add(new long[] {ops.externalId[slot], ops.written() - 1, ops.row(slot)});
        }
    }

    /** One op as a test draws it. */
    private record Op(String name, long externalId, long thread, long start, long end, long deviceNs) {
    }

    @Test
    void anOpSettlesAHorizonOfRecordsAfterItArrivesAndRowsGoInStartOrder() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 4, 1 << 20);
        int name = names.intern("op");
        ops.op(name, 2, 1, 200, 300, -1); // arrives first, starts later
        ops.op(name, 1, 1, 100, 150, -1);
        for (int i = 0; i < 4; i++) {
            ops.record();
            settle(ops);
        }
        assertTrue(rows.isEmpty(), "within the horizon nothing settles");
        ops.record();
        settle(ops);
        assertEquals(2, rows.size(), "a horizon later both have");
        assertEquals(1, rows.get(0)[0], "the earlier start first");
        assertEquals(0, rows.get(0)[1]);
        assertEquals(2, rows.get(1)[0]);
        assertEquals(1, rows.get(1)[1], "Ev Idx is the rank written");
        assertEquals(0, ops.maxHeld() - 2);
    }

    @Test
    void deviceTimeBeforeOrAfterItsOpIsItsOwnWithinTheHorizonAndCountedPastIt() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 8, 1 << 20);
        int name = names.intern("op");
        ops.device(7, 100); // the op's kernel came before the op
        ops.api(7, 42);
        ops.record();
        ops.op(name, 7, 1, 0, 1_000, -1);
        ops.device(7, 20); // and one after it
        for (int i = 0; i < 9; i++) {
            ops.record();
            settle(ops);
        }
        assertEquals(1, rows.size());
        assertEquals(42, rows.get(0)[2], "drawn on the row of the thread its API call ran on");
        ops.device(7, 5); // after the op settled: in no row, counted
        ops.device(99, 3); // an id no op has
        finish(ops);
        assertEquals(2, ops.unclaimedDeviceRecords());
        assertEquals(0.120, fold.summary().row("op").selfDeviceTimeTotalUs(), 1e-12);
    }

    /**
     * A live tracer's bound: an op settles {@code settleAfter} records after it arrives, not the join's
     * horizon later. A record within the bound is its op's; one past it is counted as late for its op,
     * not as a record of no op, and changes no settled total; a record that comes before its op still
     * waits the join's horizon for it (an outer op closes after its launches).
     */
    @Test
    void aLiveSettleBoundAttributesRecordsWithinItAndCountsLaterOnesAsAfterTheirOpSettled() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 1 << 18, 1 << 18);
        ops.settleAfter(8);
        assertEquals(8, ops.settlesAfter());
        int name = names.intern("live op");
        ops.device(5, 300); // an outer op's early launch, long before the op closes
        for (int i = 0; i < 1_000; i++) {
            ops.record();
            settle(ops);
        }
        ops.op(name, 5, 1, 0, 10_000, -1);
        ops.op(name, 7, 1, 1_000, 2_000, -1);
        for (int i = 0; i < 4; i++) {
            ops.record();
            settle(ops);
        }
        ops.device(7, 20); // 4 records after the op: its own
        ops.api(7, 42);
        for (int i = 0; i < 4; i++) {
            ops.record();
            settle(ops);
        }
        assertTrue(rows.isEmpty(), "within the bound nothing settles");
        assertEquals(8, ops.settlesAfter(), "a record within three quarters of the bound leaves it");
        ops.record();
        settle(ops);
        assertEquals(2, rows.size(), "one record past the bound both settle");
        assertEquals(42, rows.get(1)[2], "on the row of its API thread, learned within the bound");
        ops.device(7, 5); // past the bound
        ops.api(7, 43);
        ops.device(123_456, 9); // an id no op has
        finish(ops);
        assertEquals(2, ops.recordsAfterSettled(), "the late device and API records, counted as late for their op");
        assertEquals(1, ops.unclaimedDeviceRecords(), "only the record of no op counts as without op");
        assertEquals(0.320, fold.summary().row("live op").selfDeviceTimeTotalUs(), 1e-9,
                "the early record waited the join's horizon and is the outer op's; the late one is in no total");
    }

    /**
     * Backpressure makes records trail their op by more than the declared bound: a record seen later
     * than three quarters of it raises the bound to its lateness plus the declared bound, so the ops
     * after it wait that long, up to the join's horizon, and none of their records is late.
     */
    @Test
    void aRecordSeenNearTheBoundRaisesItByTheDeclaredBound() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 64, 1 << 18);
        ops.settleAfter(8);
        int name = names.intern("op");
        long id = 0;
        for (int lateness : new int[] {7, 14, 21, 28, 35}) { // a backlog growing by less than the bound each time
            ops.op(name, ++id, 1, id * 100, id * 100 + 10, -1);
            for (int i = 0; i < lateness; i++) {
                ops.record();
                settle(ops);
            }
            ops.device(id, 1);
        }
        assertEquals(0, ops.recordsAfterSettled(), "each record came within the bound its earlier ones set");
        assertEquals(35 + 8, ops.settlesAfter());
        ops.op(name, ++id, 1, id * 100, id * 100 + 10, -1);
        for (int i = 0; i < 100; i++) {
            ops.record();
            settle(ops);
        }
        ops.device(id, 1); // 100 records later: past the join's horizon too, late and counted
        assertEquals(64, ops.settlesAfter(), "never past the join's horizon");
        finish(ops);
        assertEquals(1, ops.recordsAfterSettled());
        assertTrue(ops.live());
    }

    @Test
    void aSettleBoundNotShorterThanTheJoinsChangesNothing() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 8, 1 << 20);
        ops.settleAfter(8);
        ops.settleAfter(0);
        assertEquals(8, ops.settlesAfter());
        ops.op(names.intern("op"), 7, 1, 0, 10, -1);
        for (int i = 0; i < 9; i++) {
            ops.record();
            settle(ops);
        }
        ops.device(7, 5);
        finish(ops);
        assertEquals(0, ops.recordsAfterSettled());
        assertEquals(1, ops.unclaimedDeviceRecords(), "as before: a replay does not tell late records apart");
    }

    /** Ids settled long ago are forgotten (memory stays bounded): a record for one then counts as of no op. */
    @Test
    void lateRecordsOfOpsSettledLongAgoCountAsWithoutOp() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 1 << 18, 1 << 18);
        ops.settleAfter(4);
        int name = names.intern("op");
        for (int i = 0; i < 100; i++) {
            ops.op(name, i, 1, i * 10L, i * 10L + 5, -1);
            for (int r = 0; r < 5; r++) {
                ops.record();
                settle(ops);
            }
        }
        assertEquals(100, rows.size());
        ops.device(99, 1); // settled 5 records ago: remembered
        ops.device(0, 1); // settled more than two generations of ids ago
        finish(ops);
        assertEquals(1, ops.recordsAfterSettled());
        assertEquals(1, ops.unclaimedDeviceRecords());
    }

    @Test
    void anEarlyRecordNoOpClaimsIsDroppedAHorizonLaterAndCounted() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 8, 1 << 20);
        for (int i = 0; i < 1_000_000; i++) {
            ops.device(1_000_000 + i, 10); // device work of ops that never come
            ops.record();
            settle(ops);
        }
        assertEquals(1_000_000 - 8, ops.unclaimedDeviceRecords(), "all but the last horizon's, before the end");
        finish(ops);
        assertEquals(1_000_000, ops.unclaimedDeviceRecords());
    }

    @Test
    void tooManyOpsWithoutRecordsSettleAtCapacityCounted() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 1 << 18, 100);
        int name = names.intern("cpu only");
        for (int i = 0; i < 10_000; i++) {
            ops.op(name, i, 1, i * 10L, i * 10L + 5, -1);
            settle(ops);
        }
        assertEquals(101, ops.maxHeld());
        assertEquals(10_000 - 100, ops.settledAtCapacity());
        finish(ops);
        assertEquals(10_000, rows.size());
        assertEquals(10_000, fold.summary().row("cpu only").count());
    }

    @Test
    void opsThatCrossOnAThreadAreCountedWithTheFirstExample() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 8, 1 << 20);
        ops.op(names.intern("a"), 1, 1, 0, 100, -1);
        ops.op(names.intern("b"), 2, 1, 50, 150, -1); // starts inside a, ends after it
        finish(ops);
        assertEquals(1, fold.crossing());
        assertEquals("1 ops overlap an op on their thread without nesting in it (first: 'b' (External id 2) starts inside "
                + "'a' (External id 1) but ends after it); self CPU times of the ops involved are not meaningful", fold.crossingNote());
        assertEquals(0.1, fold.summary().row("a").selfCpuTimeTotalUs(), 0.0, "b is no child of a");
        assertEquals(0.1, fold.summary().row("b").selfCpuTimeTotalUs(), 0.0);
    }

    /**
     * The case: a parent (0-1000 us) with two children that cross each other (100-700 and
     * 300-900): the parent's self CPU is its duration less the union of the children (800 us), 200 us,
     * as every summary computes it (KeyAveragesRule); the sum of the children (1,200 us) gave -200.
     */
    @Test
    void aParentsSelfTimeIsItsDurationLessTheUnionOfItsCrossingChildren() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 8, 1 << 20);
        ops.op(names.intern("childA"), 2, 1, 100_000, 700_000, -1);
        ops.op(names.intern("childB"), 3, 1, 300_000, 900_000, -1);
        ops.op(names.intern("parent"), 1, 1, 0, 1_000_000, -1);
        finish(ops);
        assertEquals(1, fold.crossing());
        assertEquals(200.0, fold.summary().row("parent").selfCpuTimeTotalUs(), 0.0);
        assertEquals(600.0, fold.summary().row("childA").selfCpuTimeTotalUs(), 0.0);
        assertEquals(600.0, fold.summary().row("childB").selfCpuTimeTotalUs(), 0.0);
    }

    /** Zero-length ops: one at its parent's start is its child, one at its end is not (torch's nesting); touching siblings both are. */
    @Test
    void zeroLengthAndTouchingOpsNestAsTorchNestsThem() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 8, 1 << 20);
        ops.op(names.intern("atStart"), 2, 1, 0, 0, -1);
        ops.op(names.intern("t1"), 3, 1, 0, 100_000, -1);
        ops.op(names.intern("t2"), 4, 1, 100_000, 250_000, -1);
        ops.op(names.intern("atEnd"), 5, 1, 300_000, 300_000, -1);
        ops.op(names.intern("p"), 1, 1, 0, 300_000, -1);
        finish(ops);
        assertEquals(0, fold.approximate());
        assertEquals(50.0, fold.summary().row("p").selfCpuTimeTotalUs(), 0.0);
        assertEquals(0, fold.crossing());
    }

    /**
     * Long captures drawn at random: per thread a run op around epochs around steps around leaves,
     * idle gaps between steps and longer ones between epochs, threads interleaved, each op arriving
     * as it ends with its device records just before or just after it. The horizon is small, so ops
     * settle all along and each thread's siblings are merged many times; the summary must still be
     * the reference's, exactly.
     */
    @Test
    void theSummaryOfOpsSettledAlongTheWayIsTheWholeListsExactly() throws Exception {
        for (long seed = 1; seed <= 5; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            List<Op> all = new ArrayList<>();
            long[] nextId = {1};
            for (int thread = 1; thread <= 3; thread++) {
                drawThread(random, thread, all, nextId);
            }
            all.sort(Comparator.comparingLong(Op::end).thenComparing(Comparator.comparingLong(Op::start).reversed()));
            NameTable n = new NameTable();
            OpSummaryFold f = new OpSummaryFold(n);
            HostOpLedger ops = new HostOpLedger(f, 64, 1 << 20);
            for (Op op : all) {
                if (random.nextBoolean()) {
                    ops.device(op.externalId(), op.deviceNs()); // the device record before its op
                    ops.record();
                    ops.op(n.intern(op.name()), op.externalId(), op.thread(), op.start(), op.end(), -1);
                } else {
                    ops.op(n.intern(op.name()), op.externalId(), op.thread(), op.start(), op.end(), -1);
                    ops.record();
                    ops.device(op.externalId(), op.deviceNs());
                }
                ops.record();
                ops.settle();
                while (ops.nextRow() >= 0) {
                    // rows are not looked at here: the summary is
                }
            }
            ops.finish();
            while (ops.nextRow() >= 0) {
                // as above
            }
            assertTrue(ops.maxHeld() < 300, "held " + ops.maxHeld() + " of " + all.size());
            assertEquals(0, ops.unclaimedDeviceRecords());
            assertEquals(0, f.approximate(), "seed " + seed);
            assertEquals(0, f.crossing());
            assertNull(f.crossingNote());
            assertSummaryIsReference(all, f, seed);
        }
    }

    private static void assertSummaryIsReference(List<Op> all, OpSummaryFold f, long seed) {
        Map<String, long[]> reference = reference(all);
        OpSummary summary = f.summary();
        assertEquals(reference.size(), summary.rows().size());
        for (Map.Entry<String, long[]> e : reference.entrySet()) {
            OpSummaryRow row = summary.row(e.getKey());
            assertNotNull(row, e.getKey());
            long[] want = e.getValue();
            assertEquals(want[0], row.count(), e.getKey());
            assertEquals(want[1] / 1000.0, row.cpuTimeTotalUs(), e.getKey());
            assertEquals(want[2] / 1000.0, row.selfCpuTimeTotalUs(), "seed " + seed + " " + e.getKey());
            assertEquals(want[3] / 1000.0, row.deviceTimeTotalUs(), "seed " + seed + " " + e.getKey());
            assertEquals(want[4] / 1000.0, row.selfDeviceTimeTotalUs(), e.getKey());
        }
        assertTrue(summary.row("run").count() == 3 && all.size() > 3 * OpSummaryFold.MAX_SIBLINGS,
                all.size() + " ops: more siblings per thread than are kept apart");
    }

    /**
     * A live session's flush barrier: ops that ended before it and that no record named settle at it;
     * an op that launched something waits for its records (or the lag) and holds back the later ops of
     * its own thread only, since a thread's ops fold in post-order.
     */
    @Test
    void aBarrierSettlesOpsNoRecordNamedAndAnOpWithRecordsHoldsBackOnlyItsThread() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 1 << 18, 1 << 18);
        ops.settleAfter(1_000);
        int name = names.intern("op");
        ops.op(name, 0, 1, 0, 10, -1); // thread 1: CPU only
        ops.op(name, 3, 2, 15, 25, -1); // thread 2: CPU only
        ops.op(name, 1, 1, 20, 30, -1); // thread 1: launched something
        ops.bound(1);
        ops.op(name, 2, 1, 40, 50, -1); // thread 1: CPU only, after the launching op
        ops.op(name, 4, 2, 60, 200, -1); // thread 2: ends after the barrier
        ops.barrier(100, 1_000);
        drain(ops);
        assertEquals(2, ops.settledAtBarrier(), "the CPU-only op of each thread before the launching one");
        assertEquals(List.of(0L, 3L), rows.stream().map(r -> r[0]).toList(), "rows in start order, up to the op still held");
        ops.barrier(2_000, 1_000);
        drain(ops);
        assertEquals(5, ops.settledAtBarrier(), "the launching op ended more than the lag before: all settle");
        assertEquals(List.of(0L, 3L, 1L, 2L, 4L), rows.stream().map(r -> r[0]).toList());
        assertEquals(2, ops.barriers());
        ops.device(1, 7); // a record after its op settled at a barrier
        finish(ops);
        assertEquals(1, ops.recordsAfterSettled(), "counted as after its op settled");
        assertEquals(0, fold.approximate());
    }

    @Test
    void aBindingBeforeItsOpArrivesStillKeepsTheOpFromABarrier() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 1 << 18, 1 << 18);
        ops.settleAfter(1_000);
        int name = names.intern("op");
        ops.bound(9); // its binding came in a buffer flushed while the op was still open
        ops.op(name, 9, 1, 0, 10, -1);
        ops.op(name, 10, 2, -5, 10, -1); // starts first: its row is not behind the held one
        ops.barrier(100, 1_000);
        drain(ops);
        assertEquals(List.of(10L), rows.stream().map(r -> r[0]).toList());
        ops.device(9, 500); // its device record, after the barrier: still its own
        ops.barrier(5_000, 1_000);
        finish(ops);
        assertEquals(0, ops.recordsAfterSettled());
        assertEquals(0.5, fold.summary().row("op").deviceTimeTotalUs(), 1e-9);
    }

    @Test
    void anAnnotationRangeThatMustWaitEndsTheBarriersScan() throws Exception {
        HostOpLedger ops = new HostOpLedger(fold, 1 << 18, 1 << 18);
        ops.settleAfter(1_000);
        int name = names.intern("op");
        ops.op(name, 1, 77, 0, 10, -1);
        ops.annotation(-1); // a range on the vendor's API thread 77
        ops.bound(1);
        ops.op(name, 2, 1, 20, 30, -1); // another thread's CPU-only op, ending after the range
        ops.barrier(100, 1_000);
        assertEquals(0, ops.settledAtBarrier(), "the range's thread is not an op thread: the scan stops there");
        ops.barrier(2_000, 1_000);
        assertEquals(2, ops.settledAtBarrier());
    }

    /**
     * The long random captures again, with a third of the ops launching nothing, a horizon no record
     * clock reaches, and a flush barrier after every op: what is held stays small and the summary is
     * still the reference's exactly (each thread's ops folded in post-order).
     */
    @Test
    void opsSettledAtBarriersGiveTheWholeListsSummaryExactly() throws Exception {
        for (long seed = 11; seed <= 13; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            List<Op> drawn = new ArrayList<>();
            long[] nextId = {1};
            for (int thread = 1; thread <= 3; thread++) {
                drawThread(random, thread, drawn, nextId);
            }
            List<Op> all = new ArrayList<>();
            for (Op op : drawn) {
                all.add(random.nextInt(3) == 0 ? new Op(op.name(), op.externalId(), op.thread(), op.start(), op.end(), 0) : op);
            }
            all.sort(Comparator.comparingLong(Op::end).thenComparing(Comparator.comparingLong(Op::start).reversed()));
            NameTable n = new NameTable();
            OpSummaryFold f = new OpSummaryFold(n);
            HostOpLedger ops = new HostOpLedger(f, 1 << 18, 1 << 18);
            ops.settleAfter((1 << 18) - 1);
            for (Op op : all) {
                boolean launched = op.deviceNs() > 0;
                if (launched && random.nextBoolean()) {
                    ops.bound(op.externalId()); // binding and device record before the op
                    ops.device(op.externalId(), op.deviceNs());
                    ops.op(n.intern(op.name()), op.externalId(), op.thread(), op.start(), op.end(), -1);
                } else {
                    ops.op(n.intern(op.name()), op.externalId(), op.thread(), op.start(), op.end(), -1);
                    if (launched) {
                        ops.bound(op.externalId());
                        ops.device(op.externalId(), op.deviceNs());
                    }
                }
                ops.barrier(op.end() + 1, 3_000);
                while (ops.nextRow() >= 0) {
                    // the summary is what is checked
                }
            }
            ops.finish();
            while (ops.nextRow() >= 0) {
                // as above
            }
            assertTrue(ops.maxHeld() < 600, "held " + ops.maxHeld() + " of " + all.size());
            assertTrue(ops.settledAtBarrier() > all.size() * 9L / 10, ops.settledAtBarrier() + " of " + all.size() + " at barriers");
            assertEquals(0, ops.recordsAfterSettled());
            assertEquals(0, f.approximate(), "seed " + seed);
            assertEquals(0, f.crossing());
            assertSummaryIsReference(all, f, seed);
        }
    }

    private static void drawThread(SplittableRandom random, long thread, List<Op> out, long[] nextId) {
        long t = 1_000 * thread;
        long runId = nextId[0]++;
        long runStart = t;
        for (int epoch = 0; epoch < 4; epoch++) {
            t += 50_000 + random.nextInt(50_000); // long gap between epochs
            long epochId = nextId[0]++;
            long epochStart = t;
            int steps = 1_000 + random.nextInt(2_000);
            for (int step = 0; step < steps; step++) {
                t += 100 + random.nextInt(900);
                long stepId = nextId[0]++;
                long stepStart = t;
                int leaves = random.nextInt(3);
                for (int leaf = 0; leaf < leaves; leaf++) {
                    t += 1 + random.nextInt(20);
                    long s = t;
                    t += 1 + random.nextInt(200);
                    out.add(new Op("leaf", nextId[0]++, thread, s, t, random.nextInt(1_000)));
                }
                t += 1 + random.nextInt(20);
                out.add(new Op("step", stepId, thread, stepStart, t, random.nextInt(100)));
            }
            t += 1 + random.nextInt(20);
            out.add(new Op("epoch", epochId, thread, epochStart, t, 0));
        }
        t += 10;
        out.add(new Op("run", runId, thread, runStart, t, random.nextInt(10)));
    }

    /** Per name: count, CPU, self CPU, device total, self device; nesting by containment on a thread, every pair compared. */
    private static Map<String, long[]> reference(List<Op> ops) {
        Map<Long, List<Op>> byThread = new HashMap<>();
        for (Op op : ops) {
            byThread.computeIfAbsent(op.thread(), k -> new ArrayList<>()).add(op);
        }
        Map<String, long[]> rows = new HashMap<>();
        for (List<Op> thread : byThread.values()) {
            thread.sort(Comparator.comparingLong(Op::start).thenComparing(Comparator.comparingLong(Op::end).reversed()));
            Map<Long, Long> childCpu = new HashMap<>();
            Map<Long, Long> total = new HashMap<>();
            List<Op> open = new ArrayList<>();
            List<Op> parentOf = new ArrayList<>();
            Map<Long, Op> parent = new HashMap<>();
            for (Op op : thread) {
                while (!open.isEmpty() && !(open.get(open.size() - 1).start() <= op.start() && op.end() <= open.get(open.size() - 1).end())) {
                    open.remove(open.size() - 1);
                }
                if (!open.isEmpty()) {
                    parent.put(op.externalId(), open.get(open.size() - 1));
                }
                open.add(op);
            }
            for (Op op : thread) { // device total: each op's device time goes to it and every ancestor
                for (Op a = op; a != null; a = parent.get(a.externalId())) {
                    total.merge(a.externalId(), op.deviceNs(), Long::sum);
                }
                Op p = parent.get(op.externalId());
                if (p != null) {
                    childCpu.merge(p.externalId(), op.end() - op.start(), Long::sum);
                }
            }
            for (Op op : thread) {
                long[] row = rows.computeIfAbsent(op.name(), k -> new long[5]);
                long cpu = op.end() - op.start();
                row[0]++;
                row[1] += cpu;
                row[2] += cpu - childCpu.getOrDefault(op.externalId(), 0L);
                row[3] += total.get(op.externalId());
                row[4] += op.deviceNs();
            }
            parentOf.clear();
        }
        return rows;
    }
}
