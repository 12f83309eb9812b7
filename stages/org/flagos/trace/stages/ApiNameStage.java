package org.flagos.trace.stages;

import com.lmax.disruptor.EventHandler;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Stage 1: runtime and driver callback id to API name. Names come from the vendor's generated
 * table, resolved once per cbid; a record the vendor already named (its decoder set the name) keeps
 * it; an id the table does not name keeps the vendor's generic label
 * (its numeric cbid still travels as an arg) and is counted.
 */
public final class ApiNameStage implements EventHandler<TraceRecord> {
    private static final int UNRESOLVED = -1;

    private final ApiNames apiNames;
    private final NameTable names;
    private final int[][] idByCbid = new int[EventKind.count()][];
    private final int[] genericId = new int[EventKind.count()];
    private final Map<String, Long> unknownCbids = new TreeMap<>();
    private long resolved;
    private long generic;
    private long vendorNamed;

    public ApiNameStage(ApiNames apiNames, NameTable names) {
        this.apiNames = apiNames;
        this.names = names;
        for (EventKind kind : new EventKind[] {EventKind.RUNTIME, EventKind.DRIVER}) {
            idByCbid[kind.ordinal()] = new int[0];
            genericId[kind.ordinal()] = names.intern(apiNames.genericLabel(kind));
        }
    }

    @Override
    public void onEvent(TraceRecord record, long sequence, boolean endOfBatch) {
        if (record.type == RecordType.ACTIVITY && !record.kind.isDevice()) {
            if (record.nameId >= 0) {
                vendorNamed++; // the vendor's record carried its API name (MSPTI has no callback ids)
            } else {
                record.nameId = nameId(record.kind, record.cbid);
            }
        }
    }

    private int nameId(EventKind kind, int cbid) {
        int[] ids = idByCbid[kind.ordinal()];
        if (cbid >= 0 && cbid < ids.length && ids[cbid] != 0) {
            return hit(kind, cbid, ids[cbid] - 1);
        }
        String name = apiNames.name(kind, cbid);
        int id = name == null ? UNRESOLVED : names.intern(name);
        if (cbid >= 0 && cbid < 1 << 16) {
            if (cbid >= ids.length) {
                ids = java.util.Arrays.copyOf(ids, Math.max(cbid + 1, ids.length * 2));
                idByCbid[kind.ordinal()] = ids;
            }
            ids[cbid] = id == UNRESOLVED ? genericId[kind.ordinal()] + 1 : id + 1;
        }
        if (id == UNRESOLVED) {
            return hit(kind, cbid, genericId[kind.ordinal()]);
        }
        return hit(kind, cbid, id);
    }

    private int hit(EventKind kind, int cbid, int id) {
        if (id == genericId[kind.ordinal()]) {
            generic++;
            unknownCbids.merge(kind.name().toLowerCase() + ":" + cbid, 1L, Long::sum);
        } else {
            resolved++;
        }
        return id;
    }

    /** API records named from the table. */
    public long resolved() {
        return resolved;
    }

    /** API records that arrived already named by the vendor (no table lookup). */
    public long vendorNamed() {
        return vendorNamed;
    }

    /** API records that kept the generic label. */
    public long generic() {
        return generic;
    }

    /** Histogram of the callback ids the table did not name ({@code runtime:999} to count). */
    public Map<String, Long> unknownCbids() {
        return unknownCbids;
    }
}
