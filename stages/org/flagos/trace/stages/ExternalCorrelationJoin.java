package org.flagos.trace.stages;

import com.lmax.disruptor.EventHandler;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.GenerationalMap;
import org.flagos.trace.model.ParkedRecords;
import org.flagos.trace.model.RecordCopies;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Stage 2: gives device and API records the External id of the host op that launched them, by the
 * vendor's correlation-binding records (CUPTI kind 39). This is the only place the two id schemes
 * meet: the vendor correlation id is the key, the External id the value.
 *
 * <p>Buffers arrive in any order, so a kernel can precede its binding. Such a record is parked (a
 * copy is kept and its slot is skipped downstream) and released on the slot of the binding that
 * resolves it, so the join is exact whatever the order within the reorder horizon.
 *
 * <p>Parked copies come from {@link RecordCopies}: reused once the ring has turned past the slot they
 * were released on, so parking allocates only while more records are parked than ever before.
 *
 * <p>What is held is bounded by the horizon ({@link #DEFAULT_HORIZON} records), not by the length
 * of the capture. CUPTI writes a binding into the launching thread's buffer just before the API
 * record it binds, and buffers complete in per-thread order, so a binding trails the records that
 * need it by at most the records that complete meanwhile in other buffers. A record parked longer
 * than the horizon (counted in records arriving at this stage) can no longer expect its binding:
 * it is released without an External id, counted as unjoined and as {@link #releasedAtHorizon()}.
 * Bindings are likewise kept for a horizon of later bindings ({@link GenerationalMap}). At the
 * end of the capture, records still parked are released without an External id and counted per
 * kind as unjoined. A second binding of a correlation to a different id keeps the first and is
 * counted as a conflict.
 *
 * <p><b>Stages in front.</b> A stage before the join may park and release records the same way
 * ({@link TraceRecord#parked}, {@link TraceRecord#release}). A slot parked upstream counts as an
 * arrival and is not joined; a record released upstream is joined when it reaches the join on its
 * carrier slot, after the slot's own record: bound, it takes its External id; not yet bound, it is
 * taken off the carrier and parked here like any other (at the end of the capture it can no longer
 * be bound and passes unjoined, in place). A record whose correlation serves the join only
 * ({@link TraceRecord#correlationForJoinOnly()}) loses it once joined or given up on.
 */
public final class ExternalCorrelationJoin implements EventHandler<TraceRecord> {
    /** Records a parked record may wait for its binding; bindings kept for as many later bindings. */
    public static final int DEFAULT_HORIZON = 1 << 18;

    /** External ids are never negative (decoders reject them), so this marks an absent binding. */
    private static final long UNBOUND = Long.MIN_VALUE;

    private final int horizon;
    /** Vendor correlation id to External id; the first binding of a correlation wins. */
    private final GenerationalMap bindings;
    /** Records waiting for their binding, by correlation, in parking order. */
    private final ParkedRecords parked = new ParkedRecords();
    private long arrivals;
    /** The ring sequence of the slot being processed: when a released copy may be reused. */
    private long sequence;

    private final long[] joined = new long[EventKind.count()];
    private final long[] unjoined = new long[EventKind.count()];
    private long lateJoined;
    private long releasedAtHorizon;
    private long releasedUpstream;
    private long longestWait;
    private long duplicateBindings;
    private long conflictingBindings;

    public ExternalCorrelationJoin() {
        this(DEFAULT_HORIZON);
    }

    /** @param horizon records a parked record waits for its binding, and bindings kept per generation */
    public ExternalCorrelationJoin(int horizon) {
        if (horizon < 1) {
            throw new IllegalArgumentException("horizon " + horizon + " must be at least one record");
        }
        this.horizon = horizon;
        this.bindings = new GenerationalMap(horizon, UNBOUND);
    }

    @Override
    public void onEvent(TraceRecord record, long sequence, boolean endOfBatch) {
        this.sequence = sequence;
        int upstream = record.releasedCount();
        switch (record.type) {
            case CORRELATION_BINDING:
                arrive(record);
                if (!record.parked) {
                    bind(record, record);
                }
                break;
            case ACTIVITY:
                arrive(record);
                if (!record.parked && join(record)) {
                    park(record);
                    record.parked = true;
                }
                break;
            case END_OF_CAPTURE:
                releaseUnjoined(record);
                break;
            default:
                break;
        }
        if (upstream > 0) {
            joinReleasedUpstream(record, upstream);
        }
    }

    /** Joins the first {@code count} records on the carrier, those a stage in front released. */
    private void joinReleasedUpstream(TraceRecord carrier, int count) {
        boolean end = carrier.type == RecordType.END_OF_CAPTURE;
        int i = 0;
        for (int seen = 0; seen < count; seen++) {
            TraceRecord record = carrier.released(i);
            if (record.type == RecordType.CORRELATION_BINDING) {
                bind(record, carrier);
            } else if (record.type == RecordType.ACTIVITY) {
                releasedUpstream++;
                if (join(record)) {
                    if (!end) {
                        park(record);
                        carrier.withdrawRelease(i);
                        continue;
                    }
                    unjoined[record.kind.ordinal()]++; // nothing can bind it any more
                    forJoinOnly(record);
                }
            }
            i++;
        }
    }

    /** Counts one arrival and releases, on its slot, whatever waited past the horizon. */
    private void arrive(TraceRecord carrier) {
        arrivals++;
        for (TraceRecord oldest; (oldest = parked.overdue(arrivals, horizon)) != null; ) {
            releaseChain(carrier, oldest.correlation());
        }
    }

    /** Binds, and releases on {@code carrier} whatever waited for this binding. */
    private void bind(TraceRecord binding, TraceRecord carrier) {
        long correlation = binding.correlation();
        long external = binding.externalId();
        if (!bindings.putIfAbsent(correlation, external)) {
            if (bindings.get(correlation) == external) {
                duplicateBindings++;
            } else {
                conflictingBindings++;
            }
            return;
        }
        if (parked.size() > 0) {
            releaseParked(carrier, correlation, external);
        }
    }

    /** Joins {@code record}; returns true when its binding has not come yet (the caller parks it). */
    private boolean join(TraceRecord record) {
        if (!record.hasCorrelation()) {
            // the vendor's own time, annotation markers, unified memory: no call launched them, no op owns them
            if (record.kind != EventKind.OVERHEAD && record.kind != EventKind.MARKER && record.kind != EventKind.UNIFIED_MEMORY) {
                unjoined[record.kind.ordinal()]++;
            }
            return false;
        }
        long external = bindings.get(record.correlation());
        if (external != UNBOUND) {
            record.externalId(external);
            joined[record.kind.ordinal()]++;
            forJoinOnly(record);
            return false;
        }
        return true;
    }

    /** Clears a correlation that served the join only, once the join is done with the record. */
    private static void forJoinOnly(TraceRecord record) {
        if (record.correlationForJoinOnly()) {
            record.clearCorrelation();
        }
    }

    /** Keeps a copy of {@code record} until its binding comes, the horizon passes or the capture ends. */
    private void park(TraceRecord record) {
        parked.park(record, record.correlation(), arrivals, sequence);
    }

    private void releaseParked(TraceRecord carrier, long correlation, long external) {
        for (long n = parked.takeChain(correlation); n != ParkedRecords.NONE; ) {
            TraceRecord record = parked.record(n);
            longestWait = Math.max(longestWait, arrivals - parked.parkedAt(n));
            record.externalId(external);
            forJoinOnly(record);
            joined[record.kind.ordinal()]++;
            lateJoined++;
            long older = parked.older(n);
            parked.release(n, carrier, sequence);
            n = older;
        }
    }

    /** Releases every record parked under {@code correlation} without an External id. */
    private void releaseChain(TraceRecord carrier, long correlation) {
        for (long n = parked.takeChain(correlation); n != ParkedRecords.NONE; ) {
            TraceRecord record = parked.record(n);
            unjoined[record.kind.ordinal()]++;
            forJoinOnly(record);
            releasedAtHorizon++;
            long older = parked.older(n);
            parked.release(n, carrier, sequence);
            n = older;
        }
    }

    private void releaseUnjoined(TraceRecord end) {
        for (long n = parked.oldest(); n < parked.end(); n++) {
            TraceRecord record = parked.record(n);
            if (record != null) {
                unjoined[record.kind.ordinal()]++;
                forJoinOnly(record);
                parked.release(n, end, sequence);
            }
        }
        parked.clear();
    }

    /** Records of {@code kind} that received an External id. */
    public long joined(EventKind kind) {
        return joined[kind.ordinal()];
    }

    /** Records of {@code kind} that never had a binding and were emitted without an External id. */
    public long unjoined(EventKind kind) {
        return unjoined[kind.ordinal()];
    }

    /** Records that arrived before their binding and were joined when it came. */
    public long lateJoined() {
        return lateJoined;
    }

    /**
     * Records whose binding had not come within the horizon: emitted without an External id
     * (also counted in {@link #unjoined}). Zero in every bundled real capture.
     */
    public long releasedAtHorizon() {
        return releasedAtHorizon;
    }

    /** Bindings forgotten because later ones pushed them past the horizon (memory, not loss). */
    public long bindingsForgotten() {
        return bindings.forgotten();
    }

    /** The most records a late-joined record waited for its binding: how much of the horizon was used. */
    public long longestWait() {
        return longestWait;
    }

    /** The reorder horizon in records. */
    public int horizon() {
        return horizon;
    }

    public long duplicateBindings() {
        return duplicateBindings;
    }

    public long conflictingBindings() {
        return conflictingBindings;
    }

    /** Records a stage in front of the join released, joined (or parked) here on arrival. */
    public long releasedUpstream() {
        return releasedUpstream;
    }

    /** Records parked right now, waiting for a binding. */
    public int parkedNow() {
        return parked.size();
    }

    /** Bindings held right now. */
    public int bindingsHeld() {
        return bindings.size();
    }
}
