package org.flagos.trace.vendors.mspti;

import com.lmax.disruptor.EventHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;
import org.flagos.trace.model.CorrelationTable;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.LongIntHashMap;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * MSPTI's vendor stage, between API naming and the external-correlation join: turns MSPTI's
 * correlation ids into flow ids and coalesces the API calls of one device record so exactly one
 * arrow starts.
 *
 * <p><b>Flow ids.</b> Every nonzero 64-bit MSPTI correlation id gets a nonzero 32-bit flow id, in
 * order of first sight (any record type), unique within the capture; activity records and the
 * CORRELATION_BINDING records that carry MSPTI's external-correlation records are remapped through
 * the same table, so the join still pairs them and External ids stay the host op's ids, untouched.
 * Correlation 0 is {@code MSPTI_INVALID_CORRELATION_ID}: such a record loses its correlation, joins
 * no group and draws no arrow (counted). A replay sees the same records in the same order, so it
 * assigns the same ids.
 *
 * <p><b>Coalescing.</b> MSPTI reports one launch as several API records sharing the device record's
 * correlation (an ACL call and the runtime call under it). The writer starts an arrow at the first
 * API record of a correlation to reach it, so the choice is made here: in a group that has a device
 * record, the API record that names the device work wins (a name containing {@code launch} for a
 * kernel, {@code memcpy} or {@code copy} for a copy, {@code memset} for a memset), then the earliest
 * start (the outermost call: the one the application made), then the longest, then the first to
 * arrive. The winner keeps the group's flow id; every other API record of the group keeps no
 * correlation (its External id still attributes it), so no second arrow can start. API records of
 * a group without device work keep the group's id (no arrow can start there anyway).
 *
 * <p><b>Holding.</b> Records arrive in any order across buffers, so a group is known only at the
 * end of the capture. Device records and bindings pass at once (remapped). API records with a
 * correlation are held, as copies, until END_OF_CAPTURE and released on that slot, where the window
 * filter and the writer see them as they see the join's releases. Park-and-release on a later
 * binding, as the join does, is not open to a stage in front of the join: the join neither skips
 * parked slots nor joins released records. A held slot is therefore parked and re-typed
 * {@link RecordType#HOST_OP} (which the join skips, and which the window filter and the writer skip
 * because it is parked), and the held copies get their External ids here, from the bindings this
 * stage saw (the first binding of a flow id wins, as in the join). At most {@code holdLimit} records
 * are held; past it API records pass uncoalesced (their arrow may start on any of the group's API
 * records), counted, with one warning.
 */
public final class MsptiCorrelationRemap implements EventHandler<TraceRecord> {
    /** API records held at most, by default (a copy each, until the capture ends). */
    public static final int DEFAULT_HOLD_LIMIT = 1 << 18;
    private static final int NONE = 0;
    private static final int KERNEL_BIT = 1;
    private static final int MEMCPY_BIT = 2;
    private static final int MEMSET_BIT = 4;

    private final IntFunction<String> names;
    private final int holdLimit;
    private final LongIntHashMap flowIds = new LongIntHashMap(1 << 12, NONE);
    private final LongIntHashMap deviceWork = new LongIntHashMap(1 << 12, NONE);
    private final CorrelationTable bindings = new CorrelationTable();
    private final List<TraceRecord> held = new ArrayList<>();
    private long nextFlowId = 1;

    private long withoutCorrelation;
    private long exhausted;
    private long coalesced;
    private long passedUncoalesced;
    private long heldJoined;
    private long heldWithoutExternalId;

    /** @param names the capture's name table (API names decide which call of a group wins) */
    public MsptiCorrelationRemap(IntFunction<String> names) {
        this(names, DEFAULT_HOLD_LIMIT);
    }

    public MsptiCorrelationRemap(IntFunction<String> names, int holdLimit) {
        this.names = names;
        this.holdLimit = holdLimit;
    }

    @Override
    public void onEvent(TraceRecord record, long sequence, boolean endOfBatch) {
        switch (record.type) {
            case CORRELATION_BINDING:
                bind(record);
                break;
            case ACTIVITY:
                if (record.kind.isDevice()) {
                    device(record);
                } else {
                    api(record);
                }
                break;
            case END_OF_CAPTURE:
                release(record);
                break;
            default:
                break;
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
        bindings.bind(flow, binding.externalId());
    }

    private void device(TraceRecord record) {
        long flow = remap(record);
        if (flow != 0) {
            deviceWork.put(flow, deviceWork.get(flow) | bit(record.kind));
        }
    }

    private void api(TraceRecord record) {
        if (remap(record) == 0) {
            return;
        }
        if (held.size() >= holdLimit) {
            if (passedUncoalesced++ == 0) {
                Diagnostics.warn("mspti", "more than " + holdLimit + " API records in one capture: the rest pass"
                        + " uncoalesced (their arrow may start on any API call of a launch)");
            }
            return;
        }
        TraceRecord copy = new TraceRecord();
        copy.copyFrom(record);
        held.add(copy);
        record.parked = true;
        record.type = RecordType.HOST_OP; // the join does not look at parked; it skips host ops
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
        int id = flowIds.get(correlation);
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
            exhausted++;
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

    private void release(TraceRecord end) {
        LongIntHashMap winner = new LongIntHashMap(Math.max(16, held.size()), -1);
        for (int i = 0; i < held.size(); i++) {
            TraceRecord r = held.get(i);
            int work = deviceWork.get(r.correlation());
            if (work == NONE) {
                continue;
            }
            int best = winner.get(r.correlation());
            if (best < 0 || better(r, held.get(best), work)) {
                winner.put(r.correlation(), i);
            }
        }
        for (int i = 0; i < held.size(); i++) {
            TraceRecord r = held.get(i);
            long flow = r.correlation();
            if (bindings.isBound(flow)) {
                r.externalId(bindings.externalId(flow));
                heldJoined++;
            } else {
                heldWithoutExternalId++;
            }
            if (deviceWork.get(flow) != NONE && winner.get(flow) != i) {
                r.clearCorrelation(); // coalesced: the group's arrow starts on the winner alone
                coalesced++;
            }
            end.release(r);
        }
        held.clear();
        Diagnostics.trace("mspti", "correlation remap: " + (nextFlowId - 1) + " flow ids, " + coalesced
                + " API records coalesced, " + withoutCorrelation + " records without correlation, "
                + passedUncoalesced + " passed uncoalesced, " + heldWithoutExternalId + " held API records without External id");
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
        return a.endNs > b.endNs; // equal: the first to arrive stays
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

    /** API records past the hold limit, passed without coalescing. */
    public long passedUncoalesced() {
        return passedUncoalesced;
    }

    /** Held API records given an External id here. */
    public long heldJoined() {
        return heldJoined;
    }

    /** Held API records whose flow id never had a binding. */
    public long heldWithoutExternalId() {
        return heldWithoutExternalId;
    }

    /** Records whose correlation found no flow id left (more than 2^32 - 1 in one capture). */
    public long exhausted() {
        return exhausted;
    }

    /** API records held right now. */
    public int heldNow() {
        return held.size();
    }
}
