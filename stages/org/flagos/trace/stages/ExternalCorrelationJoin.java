package org.flagos.trace.stages;

import com.lmax.disruptor.EventHandler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.flagos.trace.pipeline.CorrelationTable;
import org.flagos.trace.pipeline.EventKind;
import org.flagos.trace.pipeline.LongIntHashMap;
import org.flagos.trace.pipeline.RecordType;
import org.flagos.trace.pipeline.TraceRecord;

/**
 * Stage 2: gives device and API records the External id of the host op that launched them, by the
 * vendor's correlation-binding records (CUPTI kind 39). This is the only place the two id schemes
 * meet: the vendor correlation id is the key, the External id the value.
 *
 * <p>Buffers arrive in any order, so a kernel can precede its binding. Such a record is parked (a
 * copy is kept and its slot is skipped downstream) and released on the slot of the binding that
 * resolves it, so the join is exact whatever the order. At the end of the capture, records still
 * parked never had a binding: they are released without an External id (they ran outside any host
 * op) and counted per kind as unjoined. A second binding of a correlation to a different id keeps
 * the first and is counted as a conflict.
 */
public final class ExternalCorrelationJoin implements EventHandler<TraceRecord> {
    private static final int NONE = -1;

    private final CorrelationTable bindings = new CorrelationTable();

    private final LongIntHashMap parkedHead = new LongIntHashMap(256, NONE);
    private final List<TraceRecord> parked = new ArrayList<>();
    private int[] parkedNext = new int[256];
    private int parkedLive;

    private final long[] joined = new long[EventKind.count()];
    private final long[] unjoined = new long[EventKind.count()];
    private long lateJoined;
    private long duplicateBindings;
    private long conflictingBindings;

    @Override
    public void onEvent(TraceRecord record, long sequence, boolean endOfBatch) {
        switch (record.type) {
            case CORRELATION_BINDING:
                bind(record);
                break;
            case ACTIVITY:
                join(record);
                break;
            case END_OF_CAPTURE:
                releaseUnjoined(record);
                break;
            default:
                break;
        }
    }

    private void bind(TraceRecord binding) {
        long correlation = binding.correlation();
        long external = binding.externalId();
        if (!bindings.bind(correlation, external)) {
            if (bindings.externalId(correlation) == external) {
                duplicateBindings++;
            } else {
                conflictingBindings++;
            }
            return;
        }
        if (parkedLive > 0) {
            releaseParked(binding, correlation, external);
        }
    }

    private void join(TraceRecord record) {
        if (!record.hasCorrelation()) {
            unjoined[record.kind.ordinal()]++;
            return;
        }
        if (bindings.isBound(record.correlation())) {
            record.externalId(bindings.externalId(record.correlation()));
            joined[record.kind.ordinal()]++;
            return;
        }
        park(record);
    }

    private void park(TraceRecord record) {
        TraceRecord copy = new TraceRecord(); // rare path: only records that beat their binding
        copy.copyFrom(record);
        int slot = parked.size();
        parked.add(copy);
        if (slot == parkedNext.length) {
            parkedNext = Arrays.copyOf(parkedNext, slot * 2);
        }
        parkedNext[slot] = parkedHead.put(record.correlation(), slot);
        parkedLive++;
        record.parked = true;
    }

    private void releaseParked(TraceRecord carrier, long correlation, long external) {
        int slot = parkedHead.get(correlation);
        if (slot == NONE) {
            return;
        }
        parkedHead.put(correlation, NONE);
        for (; slot != NONE; slot = parkedNext[slot]) {
            TraceRecord record = parked.get(slot);
            parked.set(slot, null);
            record.externalId(external);
            joined[record.kind.ordinal()]++;
            lateJoined++;
            parkedLive--;
            carrier.release(record);
        }
    }

    private void releaseUnjoined(TraceRecord end) {
        for (int slot = 0; slot < parked.size(); slot++) {
            TraceRecord record = parked.get(slot);
            if (record != null) {
                unjoined[record.kind.ordinal()]++;
                end.release(record);
            }
        }
        parked.clear();
        parkedLive = 0;
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

    public long duplicateBindings() {
        return duplicateBindings;
    }

    public long conflictingBindings() {
        return conflictingBindings;
    }

    /** Records parked right now, waiting for a binding. */
    public int parkedNow() {
        return parkedLive;
    }
}
