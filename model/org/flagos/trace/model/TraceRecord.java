package org.flagos.trace.model;

import java.util.Arrays;

/**
 * One ring slot: a vendor-neutral record, preallocated once and overwritten for every record that
 * passes through the ring. Producers fill it through static translators; stages read and annotate
 * it in chain order. Fields are public for allocation-free access on the hot path; only the
 * producer translator and the stage that owns an annotation write them.
 *
 * <p>The two id schemes live in separate fields with separate accessors: {@link #correlation()} (the
 * vendor's, for flow arrows) and {@link #externalId()} (the host op's, for time attribution).
 */
public final class TraceRecord {
    public RecordType type;
    public EventKind kind;
    /** UNIX-epoch nanoseconds. */
    public long startNs;
    public long endNs;
    /** Vendor correlation id, 64 bits as the vendor gave them (unsigned); meaningful only when present. Never an External id. */
    private long correlation;
    private boolean hasCorrelation;
    private long externalId;
    private boolean hasExternalId;
    /** The External id is an annotation range's (set by the stage that pairs ranges), not a host op's binding. */
    private boolean externalIdOfRange;
    /** Which {@link RecordField}s the vendor reported; the writer leaves the others out. */
    private int fields;

    public int device;
    public int context;
    public int stream;
    public int processId;
    /** Host thread id as the vendor reports it (API calls) or as the host op recorded it. */
    public long threadId;
    /** Index into the capture's {@link NameTable}: kernel, API or op name; -1 until resolved. */
    public int nameId;
    /** Index into the {@link NameTable} of a host op's thread name ({@code main}); -1 when unknown. */
    public int threadNameId = -1;
    /** A host op's name as the program gave it, interned by the name stage. */
    public String opName;
    /** A host op's thread name as the program gave it, or null; interned by the name stage. */
    public String opThreadName;
    /** A host op's args ({@code Input Dims}, ...), or null: immutable, shared, never copied. */
    public OpArgs opArgs;
    /** The call stack that opened a host op, or null. */
    public OpStack opStack;
    /** A host op that is a user annotation (torch's {@code user_annotation}, not a {@code cpu_op}). */
    public boolean opAnnotation;
    /** Vendor callback id of an API call. */
    public int cbid;

    // Kernel
    public int gridX, gridY, gridZ, blockX, blockY, blockZ;
    public int registersPerThread;
    public int staticSharedMemory;
    public int dynamicSharedMemory;
    public long queued;
    /**
     * Vendor handle of the record's name (a kernel's name pointer in the capturing process; an API
     * record's name pointer for vendors whose records carry one), resolved by the name stage.
     */
    public long nameHandle;
    /** How the vendor that published this record resolves its handles; null for records that need none. */
    public RecordNaming naming;
    public float blocksPerSm = Float.NaN;
    public float warpsPerSm = Float.NaN;
    /** Value of {@link #occupancyPercent} when no device properties were available to compute it. */
    public static final int NO_OCCUPANCY = Integer.MIN_VALUE;
    /** Estimated achieved occupancy in percent as kineto writes it, or {@link #NO_OCCUPANCY}. */
    public int occupancyPercent = NO_OCCUPANCY;

    // Memcpy / memset
    public long bytes;
    public CopyKind copyKind;
    public MemoryKind srcKind;
    public MemoryKind dstKind;
    public MemoryKind memoryKind;
    public int memsetValue;
    // Peer copy (RecordField.PEER): the devices and contexts copied from and to; device, context: where it ran
    public int srcDevice, srcContext, dstDevice, dstContext;

    // Graph launches, synchronization, vendor overhead
    /** The graph a device record was launched from, when {@link RecordField#GRAPH} is present. */
    public long graphId;
    /** The graph node a device record ran, when {@link RecordField#GRAPH} is present. */
    public long graphNodeId;
    /** What a {@link EventKind#SYNC} record waited for. */
    public SyncKind syncKind;
    /** The vendor's id of the event a {@link EventKind#SYNC} record concerns (when {@link SyncKind#onEvent}). */
    public long syncEventId;
    /** A record's name as the vendor's decoder gave it (a constant string, interned by the name stage), or null. */
    public String label;
    // Device memory (allocation or release): bytes, memoryKind, device, stream as above
    /** The address allocated or released. */
    public long address;
    /** True for a release, false for an allocation. */
    public boolean memoryRelease;
    // Unified memory: address, bytes (a transfer's, a thrashing or remote map's region), processId as above
    /** What a {@link EventKind#UNIFIED_MEMORY} record counts. */
    public UnifiedMemoryCounter umCounter;
    /** Its raw value: bytes, fault groups, or a CPU fault's instruction address. */
    public long umValue;
    /** The source and destination processor ids the vendor gives (meaning per counter). */
    public int umSrcId, umDstId;
    /** Its flags in words: a migration's cause or a fault's access type; null when it has none. */
    public String umFlag;
    // Annotation marker (EventKind.MARKER): threadId, processId; the name as nameHandle with naming
    /** Which point of an annotation this is. */
    public MarkerPhase markerPhase;
    /** The vendor's id of the annotation: a range's start and end share it. */
    public long markerId;
    /** The vendor's handle of the annotation's domain name (0: the default domain), resolved like {@link #nameHandle}. */
    public long domainHandle;
    /** The domain's name in the capture's name table, or -1 (the default domain). */
    public int domainNameId = -1;

    /** Set by the window filter: downstream stages skip the record. */
    public boolean outsideWindow;
    /**
     * Set by a stage that holds the record back (the join until its binding arrives, a vendor stage
     * until what it needs has arrived): every later stage skips the slot's own record, and the
     * holding stage hands a copy on later with {@link #release} on another slot. A parked slot still
     * counts as a record arriving (the clock of every horizon), and keeps its type.
     */
    public boolean parked;
    /**
     * The correlation is kept only to find the External id: the join clears it once it has joined
     * (or given up on) the record, so the record starts no flow arrow.
     */
    private boolean correlationForJoinOnly;

    private TraceRecord[] released = new TraceRecord[4];
    private int releasedCount;

    /** Marks {@code field} as reported by the vendor. */
    public void present(RecordField field) {
        fields |= field.bit();
    }

    /** Marks every field of {@code mask} (bits of {@link RecordField}) as reported. */
    public void presentAll(int mask) {
        fields |= mask;
    }

    /** True when the vendor reported {@code field}. */
    public boolean has(RecordField field) {
        return (fields & field.bit()) != 0;
    }

    /** The host op's id, valid only when {@link #hasExternalId()}. 0 is a valid id. */
    /** The vendor correlation id's 64 bits (compare and print unsigned); only when {@link #hasCorrelation()}. */
    public long correlation() {
        return correlation;
    }

    public boolean hasCorrelation() {
        return hasCorrelation;
    }

    /** Sets the vendor correlation id (any 64 bits). */
    public void correlation(long id) {
        correlation = id;
        hasCorrelation = true;
    }

    public void clearCorrelation() {
        correlation = 0;
        hasCorrelation = false;
    }

    public long externalId() {
        return externalId;
    }

    public boolean hasExternalId() {
        return hasExternalId;
    }

    /** Sets a host op's External id (the join's binding, or a host op's own). */
    public void externalId(long id) {
        this.externalId = id;
        this.hasExternalId = true;
        this.externalIdOfRange = false;
    }

    public void clearExternalId() {
        this.externalId = 0;
        this.hasExternalId = false;
        this.externalIdOfRange = false;
    }

    /**
     * Sets the External id of the annotation range this record belongs to: a range's closing marker,
     * or a record outside every host op whose call a range enclosed. Only the stage that pairs ranges
     * sets it; the walk tells it from an op's id with {@link #externalIdOfRange()}.
     */
    public void rangeExternalId(long id) {
        this.externalId = id;
        this.hasExternalId = true;
        this.externalIdOfRange = true;
    }

    /** True when {@link #externalId()} is an annotation range's ({@link #rangeExternalId}), not a host op's. */
    public boolean externalIdOfRange() {
        return externalIdOfRange;
    }

    /**
     * Makes this slot an {@link RecordType#ACTIVITY} record of {@code kind} over {@code [startNs, endNs]}
     * (epoch ns) with vendor correlation id {@code correlation}: what every vendor's activity record
     * publishes first; its translator adds the fields of its kind (device, stream, names, sizes).
     */
    public void activity(EventKind kind, long startNs, long endNs, long correlation) {
        clear();
        type = RecordType.ACTIVITY;
        this.kind = kind;
        this.startNs = startNs;
        this.endNs = endNs;
        correlation(correlation);
    }

    /**
     * Makes this slot a {@link RecordType#CORRELATION_BINDING}: vendor correlation id {@code correlation}
     * (any 64 bits) belongs to the host op of External id {@code externalId}. The one way every vendor's
     * binding record (CUPTI's and MSPTI's external correlation, ROCtracer's EXTERN_ID, a tracer's own
     * bindings taken at API enter) is written.
     */
    public void binding(long correlation, long externalId) {
        clear();
        type = RecordType.CORRELATION_BINDING;
        correlation(correlation);
        externalId(externalId);
    }

    public long durationNs() {
        return endNs - startNs;
    }

    /** Marks the correlation as the join's only: see {@link #correlationForJoinOnly()}. */
    public void correlationForJoinOnly(boolean joinOnly) {
        correlationForJoinOnly = joinOnly;
    }

    /** True when the join must clear the correlation after joining: the record starts no arrow. */
    public boolean correlationForJoinOnly() {
        return correlationForJoinOnly;
    }

    /** Number of earlier, parked records this slot releases downstream (set by the stages that park). */
    public int releasedCount() {
        return releasedCount;
    }

    public TraceRecord released(int i) {
        return released[i];
    }

    /**
     * Attaches a record held back earlier: every later stage processes it together with this slot,
     * after the slot's own record, in the order attached. A stage after the one that released it sees
     * it as arriving now (the join joins it).
     */
    public void release(TraceRecord record) {
        if (releasedCount == released.length) {
            released = Arrays.copyOf(released, releasedCount * 2);
        }
        released[releasedCount++] = record;
    }

    /** Detaches released record {@code i} (a later stage holds it back again); the ones after it move up. */
    public void withdrawRelease(int i) {
        System.arraycopy(released, i + 1, released, i, releasedCount - i - 1);
        released[--releasedCount] = null;
    }

    /** Resets every field; called by producers before filling the slot. */
    public void clear() {
        type = null;
        kind = null;
        startNs = endNs = 0;
        correlation = 0;
        hasCorrelation = false;
        externalId = 0;
        hasExternalId = false;
        externalIdOfRange = false;
        fields = 0;
        device = context = stream = processId = 0;
        threadId = 0;
        nameId = -1;
        threadNameId = -1;
        opName = null;
        opThreadName = null;
        opArgs = null;
        opStack = null;
        opAnnotation = false;
        cbid = 0;
        gridX = gridY = gridZ = blockX = blockY = blockZ = 0;
        registersPerThread = staticSharedMemory = dynamicSharedMemory = 0;
        queued = 0;
        nameHandle = 0;
        naming = null;
        blocksPerSm = warpsPerSm = Float.NaN;
        occupancyPercent = NO_OCCUPANCY;
        bytes = 0;
        copyKind = null;
        srcKind = dstKind = memoryKind = null;
        memsetValue = 0;
        srcDevice = srcContext = dstDevice = dstContext = 0;
        graphId = graphNodeId = syncEventId = 0;
        syncKind = null;
        label = null;
        address = 0;
        memoryRelease = false;
        umCounter = null;
        umValue = 0;
        umSrcId = umDstId = 0;
        umFlag = null;
        markerPhase = null;
        markerId = 0;
        domainHandle = 0;
        domainNameId = -1;
        outsideWindow = false;
        parked = false;
        correlationForJoinOnly = false;
        for (int i = 0; i < releasedCount; i++) {
            released[i] = null;
        }
        releasedCount = 0;
    }

    /** Copies every record field (not the release list, not {@link #parked}) from {@code other}; used to park a record. */
    public void copyFrom(TraceRecord other) {
        type = other.type;
        kind = other.kind;
        startNs = other.startNs;
        endNs = other.endNs;
        correlation = other.correlation;
        hasCorrelation = other.hasCorrelation;
        externalId = other.externalId;
        hasExternalId = other.hasExternalId;
        externalIdOfRange = other.externalIdOfRange;
        fields = other.fields;
        device = other.device;
        context = other.context;
        stream = other.stream;
        processId = other.processId;
        threadId = other.threadId;
        nameId = other.nameId;
        threadNameId = other.threadNameId;
        opName = other.opName;
        opThreadName = other.opThreadName;
        opArgs = other.opArgs;
        opStack = other.opStack;
        opAnnotation = other.opAnnotation;
        cbid = other.cbid;
        gridX = other.gridX;
        gridY = other.gridY;
        gridZ = other.gridZ;
        blockX = other.blockX;
        blockY = other.blockY;
        blockZ = other.blockZ;
        registersPerThread = other.registersPerThread;
        staticSharedMemory = other.staticSharedMemory;
        dynamicSharedMemory = other.dynamicSharedMemory;
        queued = other.queued;
        nameHandle = other.nameHandle;
        naming = other.naming;
        blocksPerSm = other.blocksPerSm;
        warpsPerSm = other.warpsPerSm;
        occupancyPercent = other.occupancyPercent;
        bytes = other.bytes;
        copyKind = other.copyKind;
        srcKind = other.srcKind;
        dstKind = other.dstKind;
        memoryKind = other.memoryKind;
        memsetValue = other.memsetValue;
        srcDevice = other.srcDevice;
        srcContext = other.srcContext;
        dstDevice = other.dstDevice;
        dstContext = other.dstContext;
        graphId = other.graphId;
        graphNodeId = other.graphNodeId;
        syncKind = other.syncKind;
        syncEventId = other.syncEventId;
        label = other.label;
        address = other.address;
        memoryRelease = other.memoryRelease;
        umCounter = other.umCounter;
        umValue = other.umValue;
        umSrcId = other.umSrcId;
        umDstId = other.umDstId;
        umFlag = other.umFlag;
        markerPhase = other.markerPhase;
        markerId = other.markerId;
        domainHandle = other.domainHandle;
        domainNameId = other.domainNameId;
        outsideWindow = other.outsideWindow;
        correlationForJoinOnly = other.correlationForJoinOnly;
        parked = false;
    }

    @Override
    public String toString() {
        return type + "/" + kind + " corr=" + correlation + (hasExternalId ? " ext=" + externalId : " ext=-")
                + " [" + startNs + "," + endNs + "] name#" + nameId;
    }
}
