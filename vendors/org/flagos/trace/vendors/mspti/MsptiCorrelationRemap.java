package org.flagos.trace.vendors.mspti;

import com.lmax.disruptor.EventHandler;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.flagos.trace.model.AccountedStage;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.GenerationalMap;
import org.flagos.trace.model.ParkedRecords;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * MSPTI's vendor stage, between API naming and the external-correlation join: turns MSPTI's
 * correlation ids into flow ids and coalesces the API calls of one device record so exactly one
 * arrow starts.
 *
 * <p><b>Flow ids.</b> Every nonzero 64-bit MSPTI correlation id gets a nonzero 32-bit flow id, in
 * order of first sight (any record type); activity records and the CORRELATION_BINDING records that
 * carry MSPTI's external-correlation records are remapped through the same table, so the join
 * pairs them and External ids stay the host op's ids, untouched. The table remembers the ids of
 * one horizon of correlations ({@link GenerationalMap}); a correlation seen again after it was
 * forgotten gets a new flow id (counted). Correlation 0 is {@code MSPTI_INVALID_CORRELATION_ID}:
 * such a record loses its correlation, joins no group and draws no arrow (counted). A replay sees
 * the same records in the same order, so it assigns the same ids.
 *
 * <p><b>Coalescing.</b> MSPTI reports one launch as several API records sharing the device record's
 * correlation (an ACL call and the runtime call under it). In a group that has a device record, the
 * API record that names the device work wins (a name containing {@code launch} for a kernel,
 * {@code memcpy} or {@code copy} for a copy, {@code memset} for a memset), then the earliest start
 * (the outermost call: the one the application made), then the longest, then the first to arrive.
 * The winner keeps the group's flow id; every other API record of the group keeps it for the join
 * only ({@link TraceRecord#correlationForJoinOnly}): the join gives it the op's External id and then
 * clears it, so no second arrow can start. API records of a group without device work keep the
 * group's id (no arrow can start there anyway).
 *
 * <p><b>Parking.</b> Records arrive in any order across buffers, so a group is known only once its
 * records have arrived. Device records and bindings pass at once (remapped). An API record with a
 * correlation is parked the way the join parks ({@link TraceRecord#parked}: later stages skip the
 * slot, the join counts it as an arrival) and a copy is kept. A group is decided and released when
 * its oldest call has waited a horizon of records arriving here, or at the end of the capture; its
 * calls are released in arrival order on the current slot, where the join joins them as it joins
 * the records it released itself. At most one horizon of calls is parked. A call or device record
 * of a group arriving after the group was released is counted (the call is coalesced at once when
 * the group had device work; device work that comes after its calls were released may draw its
 * arrow from any of them).
 *
 * <p><b>Flush barriers.</b> A live session's {@link RecordType#FLUSH_BARRIER} at host time T claims
 * that every binding and API record of a call that returned before T is ahead of it, and the walk
 * then settles a held op that ended before T: at once when no record named it, else once it ended
 * the walk's lag before T (its device work has had that long). Bindings and device records pass this
 * stage at once, so the first half stays true; but a parked call has not passed, and an op settled
 * while its calls are parked here would get them after it settled (counted as records after their op
 * settled, missing from its row). So the barrier is made to claim only what is true after this stage:
 * <ol>
 *   <li>groups that can be decided now are released on the barrier's slot, ahead of it: those whose
 *       parked calls all ended before T and that have device work (a call of the group still to come
 *       would be an outer call running at T, in an op that does not end before T), or whose calls all
 *       ended more than {@link #DEFAULT_BARRIER_LAG_NS} before T (device work given up on, as the
 *       walk gives it up);</li>
 *   <li>when calls stay parked, the barrier's time is lowered to {@link #CLOCK_SLACK_NS} before the
 *       earliest start among them: an op holding one of them started before that call and ends after
 *       it, so it cannot have ended before the lowered time, and every call that returned before that
 *       time has passed.</li>
 * </ol>
 * Nothing is allocated for this beyond what releasing does anyway. Lowered barriers, and calls
 * released at barriers, are counted; a barrier release that a call or device record of its group
 * follows is counted with the horizon's ({@link #callsAfterRelease()}, {@link #deviceWorkAfterRelease()}).
 */
public final class MsptiCorrelationRemap implements EventHandler<TraceRecord>, AccountedStage {
    /** Records arriving here that a parked call waits at most for the rest of its group. */
    public static final int DEFAULT_HORIZON = 1 << 18;
    /**
     * How long before a flush barrier a group without device work must have ended to be released at
     * it: one second, the walk's default lag for ops that launched something.
     */
    public static final long DEFAULT_BARRIER_LAG_NS = 1_000_000_000L;
    /** How far below a parked call's start a lowered barrier goes: the host clock is aligned to MSPTI's within microseconds. */
    public static final long CLOCK_SLACK_NS = 1_000_000L;
    /** What the tables return for a correlation or flow not known; the values stored are never 0. */
    private static final int NONE = 0;
    private static final int KERNEL_BIT = 1;
    private static final int MEMCPY_BIT = 2;
    private static final int MEMSET_BIT = 4;
    private static final int WORK_BITS = KERNEL_BIT | MEMCPY_BIT | MEMSET_BIT;
    /** The group's calls were released at the horizon: later calls cannot join the decision. */
    private static final int RELEASED_BIT = 8;

    private final IntFunction<String> names;
    private final int horizon;
    private final long barrierLagNs;
    private final GenerationalMap flowIds;
    /** Per flow id: the device work seen (kinds) and whether its calls were released. */
    private final GenerationalMap groups;
    /** Parked calls by flow id, in arrival order. */
    private final ParkedRecords parked = new ParkedRecords();
    private long arrivals;
    /** Scratch: one group's parking numbers, newest first, to release them oldest first. */
    private long[] group = new long[16];

    private long nextFlowId = 1;
    private long withoutCorrelation;
    private long exhausted;
    private long coalesced;
    private long releasedAtHorizon;
    private long callsAfterRelease;
    private long deviceWorkAfterRelease;
    private long barriers;
    private long barriersLowered;
    private long releasedAtBarrier;
    private Consumer<String> notes = MsptiCorrelationRemap::unheard;

    /** @param names the capture's name table (API names decide which call of a group wins) */
    public MsptiCorrelationRemap(IntFunction<String> names) {
        this(names, DEFAULT_HORIZON);
    }

    /** @param horizon records a parked call waits for its group, and correlations remembered per generation */
    public MsptiCorrelationRemap(IntFunction<String> names, int horizon) {
        this(names, horizon, DEFAULT_BARRIER_LAG_NS);
    }

    /**
     * @param horizon      records a parked call waits for its group, and correlations remembered per generation
     * @param barrierLagNs how long before a flush barrier a group without device work must have ended to be released at it
     */
    public MsptiCorrelationRemap(IntFunction<String> names, int horizon, long barrierLagNs) {
        if (horizon < 1) {
            throw new IllegalArgumentException("horizon " + horizon + " must be at least one record");
        }
        this.names = names;
        this.horizon = horizon;
        this.barrierLagNs = Math.max(0, barrierLagNs);
        this.flowIds = new GenerationalMap(horizon, NONE);
        this.groups = new GenerationalMap(horizon, NONE);
    }

    @Override
    public void notesTo(Consumer<String> notes) {
        this.notes = notes;
    }

    @Override
    public void onEvent(TraceRecord record, long sequence, boolean endOfBatch) {
        switch (record.type) {
            case CORRELATION_BINDING:
                arrive(record, sequence);
                bind(record);
                break;
            case ACTIVITY:
                arrive(record, sequence);
                if (record.kind.isDevice()) {
                    device(record);
                } else {
                    api(record, sequence);
                }
                break;
            case FLUSH_BARRIER:
                barrier(record, sequence);
                break;
            case END_OF_CAPTURE:
                releaseAll(record, sequence);
                break;
            default:
                break;
        }
    }

    /** Counts one arrival and releases, on its slot, the groups whose oldest call waited a horizon. */
    private void arrive(TraceRecord carrier, long sequence) {
        arrivals++;
        for (TraceRecord oldest; (oldest = parked.overdue(arrivals, horizon)) != null; ) {
            releaseGroup(carrier, sequence, oldest.correlation());
        }
    }

    private void bind(TraceRecord binding) {
        if (!binding.hasCorrelation() || binding.correlation() == 0) {
            withoutCorrelation++; // stays on 0, which no remapped record carries: it binds nothing
            return;
        }
        long flow = flowId(binding.correlation());
        if (flow == 0) {
            binding.clearCorrelation();
            return;
        }
        binding.correlation(flow);
    }

    private void device(TraceRecord record) {
        long flow = remap(record);
        if (flow != 0) {
            int state = (int) groups.get(flow);
            if ((state & RELEASED_BIT) != 0 && (state & WORK_BITS) == 0) {
                deviceWorkAfterRelease++;
            }
            groups.put(flow, state | bit(record.kind));
        }
    }

    private void api(TraceRecord record, long sequence) {
        long flow = remap(record);
        if (flow == 0) {
            return;
        }
        int state = (int) groups.get(flow);
        if ((state & RELEASED_BIT) != 0) {
            callsAfterRelease++;
            if ((state & WORK_BITS) != 0) {
                record.correlationForJoinOnly(true); // its group's arrow left with the released calls
                coalesced++;
            }
            return;
        }
        park(record, sequence, flow);
    }

    private void park(TraceRecord record, long sequence, long flow) {
        parked.park(record, flow, arrivals, sequence);
        record.parked = true;
    }

    /** Decides the group of {@code flow} and releases its parked calls, in arrival order, on {@code carrier}. */
    private void releaseGroup(TraceRecord carrier, long sequence, long flow) {
        if (releasedAtHorizon == 0) {
            Diagnostics.warn("mspti", "a launch's API calls waited more than " + horizon + " records for the rest"
                    + " of their group: released at the horizon; calls of the group arriving later are coalesced as they come");
        }
        releasedAtHorizon += release(carrier, sequence, flow);
    }

    /** Decides the group of {@code flow} and releases its parked calls on {@code carrier}, oldest first; how many. */
    private int release(TraceRecord carrier, long sequence, long flow) {
        int state = (int) groups.get(flow);
        long head = decide(flow, state & WORK_BITS);
        int n = 0;
        for (long s = head; s != ParkedRecords.NONE; s = parked.older(s)) {
            if (n == group.length) {
                group = Arrays.copyOf(group, n * 2); // rare: a group larger than any before
            }
            group[n++] = s;
        }
        for (int k = n - 1; k >= 0; k--) {
            parked.release(group[k], carrier, sequence);
        }
        groups.put(flow, state | RELEASED_BIT);
        return n;
    }

    /**
     * A flush barrier: releases on its slot the groups that can be decided at its time, then lowers
     * its time below the earliest call still parked (see the class comment).
     */
    private void barrier(TraceRecord barrier, long sequence) {
        barriers++;
        if (parked.size() == 0) {
            return;
        }
        long at = barrier.startNs;
        long earliest = Long.MAX_VALUE;
        for (long n = parked.oldest(); n < parked.end(); n++) {
            TraceRecord r = parked.record(n);
            if (r == null) {
                continue; // released
            }
            long flow = r.correlation();
            long latestEnd = Long.MIN_VALUE;
            long earliestStart = Long.MAX_VALUE;
            for (long s = parked.newest(flow); s != ParkedRecords.NONE; s = parked.older(s)) {
                TraceRecord call = parked.record(s);
                latestEnd = Math.max(latestEnd, call.endNs);
                earliestStart = Math.min(earliestStart, call.startNs);
            }
            boolean work = (groups.get(flow) & WORK_BITS) != 0;
            if (latestEnd < at && (work || latestEnd < at - barrierLagNs)) {
                releasedAtBarrier += release(barrier, sequence, flow);
            } else {
                earliest = Math.min(earliest, earliestStart);
            }
        }
        if (earliest != Long.MAX_VALUE && earliest - CLOCK_SLACK_NS < at) {
            barrier.startNs = earliest - CLOCK_SLACK_NS;
            barrier.endNs = barrier.startNs;
            barriersLowered++;
        }
    }

    /** At the end of the capture: every group decided, then every parked call released in arrival order. */
    private void releaseAll(TraceRecord end, long sequence) {
        for (long n = parked.oldest(); n < parked.end(); n++) {
            TraceRecord r = parked.record(n);
            if (r != null && parked.hasChain(r.correlation())) {
                decide(r.correlation(), (int) groups.get(r.correlation()) & WORK_BITS);
            }
        }
        for (long n = parked.oldest(); n < parked.end(); n++) {
            if (parked.record(n) != null) {
                parked.release(n, end, sequence);
            }
        }
        parked.clear();
        if (releasedAtBarrier > 0 && (callsAfterRelease > 0 || deviceWorkAfterRelease > 0)) {
            notes.accept("mspti correlation remap at flush barriers: " + releasedAtBarrier + " API calls released at "
                    + barriers + " barriers (" + barriersLowered + " lowered below calls still parked); calls of released"
                    + " groups that came later: " + callsAfterRelease + ", device records after their calls' release: "
                    + deviceWorkAfterRelease + " (with the horizon's)");
        }
        if (releasedAtHorizon > 0 || exhausted > 0) {
            notes.accept("mspti correlation remap past its bounds: " + releasedAtHorizon + " API calls released at the horizon of "
                    + horizon + " records (" + callsAfterRelease + " calls of their groups came later and were coalesced as they"
                    + " came, " + deviceWorkAfterRelease + " device records came after their calls), " + exhausted
                    + " records without a flow id (more than 2^32 - 1 correlations), " + flowIds.forgotten()
                    + " correlations forgotten past the horizon (seen again, they got a new flow id)");
        }
        Diagnostics.trace("mspti", "correlation remap: " + (nextFlowId - 1) + " flow ids, " + coalesced
                + " API records coalesced, " + withoutCorrelation + " records without correlation, "
                + releasedAtHorizon + " released at the horizon, " + callsAfterRelease + " calls after their group's release, "
                + deviceWorkAfterRelease + " device records after their calls' release, " + releasedAtBarrier
                + " released at " + barriers + " flush barriers (" + barriersLowered + " lowered), " + flowIds.forgotten()
                + " correlations forgotten, at most " + parked.most() + " calls parked");
    }

    /** Notes of a stage outside a pipeline (tests) go nowhere; the counters still hold them. */
    private static void unheard(String line) {
    }

    /**
     * Unlinks the group of {@code flow} and, when it has device work, marks every call but the
     * winner as coalesced; returns the group's newest parking sequence.
     */
    private long decide(long flow, int work) {
        long head = parked.takeChain(flow);
        if (work == NONE || head == ParkedRecords.NONE) {
            return head;
        }
        // Walking newest to oldest, moving to every call at least as good leaves the first to arrive among the best.
        long best = head;
        for (long s = parked.older(head); s != ParkedRecords.NONE; s = parked.older(s)) {
            if (!better(parked.record(best), parked.record(s), work)) {
                best = s;
            }
        }
        for (long s = head; s != ParkedRecords.NONE; s = parked.older(s)) {
            if (s != best) {
                parked.record(s).correlationForJoinOnly(true);
                coalesced++;
            }
        }
        return head;
    }

    /** Replaces the record's MSPTI correlation by its flow id; 0 (and no correlation) when it has none. */
    private long remap(TraceRecord record) {
        if (!record.hasCorrelation() || record.correlation() == 0) {
            record.clearCorrelation();
            withoutCorrelation++;
            return 0;
        }
        long flow = flowId(record.correlation());
        if (flow == 0) {
            record.clearCorrelation();
            return 0;
        }
        record.correlation(flow);
        return flow;
    }

    private long flowId(long correlation) {
        int id = (int) flowIds.get(correlation);
        if (id != NONE) {
            return Integer.toUnsignedLong(id);
        }
        long fresh = freshFlowId();
        if (fresh != 0) {
            flowIds.put(correlation, (int) fresh);
        }
        return fresh;
    }

    private long freshFlowId() {
        if (nextFlowId > 0xFFFF_FFFFL) {
            if (exhausted++ == 0) {
                Diagnostics.warn("mspti", "more than 2^32 - 1 correlation ids in one capture: the rest draw no arrow");
            }
            return 0;
        }
        return nextFlowId++;
    }

    private static int bit(EventKind kind) {
        switch (kind) {
            case KERNEL: return KERNEL_BIT;
            case MEMCPY: return MEMCPY_BIT;
            default: return MEMSET_BIT;
        }
    }

    /** True when API record {@code a} should carry the arrow of device work {@code work} rather than {@code b}. */
    private boolean better(TraceRecord a, TraceRecord b, int work) {
        boolean an = namesWork(a, work);
        boolean bn = namesWork(b, work);
        if (an != bn) {
            return an;
        }
        if (a.startNs != b.startNs) {
            return a.startNs < b.startNs;
        }
        return a.endNs > b.endNs;
    }

    private boolean namesWork(TraceRecord api, int work) {
        if (api.nameId < 0) {
            return false;
        }
        String name = names.apply(api.nameId).toLowerCase(Locale.ROOT);
        if ((work & KERNEL_BIT) != 0) {
            return name.contains("launch");
        }
        if ((work & MEMCPY_BIT) != 0) {
            return name.contains("memcpy") || name.contains("copy");
        }
        return name.contains("memset");
    }

    /** Distinct flow ids handed out so far (group ids and the coalesced calls' own ids). */
    public long flowIds() {
        return nextFlowId - 1;
    }

    /** API records that lost their group's arrow to a better call of the same device record. */
    public long coalesced() {
        return coalesced;
    }

    /** Records (and bindings) that carried correlation 0, MSPTI's "unknown". */
    public long withoutCorrelation() {
        return withoutCorrelation;
    }

    /** Calls released because their group's oldest call waited a horizon, before the capture ended. */
    public long releasedAtHorizon() {
        return releasedAtHorizon;
    }

    /** Calls that arrived after their group was released at the horizon (passed at once). */
    public long callsAfterRelease() {
        return callsAfterRelease;
    }

    /** Device records that arrived after their group's calls were released without device work. */
    public long deviceWorkAfterRelease() {
        return deviceWorkAfterRelease;
    }

    /** Correlations whose flow id was forgotten past the horizon (seen again, they get a new one). */
    public long correlationsForgotten() {
        return flowIds.forgotten();
    }

    /** Records whose correlation found no flow id left (more than 2^32 - 1 in one capture). */
    public long exhausted() {
        return exhausted;
    }

    /** Flush barriers seen. */
    public long barriers() {
        return barriers;
    }

    /** Flush barriers whose time was lowered below a call still parked. */
    public long barriersLowered() {
        return barriersLowered;
    }

    /** Calls released on a flush barrier's slot, their group decided at it. */
    public long releasedAtBarrier() {
        return releasedAtBarrier;
    }

    /** API records parked right now. */
    public int parkedNow() {
        return parked.size();
    }

    /** The most API records parked at once. */
    public int mostParked() {
        return parked.most();
    }

    /** The horizon in records arriving here. */
    public int horizon() {
        return horizon;
    }
}
