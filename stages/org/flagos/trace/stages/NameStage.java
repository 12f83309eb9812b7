package org.flagos.trace.stages;

import com.lmax.disruptor.EventHandler;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.LongIntHashMap;
import org.flagos.trace.model.MarkerPhase;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.SyncKind;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.names.ItaniumDemangler;

/**
 * Stage 1, the one stage that names records and owns the capture's {@link NameTable}: after it no
 * stage writes a name into a slot, and the output formats only read names.
 *
 * <ul>
 *   <li>Kernels: the vendor's name handle, resolved through the record's {@link RecordNaming} once
 *       per handle, demangled (c++filt-exact) and interned; a handle the vendor cannot resolve keeps
 *       a visible placeholder and is counted. The vendor's kernel figures (CUDA occupancy) are filled
 *       here too.</li>
 *   <li>API calls: the name the vendor's record points to, when it carries one (MSPTI), else
 *       runtime and driver callback id to API name, from the vendor's generated table, resolved once
 *       per cbid; a record the vendor already named keeps it; an id the table does not
 *       name keeps the vendor's generic label (its numeric cbid still travels as an arg) and is
 *       counted.</li>
 *   <li>Copies and sets: torch's transfer name ({@code Memcpy HtoD (Pageable -> Device)}).</li>
 *   <li>Annotation markers: the start's (or mark's) message and its domain, through the record's
 *       {@link RecordNaming#markerName}, once per handle, as given (an end carries none; an
 *       unknown handle keeps {@code <unresolved marker 0x…>}).</li>
 *   <li>Host ops: the op's and its thread's names as the program gave them.</li>
 *   <li>The end of the capture: torch's capture span name.</li>
 * </ul>
 */
public final class NameStage implements EventHandler<TraceRecord> {
    /** The name torch gives the span of the profiled region. */
    static final String CAPTURE_SPAN = "PyTorch Profiler (0)";
    private static final int UNRESOLVED = -1;
    /** Distinct unnamed callback ids kept by id in {@link #unknownCbids()}; the rest count as {@link #OTHER_CBIDS}. */
    static final int UNKNOWN_CBIDS_KEPT = 1024;
    /** The histogram key of the unnamed callback ids beyond the ones kept. */
    static final String OTHER_CBIDS = "other";

    private static final int MEMORY_KINDS = MemoryKind.values().length + 1;
    private static final int COPY_KINDS = CopyKind.values().length + 1;

    private final ApiNames apiNames;
    /** Transfer name id + 1 by kinds: sets first, then copies by copy kind, source, destination. */
    private final int[] transferIds = new int[1 + MEMORY_KINDS + COPY_KINDS * MEMORY_KINDS * MEMORY_KINDS];
    private final NameTable names;
    private final DecodeStats stats;
    /** Kernel and API name ids by handle, per vendor naming (one per capture, as a rule). */
    private final Map<RecordNaming, LongIntHashMap[]> idsByNaming = new IdentityHashMap<>();
    private RecordNaming naming;
    private LongIntHashMap kernelIds;
    private LongIntHashMap apiIds;
    private LongIntHashMap markerIds;
    private final int[][] idByCbid = new int[EventKind.count()][];
    private final int[] genericId = new int[EventKind.count()];
    /**
     * Records per unnamed callback id, keyed by kind ordinal (high half) and cbid (low half). A cbid
     * is read from the record, so a hostile capture could name four billion of them: past
     * {@link #UNKNOWN_CBIDS_KEPT} distinct ids the rest are counted together.
     */
    private final org.agrona.collections.Long2LongHashMap unknownCounts = new org.agrona.collections.Long2LongHashMap(0);
    private long unknownBeyondKept;
    private long resolved;
    private long generic;
    private long vendorNamed;

    /** Names into {@code names} without counting unresolved kernels (tests). */
    public NameStage(ApiNames apiNames, NameTable names) {
        this(apiNames, names, new DecodeStats());
    }

    /**
     * @param apiNames the vendor's callback-id table
     * @param names    the capture's name table, which this stage alone writes while records flow
     * @param stats    where kernels without a name are counted
     */
    public NameStage(ApiNames apiNames, NameTable names, DecodeStats stats) {
        this.apiNames = apiNames;
        this.names = names;
        this.stats = stats;
        for (EventKind kind : new EventKind[] {EventKind.RUNTIME, EventKind.DRIVER}) {
            idByCbid[kind.ordinal()] = new int[0];
            genericId[kind.ordinal()] = names.intern(apiNames.genericLabel(kind));
        }
    }

    @Override
    public void onEvent(TraceRecord record, long sequence, boolean endOfBatch) {
        if (record.type == RecordType.ACTIVITY) {
            if (record.kind.isInstant()) {
                return; // drawn under its kind's fixed name ([memory])
            }
            if (record.kind == EventKind.MARKER) {
                if (record.naming != null) {
                    record.nameId = markerNameId(record, record.nameHandle);
                    record.domainNameId = markerNameId(record, record.domainHandle);
                }
                if (record.nameId < 0 && record.markerPhase != MarkerPhase.END) {
                    record.nameId = names.intern(""); // NVTX allows a range without a message
                }
            } else if (record.kind == EventKind.SYNC) {
                record.nameId = names.intern(record.syncKind == null ? SyncKind.UNKNOWN.label() : record.syncKind.label());
            } else if (record.kind == EventKind.UNIFIED_MEMORY) {
                record.nameId = names.intern(record.umCounter.label());
            } else if (record.kind == EventKind.OVERHEAD) {
                record.nameId = names.intern(record.label == null ? "Unknown" : record.label);
            } else if (!record.kind.isDevice()) {
                if (record.nameId < 0 && record.nameHandle != 0 && record.naming != null) {
                    record.nameId = apiNameId(record);
                }
                if (record.nameId >= 0) {
                    vendorNamed++; // the vendor's record carried its API name (MSPTI has no callback ids)
                } else {
                    record.nameId = nameId(record.kind, record.cbid);
                }
            } else if (record.kind == EventKind.KERNEL && record.naming != null) {
                record.nameId = kernelNameId(record);
                record.naming.kernelFigures(record);
            } else if (record.nameId < 0) {
                record.nameId = transferNameId(record);
            }
        } else if (record.type == RecordType.HOST_OP) {
            if (record.opName != null) {
                record.nameId = names.intern(record.opName);
            }
            if (record.opThreadName != null) {
                record.threadNameId = names.intern(record.opThreadName);
            }
        } else if (record.type == RecordType.END_OF_CAPTURE) {
            record.nameId = names.intern(CAPTURE_SPAN);
        }
    }

    /** The demangled, interned name of a kernel's handle; looked up once per handle. */
    private int kernelNameId(TraceRecord r) {
        useNaming(r.naming);
        long handle = r.nameHandle;
        int id = kernelIds.get(handle);
        if (id != UNRESOLVED) {
            return id;
        }
        String mangled = naming.kernelName(handle);
        String name;
        if (mangled == null) {
            name = "<unresolved kernel 0x" + Long.toHexString(handle) + ">";
            stats.unnamedKernel();
        } else {
            name = ItaniumDemangler.demangle(mangled);
        }
        id = names.intern(name);
        kernelIds.put(handle, id);
        return id;
    }

    /** The interned name an API record's handle points to, or -1 when it points to none (not kept: asked again). */
    private int apiNameId(TraceRecord r) {
        useNaming(r.naming);
        int id = apiIds.get(r.nameHandle);
        if (id != UNRESOLVED) {
            return id;
        }
        String name = naming.apiName(r.nameHandle);
        if (name == null || name.isEmpty()) {
            return UNRESOLVED;
        }
        id = names.intern(name);
        apiIds.put(r.nameHandle, id);
        return id;
    }

    /** The interned text of an annotation's name or domain handle, or -1 for none (0); looked up once per handle. */
    private int markerNameId(TraceRecord r, long handle) {
        if (handle == 0) {
            return UNRESOLVED;
        }
        useNaming(r.naming);
        int id = markerIds.get(handle);
        if (id != UNRESOLVED) {
            return id;
        }
        String text = naming.markerName(handle);
        id = names.intern(text == null ? "<unresolved marker 0x" + Long.toHexString(handle) + ">" : text);
        markerIds.put(handle, id);
        return id;
    }

    private void useNaming(RecordNaming of) {
        if (of != naming) {
            LongIntHashMap[] ids = idsByNaming.computeIfAbsent(of,
                    n -> new LongIntHashMap[] {new LongIntHashMap(256, UNRESOLVED), new LongIntHashMap(256, UNRESOLVED),
                        new LongIntHashMap(16, UNRESOLVED)});
            naming = of;
            kernelIds = ids[0];
            apiIds = ids[1];
            markerIds = ids[2];
        }
    }

    /**
     * The id of a copy's or set's name: the string is made and interned once per combination of
     * kinds (a table of their ordinals, absent as 0), not once per record.
     */
    private int transferNameId(TraceRecord r) {
        int key = r.kind == EventKind.MEMCPY
                ? 1 + MEMORY_KINDS + ((ordinal(r.copyKind) * MEMORY_KINDS) + ordinal(r.srcKind)) * MEMORY_KINDS + ordinal(r.dstKind)
                : 1 + ordinal(r.memoryKind);
        int id = transferIds[key] - 1;
        if (id < 0) {
            id = names.intern(transferName(r));
            transferIds[key] = id + 1;
        }
        return id;
    }

    private static int ordinal(Enum<?> kind) {
        return kind == null ? 0 : kind.ordinal() + 1;
    }

    /** torch's name for a copy or memset; a vendor without memory kinds gets the shorter form. */
    static String transferName(TraceRecord r) {
        if (r.kind == EventKind.MEMCPY) {
            String direction = r.copyKind == null ? "" : " " + r.copyKind.label();
            return r.srcKind == null || r.dstKind == null ? "Memcpy" + direction
                    : "Memcpy" + direction + " (" + r.srcKind.label() + " -> " + r.dstKind.label() + ")";
        }
        return r.memoryKind == null ? "Memset" : "Memset (" + r.memoryKind.label() + ")";
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
            long key = ((long) kind.ordinal() << 32) | (cbid & 0xffffffffL);
            long count = unknownCounts.get(key);
            if (count != 0 || unknownCounts.size() < UNKNOWN_CBIDS_KEPT) {
                unknownCounts.put(key, count + 1);
            } else {
                unknownBeyondKept++;
            }
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

    /**
     * Histogram of the callback ids the table did not name ({@code runtime:999} to count), made on
     * each call; at most {@link #UNKNOWN_CBIDS_KEPT} ids by name, the records of any others under
     * {@code other}.
     */
    public Map<String, Long> unknownCbids() {
        Map<String, Long> byName = new TreeMap<>();
        unknownCounts.forEachLong((key, count) -> byName.put(
                EventKind.ofOrdinal((int) (key >>> 32)).name().toLowerCase() + ":" + (int) key, count));
        if (unknownBeyondKept > 0) {
            byName.put(OTHER_CBIDS, unknownBeyondKept);
        }
        return byName;
    }
}
