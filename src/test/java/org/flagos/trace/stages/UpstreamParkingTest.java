package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.lmax.disruptor.EventHandler;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordCopies;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * The park/release protocol between a stage in front of the join and the join: slots parked
 * upstream are skipped but counted as arrivals, records released upstream are joined when they
 * reach the join, in any order against their bindings, and every bound overflow is counted.
 */
class UpstreamParkingTest {

    /** A stage in front of the join that parks every API call and releases it a given number of slots later. */
    private static final class Holder implements EventHandler<TraceRecord> {
        private final TreeMap<Integer, List<TraceRecord>> due = new TreeMap<>();
        private final Random delays;
        private final int maxDelay;
        private int slot;

        Holder(long seed, int maxDelay) {
            this.delays = new Random(seed);
            this.maxDelay = maxDelay;
        }

        @Override
        public void onEvent(TraceRecord record, long sequence, boolean endOfBatch) {
            if (record.type == RecordType.END_OF_CAPTURE) {
                due.values().forEach(list -> list.forEach(record::release));
                due.clear();
                return;
            }
            List<TraceRecord> now = due.remove(slot);
            if (now != null) {
                now.forEach(record::release);
            }
            if (record.type == RecordType.ACTIVITY && !record.kind.isDevice()) {
                TraceRecord copy = new TraceRecord();
                copy.copyFrom(record);
                record.parked = true;
                due.computeIfAbsent(slot + 1 + delays.nextInt(maxDelay + 1), k -> new ArrayList<>()).add(copy);
            }
            slot++;
        }
    }

    private final List<TraceRecord> out = new ArrayList<>();

    private static TraceRecord binding(long correlation, long external) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.CORRELATION_BINDING;
        r.correlation(correlation);
        r.externalId(external);
        return r;
    }

    private static TraceRecord activity(EventKind kind, long correlation) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.ACTIVITY;
        r.kind = kind;
        r.correlation(correlation);
        r.startNs = 10 + correlation;
        r.endNs = 20 + correlation;
        return r;
    }

    private static TraceRecord end() {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.END_OF_CAPTURE;
        return r;
    }

    /** Passes {@code slot} through the join and keeps what a later stage would see. */
    private void pass(ExternalCorrelationJoin join, TraceRecord slot) {
        join.onEvent(slot, 0, true);
        if (!slot.parked && slot.type != RecordType.END_OF_CAPTURE) {
            out.add(slot);
        }
        for (int i = 0; i < slot.releasedCount(); i++) {
            out.add(slot.released(i));
        }
    }

    /** A slot a stage in front parked, its copy to be released later. */
    private static TraceRecord parkUpstream(TraceRecord slot) {
        TraceRecord copy = new TraceRecord();
        copy.copyFrom(slot);
        slot.parked = true;
        return copy;
    }

    @Test
    void aRecordReleasedUpstreamAfterItsBindingIsJoinedOnArrival() {
        ExternalCorrelationJoin join = new ExternalCorrelationJoin();
        TraceRecord call = activity(EventKind.RUNTIME, 7);
        TraceRecord copy = parkUpstream(call);
        pass(join, call);
        assertFalse(copy.hasExternalId());
        assertEquals(0, join.joined(EventKind.RUNTIME), "a slot parked upstream is not joined");
        pass(join, binding(7, 70));
        TraceRecord carrier = activity(EventKind.KERNEL, 7);
        carrier.release(copy);
        pass(join, carrier);
        assertSame(copy, out.get(out.size() - 1), "released after the carrier's own record");
        assertEquals(70, copy.externalId());
        assertEquals(1, join.joined(EventKind.RUNTIME));
        assertEquals(1, join.releasedUpstream());
        assertEquals(0, join.lateJoined(), "its binding was there: joined on arrival");
        assertEquals(3, out.size(), "the binding, the kernel and the call; the parked slot never");
    }

    @Test
    void aRecordReleasedUpstreamBeforeItsBindingIsParkedAtTheJoinAndReleasedOnTheBinding() {
        ExternalCorrelationJoin join = new ExternalCorrelationJoin();
        TraceRecord call = activity(EventKind.RUNTIME, 7);
        TraceRecord copy = parkUpstream(call);
        pass(join, call);
        TraceRecord carrier = binding(8, 80);
        carrier.release(copy);
        pass(join, carrier);
        assertEquals(0, carrier.releasedCount(), "taken off its carrier: it waits here");
        assertEquals(1, join.parkedNow());
        TraceRecord bind = binding(7, 70);
        pass(join, bind);
        assertEquals(1, bind.releasedCount());
        assertEquals(70, bind.released(0).externalId());
        assertEquals(EventKind.RUNTIME, bind.released(0).kind);
        assertEquals(1, join.lateJoined());
    }

    @Test
    void aRecordReleasedUpstreamWithoutCorrelationPassesUnjoined() {
        ExternalCorrelationJoin join = new ExternalCorrelationJoin();
        TraceRecord call = activity(EventKind.RUNTIME, 7);
        call.clearCorrelation();
        TraceRecord copy = parkUpstream(call);
        pass(join, call);
        TraceRecord carrier = binding(9, 1);
        carrier.release(copy);
        pass(join, carrier);
        assertEquals(List.of(carrier, copy), out);
        assertFalse(copy.hasExternalId());
        assertEquals(1, join.unjoined(EventKind.RUNTIME));
    }

    @Test
    void atTheEndARecordReleasedUpstreamWithoutBindingPassesInPlaceBeforeTheJoinsOwn() {
        ExternalCorrelationJoin join = new ExternalCorrelationJoin();
        TraceRecord kernel = activity(EventKind.KERNEL, 3);
        pass(join, kernel);
        assertTrue(kernel.parked, "parked by the join");
        TraceRecord call = activity(EventKind.RUNTIME, 4);
        TraceRecord copy = parkUpstream(call);
        pass(join, call);
        TraceRecord end = end();
        end.release(copy);
        pass(join, end);
        assertEquals(2, end.releasedCount());
        assertSame(copy, end.released(0), "the stage in front's releases first, as it attached them");
        assertEquals(EventKind.KERNEL, end.released(1).kind);
        assertEquals(1, join.unjoined(EventKind.RUNTIME));
        assertEquals(1, join.unjoined(EventKind.KERNEL));
        assertEquals(0, join.parkedNow());
    }

    @Test
    void duplicateAndConflictingBindingsKeepTheFirstForRecordsReleasedUpstream() {
        ExternalCorrelationJoin join = new ExternalCorrelationJoin();
        TraceRecord first = activity(EventKind.RUNTIME, 5);
        TraceRecord second = activity(EventKind.RUNTIME, 5);
        TraceRecord a = parkUpstream(first);
        TraceRecord b = parkUpstream(second);
        pass(join, first);
        pass(join, second);
        pass(join, binding(5, 50));
        pass(join, binding(5, 50));
        TraceRecord conflicting = binding(5, 51);
        conflicting.release(a);
        conflicting.release(b);
        pass(join, conflicting);
        assertEquals(50, a.externalId());
        assertEquals(50, b.externalId(), "a duplicate call is joined too");
        assertEquals(1, join.duplicateBindings());
        assertEquals(1, join.conflictingBindings());
    }

    @Test
    void aCorrelationForTheJoinOnlyIsClearedOnceJoinedOrGivenUp() {
        ExternalCorrelationJoin join = new ExternalCorrelationJoin(1);
        pass(join, binding(1, 10));
        TraceRecord now = activity(EventKind.RUNTIME, 1);
        now.correlationForJoinOnly(true);
        pass(join, now);
        assertEquals(10, now.externalId());
        assertFalse(now.hasCorrelation(), "joined on arrival, then no arrow");
        TraceRecord late = activity(EventKind.RUNTIME, 2);
        late.correlationForJoinOnly(true);
        pass(join, late);
        assertTrue(late.parked);
        TraceRecord bind = binding(2, 20);
        pass(join, bind);
        assertEquals(20, bind.released(0).externalId());
        assertFalse(bind.released(0).hasCorrelation(), "joined late, then no arrow");
        TraceRecord never = activity(EventKind.RUNTIME, 3);
        never.correlationForJoinOnly(true);
        pass(join, never);
        TraceRecord a = activity(EventKind.KERNEL, 1);
        pass(join, a);
        TraceRecord b = activity(EventKind.KERNEL, 1);
        pass(join, b);
        assertEquals(1, b.releasedCount(), "given up at the horizon of one record");
        assertFalse(b.released(0).hasCorrelation());
        assertFalse(b.released(0).hasExternalId());
    }

    @Test
    void aSlotParkedUpstreamCountsAsAnArrivalForTheHorizon() {
        ExternalCorrelationJoin join = new ExternalCorrelationJoin(1);
        pass(join, activity(EventKind.KERNEL, 9));
        TraceRecord call = activity(EventKind.RUNTIME, 1);
        parkUpstream(call);
        pass(join, call);
        assertEquals(0, join.releasedAtHorizon());
        TraceRecord other = activity(EventKind.RUNTIME, 2);
        parkUpstream(other);
        pass(join, other);
        assertEquals(1, join.releasedAtHorizon(), "two parked slots later the kernel gave up its binding");
        assertEquals(1, other.releasedCount(), "released on the parked slot, which later stages still visit");
    }

    @Test
    void aCopyTheJoinReleasedIsReusedOnlyOnceTheRingHasTurned() {
        ExternalCorrelationJoin join = new ExternalCorrelationJoin();
        long s = 1_000_000; // a ring sequence far into a capture
        join.onEvent(activity(EventKind.KERNEL, 1), s, true);
        TraceRecord bind = binding(1, 10);
        join.onEvent(bind, s + 1, true);
        TraceRecord first = bind.released(0);
        join.onEvent(activity(EventKind.KERNEL, 2), s + 2, true);
        TraceRecord bind2 = binding(2, 20);
        join.onEvent(bind2, s + 3, true);
        assertNotSame(first, bind2.released(0), "the writer may still be reading the first copy");
        assertEquals(10, first.externalId());
        join.onEvent(activity(EventKind.KERNEL, 3), s + 1 + RecordCopies.REUSE_DISTANCE, true);
        TraceRecord bind3 = binding(3, 30);
        join.onEvent(bind3, s + 2 + RecordCopies.REUSE_DISTANCE, true);
        assertSame(first, bind3.released(0), "the ring has turned past its slot: the copy is reused");
        assertEquals(30, first.externalId());
    }

    /**
     * Launches in random order, their calls parked upstream for random delays: every record comes
     * out once, with its own op's External id, within the horizon; past it, counted, never lost.
     */
    @Test
    void shuffledLaunchesWithCallsParkedUpstreamAreEachJoinedOnce() {
        for (long seed = 1; seed <= 20; seed++) {
            agitate(seed, ExternalCorrelationJoin.DEFAULT_HORIZON, 40);
            assertEquals(0, lastJoin.releasedAtHorizon(), "seed " + seed);
            for (TraceRecord r : out) {
                if (r.type == RecordType.ACTIVITY) {
                    assertEquals(r.correlation() * 10, r.externalId(), "seed " + seed + ": " + r);
                }
            }
        }
    }

    @Test
    void pastTheJoinsHorizonRecordsReleasedUpstreamAreCountedNeverLost() {
        long withoutId = 0;
        long atHorizon = 0;
        for (long seed = 1; seed <= 10; seed++) {
            agitate(seed, 8, 60);
            long missing = out.stream().filter(r -> r.type == RecordType.ACTIVITY && !r.hasExternalId()).count();
            long counted = 0;
            for (EventKind kind : EventKind.values()) {
                counted += lastJoin.unjoined(kind);
            }
            assertEquals(missing, counted, "seed " + seed + ": every record without an External id is counted");
            assertTrue(lastJoin.releasedAtHorizon() <= counted);
            withoutId += missing;
            atHorizon += lastJoin.releasedAtHorizon();
        }
        assertTrue(atHorizon > 0, "the agitation must overflow the horizon of 8: " + withoutId);
    }

    private ExternalCorrelationJoin lastJoin;

    private void agitate(long seed, int horizon, int maxDelay) {
        int launches = 300;
        List<TraceRecord> in = new ArrayList<>();
        for (long c = 1; c <= launches; c++) {
            in.add(binding(c, c * 10));
            in.add(activity(EventKind.RUNTIME, c));
            in.add(activity(EventKind.KERNEL, c));
        }
        Collections.shuffle(in, new Random(seed));
        Holder upstream = new Holder(seed, maxDelay);
        lastJoin = new ExternalCorrelationJoin(horizon);
        out.clear();
        for (TraceRecord slot : in) {
            upstream.onEvent(slot, 0, false);
            pass(lastJoin, slot);
        }
        TraceRecord end = end();
        upstream.onEvent(end, 0, true);
        pass(lastJoin, end);
        Map<String, Integer> seen = new HashMap<>();
        for (TraceRecord r : out) {
            seen.merge(r.type + "/" + r.kind + "/" + r.correlation(), 1, Integer::sum);
        }
        assertEquals(3 * launches, out.size(), "seed " + seed + ": every record once");
        assertEquals(3 * launches, seen.size(), "seed " + seed + ": none twice");
        assertEquals(0, lastJoin.parkedNow());
    }
}
