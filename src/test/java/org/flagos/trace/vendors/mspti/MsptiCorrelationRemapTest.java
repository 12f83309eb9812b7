package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.ExternalCorrelationJoin;
import org.flagos.trace.stages.FlowArrow;
import org.flagos.trace.stages.GpuAnnotationRow;
import org.flagos.trace.stages.HostOpRow;
import org.flagos.trace.stages.MarkRow;
import org.flagos.trace.stages.MemoryRow;
import org.flagos.trace.stages.NameStage;
import org.flagos.trace.stages.TraceFooter;
import org.flagos.trace.stages.StagesBeforeWalk;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.stages.TraceSink;
import org.flagos.trace.stages.TraceWalk;
import org.junit.jupiter.api.Test;

/** The MSPTI correlation remap, record by record, with records in hostile orders. */
class MsptiCorrelationRemapTest {
    private static final long BIG = (1L << 32) + 77;

    private final NameTable names = new NameTable();

    private TraceRecord api(String name, long correlation, long start, long end) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.ACTIVITY;
        r.kind = EventKind.RUNTIME;
        r.correlation(correlation);
        r.startNs = start;
        r.endNs = end;
        r.nameId = names.intern(name);
        return r;
    }

    private static TraceRecord device(EventKind kind, long correlation) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.ACTIVITY;
        r.kind = kind;
        r.correlation(correlation);
        r.startNs = 5000;
        r.endNs = 6000;
        return r;
    }

    private static TraceRecord binding(long correlation, long external) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.CORRELATION_BINDING;
        r.correlation(correlation);
        r.externalId(external);
        return r;
    }

    /** What left the stage and the join behind it: slots not parked, then each slot's releases. */
    private static List<TraceRecord> run(MsptiCorrelationRemap stage, List<TraceRecord> in) {
        return run(stage, new ExternalCorrelationJoin(), in);
    }

    static List<TraceRecord> run(MsptiCorrelationRemap stage, ExternalCorrelationJoin join, List<TraceRecord> in) {
        List<TraceRecord> out = new ArrayList<>();
        long sequence = 0;
        for (TraceRecord r : in) {
            RecordType type = r.type;
            stage.onEvent(r, sequence, false);
            assertEquals(type, r.type, "a parked slot keeps its type");
            join.onEvent(r, sequence++, false);
            passed(r, out);
        }
        TraceRecord end = new TraceRecord();
        end.clear();
        end.type = RecordType.END_OF_CAPTURE;
        stage.onEvent(end, sequence, true);
        join.onEvent(end, sequence, true);
        passed(end, out);
        return out;
    }

    private static void passed(TraceRecord slot, List<TraceRecord> out) {
        if (!slot.parked && slot.type != RecordType.END_OF_CAPTURE) {
            out.add(slot);
        }
        for (int i = 0; i < slot.releasedCount(); i++) {
            out.add(slot.released(i));
        }
    }

    private TraceRecord named(List<TraceRecord> out, String name) {
        return out.stream().filter(r -> r.type == RecordType.ACTIVITY && !r.kind.isDevice()
                && name.equals(names.name(r.nameId))).findFirst().orElseThrow();
    }

    private static TraceRecord ofKind(List<TraceRecord> out, EventKind kind) {
        return out.stream().filter(r -> r.type == RecordType.ACTIVITY && r.kind == kind).findFirst().orElseThrow();
    }

    /** Every order of a launch's five records gives the arrow to rtKernelLaunch and the op's id to both calls. */
    @Test
    void aLaunchCoalescesOntoTheLaunchCallInEveryArrivalOrder() {
        int orders = 0;
        for (List<Integer> order : permutations(List.of(0, 1, 2, 3, 4))) {
            List<TraceRecord> records = List.of(
                    api("aclnnMatmul", BIG, 1000, 5000),
                    api("rtKernelLaunch", BIG, 2000, 4000),
                    device(EventKind.KERNEL, BIG),
                    binding(BIG, 42),
                    binding(BIG, 42));
            List<TraceRecord> in = new ArrayList<>();
            for (int i : order) {
                in.add(records.get(i));
            }
            MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name);
            List<TraceRecord> out = run(stage, in);
            TraceRecord kernel = ofKind(out, EventKind.KERNEL);
            TraceRecord launch = named(out, "rtKernelLaunch");
            TraceRecord acl = named(out, "aclnnMatmul");
            assertEquals(1, kernel.correlation(), "the first id handed out, whatever record saw it first");
            assertEquals(kernel.correlation(), launch.correlation(), "the arrow starts on the launch call " + order);
            assertFalse(acl.hasCorrelation(), "the other call keeps no correlation: no second arrow can start " + order);
            assertEquals(42, launch.externalId());
            assertEquals(42, acl.externalId());
            for (TraceRecord r : out) {
                if (r.type == RecordType.CORRELATION_BINDING) {
                    assertEquals(kernel.correlation(), r.correlation(), "bindings remapped with the records");
                    assertEquals(42, r.externalId(), "the External id is the host op's, untouched");
                }
            }
            assertEquals(1, stage.coalesced());
            assertEquals(0, stage.parkedNow());
            assertEquals(5, out.size(), "every record once " + order);
            orders++;
        }
        assertEquals(120, orders);
    }

    private static TraceRecord barrier(long at) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.FLUSH_BARRIER;
        r.startNs = at;
        r.endNs = at;
        return r;
    }

    /** One slot through the stage and the join behind it, as the ring hands it on; what left. */
    private static List<TraceRecord> step(MsptiCorrelationRemap stage, ExternalCorrelationJoin join, TraceRecord r, long sequence) {
        stage.onEvent(r, sequence, false);
        join.onEvent(r, sequence, false);
        List<TraceRecord> out = new ArrayList<>();
        passed(r, out);
        return out;
    }

    /**
     * A flush barrier behind a launch's parked calls: while the group has no device work and ended
     * within the lag, the barrier is lowered below the calls' start, so the walk cannot settle the op
     * holding them (it started before them and ended after); once the kernel came, the next barrier
     * releases the group on its own slot, joined and coalesced, ahead of it, and keeps its time.
     */
    @Test
    void aBarrierBehindParkedCallsIsLoweredBelowThemUntilTheirGroupCanBeDecidedThenReleasesThemAheadOfIt() {
        MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name);
        ExternalCorrelationJoin join = new ExternalCorrelationJoin();
        long sequence = 0;
        step(stage, join, binding(BIG, 42), sequence++);
        assertTrue(step(stage, join, api("aclnnMatmul", BIG, 1_000, 5_000), sequence++).isEmpty(), "parked");
        assertTrue(step(stage, join, api("rtKernelLaunch", BIG, 2_000, 4_000), sequence++).isEmpty(), "parked");

        TraceRecord first = barrier(10_000);
        List<TraceRecord> out = step(stage, join, first, sequence++);
        assertEquals(1, out.size(), "nothing released: the barrier alone");
        assertEquals(1_000 - MsptiCorrelationRemap.CLOCK_SLACK_NS, first.startNs,
                "lowered below the earliest parked call: an op holding it cannot have ended before");
        assertEquals(2, stage.parkedNow());

        TraceRecord later = barrier(5_000 + 2 * MsptiCorrelationRemap.CLOCK_SLACK_NS);
        step(stage, join, later, sequence++);
        assertEquals(1_000 - MsptiCorrelationRemap.CLOCK_SLACK_NS, later.startNs, "still lowered: no device work yet");

        step(stage, join, device(EventKind.KERNEL, BIG), sequence++);
        TraceRecord decided = barrier(20_000);
        out = step(stage, join, decided, sequence++);
        assertEquals(20_000, decided.startNs, "nothing parked any more: the barrier keeps its time");
        assertEquals(3, out.size(), "the barrier, then the group's calls released on its slot, oldest first");
        assertEquals(RecordType.FLUSH_BARRIER, out.get(0).type);
        TraceRecord acl = out.get(1);
        TraceRecord launch = out.get(2);
        assertEquals("aclnnMatmul", names.name(acl.nameId));
        assertEquals("rtKernelLaunch", names.name(launch.nameId));
        assertEquals(42, acl.externalId(), "joined on the barrier's slot");
        assertEquals(42, launch.externalId());
        assertEquals(1, launch.correlation(), "the launch call keeps the arrow");
        assertFalse(acl.hasCorrelation(), "coalesced as at the horizon");
        assertEquals(0, stage.parkedNow());
        assertEquals(2, stage.releasedAtBarrier());
        assertEquals(3, stage.barriers());
        assertEquals(2, stage.barriersLowered());
        assertEquals(0, stage.releasedAtHorizon());
    }

    /**
     * A group that never gets device work (a synchronizing call) is released at the first barrier more
     * than the lag after its calls ended; calls that ended after a barrier's time, or started after it,
     * are no reason to lower it further than their start.
     */
    @Test
    void aGroupWithoutDeviceWorkIsReleasedAtABarrierTheLagAfterItAndLaterCallsLowerNoBarrierBelowTheirStart() {
        long lag = 100_000_000L;
        MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name, MsptiCorrelationRemap.DEFAULT_HORIZON, lag);
        ExternalCorrelationJoin join = new ExternalCorrelationJoin();
        long sequence = 0;
        step(stage, join, binding(BIG, 7), sequence++);
        step(stage, join, api("aclrtSynchronizeDevice", BIG, 1_000, 50_000_000L), sequence++);
        step(stage, join, binding(BIG + 1, 8), sequence++);
        step(stage, join, api("aclrtSynchronizeStream", BIG + 1, 60_000_000L, 130_000_000L), sequence++);

        TraceRecord before = barrier(120_000_000L);
        step(stage, join, before, sequence++);
        assertEquals(1_000 - MsptiCorrelationRemap.CLOCK_SLACK_NS, before.startNs);
        assertEquals(0, stage.releasedAtBarrier());

        TraceRecord after = barrier(150_000_001L);
        List<TraceRecord> out = step(stage, join, after, sequence++);
        assertEquals(2, out.size(), "the first call ended more than the lag before: released");
        assertEquals(7, out.get(1).externalId());
        assertTrue(out.get(1).hasCorrelation(), "a group without device work keeps its id");
        assertEquals(60_000_000L - MsptiCorrelationRemap.CLOCK_SLACK_NS, after.startNs,
                "lowered below the call still parked, which ended after the barrier's lag");

        TraceRecord past = barrier(300_000_000L);
        step(stage, join, past, sequence++);
        assertEquals(300_000_000L, past.startNs);
        assertEquals(0, stage.parkedNow());

        step(stage, join, binding(BIG + 2, 9), sequence++);
        step(stage, join, api("aclrtSynchronizeDevice", BIG + 2, 400_000_000L, 401_000_000L), sequence++);
        TraceRecord earlier = barrier(390_000_000L);
        step(stage, join, earlier, sequence++);
        assertEquals(390_000_000L, earlier.startNs, "a call that started after the barrier lowers nothing");
        assertEquals(2, stage.barriersLowered(), "two lowered barriers in all");
    }

    /** What a walk behind the remap hands on: its API calls and op rows, in order. */
    private final class OrderSink implements TraceSink {
        final List<String> lines = new ArrayList<>();

        @Override
        public void header(long baseNs) {
        }

        @Override
        public void apiSlice(TraceRecord api) {
            lines.add("api " + names.name(api.nameId));
        }

        @Override
        public void deviceSlice(TraceRecord device, int row) {
            lines.add("kernel");
        }

        @Override
        public void hostOpSlice(HostOpRow op) {
            lines.add("op " + op.externalId);
        }

        @Override
        public void gpuAnnotation(GpuAnnotationRow span) {
        }

        @Override
        public void memoryInstant(MemoryRow memory) {
        }

        @Override
        public void markInstant(MarkRow mark) {
        }

        @Override
        public void unifiedMemory(TraceRecord record) {
        }

        @Override
        public void flow(FlowArrow arrow) {
        }

        @Override
        public int eventsPerFlow() {
            return 2;
        }

        @Override
        public void endOfBatch() {
        }

        @Override
        public long footer(TraceFooter end) {
            return 0;
        }

        @Override
        public void overheadSlice(TraceRecord overhead) {
        }
    }

    /**
     * The remap, the join and the walk as a live session chains them, with the walk's lag (1 ms)
     * shorter than the remap's (1 s): a barrier long after a launching op ended, while the op's calls
     * are parked without their kernel, does not settle the op (the remap lowered it below the calls);
     * the barrier after the kernel came releases the calls ahead of itself and settles the op with them.
     * Either way no call of the op comes after it settled.
     */
    @Test
    void aBarrierBehindAnOpsParkedCallsDoesNotSettleTheOpBeforeThem() throws Exception {
        for (boolean kernelComes : new boolean[] {false, true}) {
            long base = 1_795_982_694_000_000_000L;
            CaptureAccounting accounting = new CaptureAccounting(new DecodeStats());
            OrderSink sink = new OrderSink();
            MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name);
            ExternalCorrelationJoin join = new ExternalCorrelationJoin();
            TraceWalk walk = new TraceWalk(sink, names, new TraceHeader("t", List.of(), base, Map.of(), "p", 77), accounting,
                    StagesBeforeWalk.of(new NameStage(MsptiApiNames.INSTANCE, names), join, CaptureWindowFilter.unbounded()));
            walk.barrierBoundLag(1_000_000L);

            TraceRecord op = new TraceRecord();
            op.clear();
            op.type = RecordType.HOST_OP;
            op.nameId = names.intern("aten::mm");
            op.externalId(1);
            op.threadId = 3;
            op.startNs = base;
            op.endNs = base + 10_000;
            TraceRecord kernel = device(EventKind.KERNEL, BIG);
            kernel.startNs = base + 6_000;
            kernel.endNs = base + 9_000;
            kernel.nameId = names.intern("matmul_kernel"); // the name stage, ahead of the walk in the ring, names every device record
            List<TraceRecord> slots = new ArrayList<>(List.of(op, binding(BIG, 1),
                    api("aclnnMatmul", BIG, base + 1_000, base + 5_000), api("rtKernelLaunch", BIG, base + 2_000, base + 4_000),
                    barrier(base + 100_000_000L)));
            if (kernelComes) {
                slots.add(kernel);
                slots.add(barrier(base + 200_000_000L));
            }
            TraceRecord end = new TraceRecord();
            end.clear();
            end.type = RecordType.END_OF_CAPTURE;
            slots.add(end);
            long sequence = 0;
            for (TraceRecord r : slots) {
                stage.onEvent(r, sequence, false);
                join.onEvent(r, sequence, false);
                walk.onEvent(r, sequence++, true);
            }
            walk.awaitFinished();
            assertEquals(null, walk.failure());
            assertEquals(kernelComes ? 2 : 1, accounting.flushBarriers());
            assertEquals(kernelComes ? 1 : 0, accounting.opsSettledAtBarrier(),
                    kernelComes ? "settled at the barrier that released its calls" : "held to the end: its calls were parked");
            assertEquals(0, accounting.recordsAfterOpSettled(), "no call of the op came after it settled");
            int opAt = sink.lines.indexOf("op 1");
            assertTrue(opAt > sink.lines.indexOf("api aclnnMatmul") && opAt > sink.lines.indexOf("api rtKernelLaunch"),
                    "the op's row after both its calls: " + sink.lines);
            assertEquals(1, stage.barriersLowered(), "the first barrier was lowered below the calls");
        }
    }

    @Test
    void aCopyCoalescesOntoTheOutermostCopyCall() {
        MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name);
        List<TraceRecord> out = run(stage, List.of(device(EventKind.MEMCPY, 9), api("rtMemcpy", 9, 2000, 4000),
                api("aclrtMemcpy", 9, 1000, 5000), api("rtStreamSynchronize", 9, 500, 6000)));
        long flow = ofKind(out, EventKind.MEMCPY).correlation();
        assertEquals(flow, named(out, "aclrtMemcpy").correlation(), "both name the copy: the outermost wins");
        assertFalse(named(out, "rtMemcpy").hasCorrelation());
        assertFalse(named(out, "rtStreamSynchronize").hasCorrelation(), "earlier, but does not name the copy");
        assertEquals(2, stage.coalesced());
    }

    @Test
    void aMemsetCoalescesOntoTheSetCall() {
        List<TraceRecord> out = run(new MsptiCorrelationRemap(names::name), List.of(api("aclrtMemset", 3, 1000, 5000),
                api("rtLaunchSomething", 3, 900, 6000), device(EventKind.MEMSET, 3)));
        assertEquals(ofKind(out, EventKind.MEMSET).correlation(), named(out, "aclrtMemset").correlation());
    }

    @Test
    void flowIdsAreNonzeroUniqueAndConsistentAcrossRecordTypes() {
        List<TraceRecord> in = new ArrayList<>();
        for (long i = 0; i < 50; i++) {
            long c = BIG + i * (1L << 33); // distinct u64 ids that collide in their low 32 bits
            in.add(binding(c, i));
            in.add(device(EventKind.KERNEL, c));
            in.add(api("rtKernelLaunch", c, 10, 20));
        }
        List<TraceRecord> out = run(new MsptiCorrelationRemap(names::name), in);
        Map<Long, Long> externalByFlow = new HashMap<>();
        Set<Long> kernelFlows = new HashSet<>();
        for (TraceRecord r : out) {
            assertTrue(r.correlation() > 0 && r.correlation() <= 0xFFFF_FFFFL, "nonzero 32-bit: " + r.correlation());
            if (r.type == RecordType.CORRELATION_BINDING) {
                externalByFlow.put(r.correlation(), r.externalId());
            } else if (r.kind == EventKind.KERNEL) {
                assertTrue(kernelFlows.add(r.correlation()), "unique per correlation");
            }
        }
        assertEquals(50, kernelFlows.size());
        for (TraceRecord r : out) {
            if (r.type == RecordType.ACTIVITY && r.kind == EventKind.RUNTIME) {
                assertTrue(kernelFlows.contains(r.correlation()), "the single launch keeps its kernel's id");
                assertEquals(externalByFlow.get(r.correlation()), r.externalId());
            }
        }
    }

    @Test
    void correlationZeroIsUnknownAndNeverGroups() {
        MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name);
        List<TraceRecord> out = run(stage, List.of(api("rtKernelLaunch", 0, 1, 2), api("aclnnAdd", 0, 0, 3),
                device(EventKind.KERNEL, 0), binding(0, 5)));
        for (TraceRecord r : out) {
            if (r.type == RecordType.ACTIVITY) {
                assertFalse(r.hasCorrelation(), "unknown correlation: no group, no arrow " + r);
                assertFalse(r.hasExternalId());
            } else {
                assertEquals(0, r.correlation(), "a binding of 0 binds nothing any remapped record carries");
            }
        }
        assertEquals(4, stage.withoutCorrelation());
        assertEquals(0, stage.coalesced());
    }

    @Test
    void aDuplicateCallDrawsNoSecondArrow() {
        MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name);
        List<TraceRecord> out = run(stage, List.of(api("rtKernelLaunch", 8, 1, 2), api("rtKernelLaunch", 8, 1, 2),
                device(EventKind.KERNEL, 8), binding(8, 3), binding(8, 3)));
        long flow = ofKind(out, EventKind.KERNEL).correlation();
        long sharing = out.stream().filter(r -> r.kind == EventKind.RUNTIME && r.correlation() == flow).count();
        assertEquals(1, sharing);
        assertEquals(1, stage.coalesced());
        assertEquals(2, out.stream().filter(r -> r.kind == EventKind.RUNTIME && r.hasExternalId() && r.externalId() == 3).count(),
                "both calls still get the op's External id, from the join");
    }

    @Test
    void aMissingBindingLeavesTheCallsWithoutExternalIdButKeepsTheArrow() {
        ExternalCorrelationJoin join = new ExternalCorrelationJoin();
        List<TraceRecord> out = run(new MsptiCorrelationRemap(names::name), join,
                List.of(device(EventKind.KERNEL, 11), api("rtKernelLaunch", 11, 1, 2)));
        TraceRecord launch = named(out, "rtKernelLaunch");
        assertFalse(launch.hasExternalId());
        assertEquals(ofKind(out, EventKind.KERNEL).correlation(), launch.correlation());
        assertEquals(1, join.unjoined(EventKind.RUNTIME), "counted by the join, like any record without a binding");
    }

    @Test
    void callsWithoutDeviceWorkKeepTheirSharedId() {
        List<TraceRecord> out = run(new MsptiCorrelationRemap(names::name), List.of(api("aclrtSynchronizeStream", 4, 1, 9),
                api("rtStreamSynchronize", 4, 2, 8)));
        assertEquals(named(out, "aclrtSynchronizeStream").correlation(), named(out, "rtStreamSynchronize").correlation());
    }

    @Test
    void pastTheHorizonAGroupIsReleasedAndItsLateCallsAreCoalescedAsTheyCome() {
        MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name, 2);
        List<String> notes = new ArrayList<>();
        stage.notesTo(notes::add);
        ExternalCorrelationJoin join = new ExternalCorrelationJoin();
        List<TraceRecord> in = List.of(binding(5, 7), api("rtKernelLaunch", 5, 2, 8), device(EventKind.KERNEL, 5),
                binding(6, 8), api("aclnnOther", 6, 1, 2), api("aclnnAdd", 5, 1, 9));
        List<TraceRecord> out = run(stage, join, in);
        assertTrue(in.get(1).parked);
        assertEquals(1, stage.releasedAtHorizon(), "the launch waited more than two records");
        assertEquals(1, stage.callsAfterRelease(), "aclnnAdd came after its group had gone");
        assertFalse(in.get(5).parked, "a late call is not parked again");
        TraceRecord launch = named(out, "rtKernelLaunch");
        TraceRecord add = named(out, "aclnnAdd");
        assertEquals(ofKind(out, EventKind.KERNEL).correlation(), launch.correlation(), "the arrow stays on the released launch");
        assertFalse(add.hasCorrelation(), "the late call starts no second arrow");
        assertEquals(7, add.externalId(), "and still gets its op from the join");
        assertEquals(7, launch.externalId());
        assertEquals(in.size(), out.size(), "nothing lost, nothing twice");
        assertTrue(stage.mostParked() <= 2, "at most a horizon parked: " + stage.mostParked());
        assertEquals(1, notes.size(), "the overflow is reported in the capture's notes: " + notes);
        assertTrue(notes.get(0).contains("1 API calls released at the horizon of 2 records"), notes.get(0));
    }

    @Test
    void withinItsBoundsTheRemapAddsNoNote() {
        MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name);
        List<String> notes = new ArrayList<>();
        stage.notesTo(notes::add);
        run(stage, List.of(api("rtKernelLaunch", 5, 2, 8), device(EventKind.KERNEL, 5), binding(5, 1)));
        assertEquals(List.of(), notes);
    }

    @Test
    void deviceWorkAfterItsCallsWereReleasedIsCounted() {
        MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name, 2);
        run(stage, List.of(api("rtKernelLaunch", 5, 2, 8), binding(9, 1), binding(10, 1), binding(11, 1),
                device(EventKind.KERNEL, 5)));
        assertEquals(1, stage.releasedAtHorizon());
        assertEquals(1, stage.deviceWorkAfterRelease());
    }

    @Test
    void flowIdsOfOneHorizonOfCorrelationsAreRememberedAndTheRestCounted() {
        MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name, 2);
        List<TraceRecord> in = new ArrayList<>();
        for (long c = 1; c <= 6; c++) {
            in.add(device(EventKind.KERNEL, 100 + c));
        }
        in.add(device(EventKind.KERNEL, 101));
        List<TraceRecord> out = run(stage, in);
        assertEquals(4, stage.correlationsForgotten(), "two generations of two: 101 and 102 go when 105 comes, 103 and 104 when 101 comes back");
        assertEquals(7, out.get(6).correlation(), "a forgotten correlation seen again gets a new flow id");
        assertEquals(7, stage.flowIds());
    }
    private static List<List<Integer>> permutations(List<Integer> items) {
        if (items.isEmpty()) {
            return List.of(List.of());
        }
        List<List<Integer>> out = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            List<Integer> rest = new ArrayList<>(items);
            Integer head = rest.remove(i);
            for (List<Integer> tail : permutations(rest)) {
                List<Integer> p = new ArrayList<>();
                p.add(head);
                p.addAll(tail);
                out.add(p);
            }
        }
        return out;
    }
}
