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
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
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

    /** What left the stage: slots not held, then the END slot's releases. */
    private static List<TraceRecord> run(MsptiCorrelationRemap stage, List<TraceRecord> in) {
        List<TraceRecord> out = new ArrayList<>();
        for (TraceRecord r : in) {
            stage.onEvent(r, 0, false);
            if (!r.parked) {
                out.add(r);
            } else {
                assertEquals(RecordType.HOST_OP, r.type, "a held slot is retyped so the join skips it");
            }
        }
        TraceRecord end = new TraceRecord();
        end.clear();
        end.type = RecordType.END_OF_CAPTURE;
        stage.onEvent(end, 0, true);
        for (int i = 0; i < end.releasedCount(); i++) {
            out.add(end.released(i));
        }
        return out;
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
            assertEquals(0, stage.heldNow());
            orders++;
        }
        assertEquals(120, orders);
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
        assertEquals(2, stage.heldJoined(), "both copies still get the op's External id");
    }

    @Test
    void aMissingBindingLeavesTheCallsWithoutExternalIdButKeepsTheArrow() {
        MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name);
        List<TraceRecord> out = run(stage, List.of(device(EventKind.KERNEL, 11), api("rtKernelLaunch", 11, 1, 2)));
        TraceRecord launch = named(out, "rtKernelLaunch");
        assertFalse(launch.hasExternalId());
        assertEquals(ofKind(out, EventKind.KERNEL).correlation(), launch.correlation());
        assertEquals(1, stage.heldWithoutExternalId());
    }

    @Test
    void callsWithoutDeviceWorkKeepTheirSharedId() {
        List<TraceRecord> out = run(new MsptiCorrelationRemap(names::name), List.of(api("aclrtSynchronizeStream", 4, 1, 9),
                api("rtStreamSynchronize", 4, 2, 8)));
        assertEquals(named(out, "aclrtSynchronizeStream").correlation(), named(out, "rtStreamSynchronize").correlation());
    }

    @Test
    void pastTheHoldLimitCallsPassUncoalescedAndCounted() {
        MsptiCorrelationRemap stage = new MsptiCorrelationRemap(names::name, 1);
        List<TraceRecord> in = List.of(api("aclnnAdd", 5, 1, 9), api("rtKernelLaunch", 5, 2, 8), device(EventKind.KERNEL, 5));
        List<TraceRecord> out = run(stage, in);
        assertEquals(1, stage.passedUncoalesced());
        assertEquals(3, out.size(), "nothing lost");
        assertFalse(in.get(1).parked, "the second call was not held");
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
