package org.flagos.trace.vendors.cupti;

/**
 * The table of CUPTI record versions a CUPTI-shaped buffer may hold: per row, the size of each
 * record kind, so a walk can step from one record to the next. The fields flagtrace reads sit at the
 * same offsets in every version listed here (each version only appends fields), so one flyweight per
 * record kind reads them all; only the stride differs. The kind numbers are CUPTI's in every row
 * ({@link CuptiActivityKind}; the vendors that follow CUPTI keep them).
 *
 * <table>
 *   <caption>rows</caption>
 *   <tr><th>row</th><th>kernel</th><th>memcpy</th><th>memset</th><th>overhead</th><th>who writes it</th></tr>
 *   <tr><td>{@link #CUPTI_13_0}</td><td>Kernel10 (216)</td><td>Memcpy6 (96)</td><td>Memset4 (88)</td><td>56</td>
 *       <td>NVIDIA's CUPTI 13.0 (API version 130001), the layout of flagtrace's CUDA captures; PPU</td></tr>
 *   <tr><td>{@link #CUPTI_12_1}</td><td>Kernel9 (208)</td><td>Memcpy5 (88)</td><td>Memset4 (88)</td><td>unknown</td>
 *       <td>CUDA 12.1's current records (offsets measured with gcc on x86_64 against the 12.1 headers); MCPTI</td></tr>
 *   <tr><td>{@link #CUPTI_11_1}</td><td>Kernel6 (168)</td><td>Memcpy4 (80)</td><td>Memset3 (80)</td><td>unknown</td>
 *       <td>CUPTI 11.1-11.5's records, as the public headers define them; MUPTI, TOPSPTI (assumed: their headers
 *       are not public)</td></tr>
 * </table>
 * Synchronization records: {@code CUpti_ActivitySynchronization2} (56) in 13.0,
 * {@code CUpti_ActivitySynchronization} (40) before (the fields read are at the same offsets). Graph
 * ids ({@code graphNodeId} at 144 and {@code graphId} at 156 in a kernel; at 64 and 72 in a copy or
 * a set) are read in the 13.0 and 12.1 rows, whose headers are known; not in 11.1's, assumed for
 * vendors whose headers are not public.
 * The unversioned records are the same in every row: CUpti_ActivityAPI (40) and
 * CUpti_ActivityExternalCorrelation (24). A kind a row does not know ends a walk.
 *
 * <p>Kinds added since the seed are set per row after it is built ({@link #memory}): a row that
 * does not set one does not know it. MEMORY2 is {@code CUpti_ActivityMemory4} (128 bytes) in
 * CUPTI 13.0 only (gcc's offsetof against CUDA 13.0's {@code cupti_activity.h}, API version 130001);
 * so are MARKER ({@code CUpti_ActivityMarker2}, 56: {@link CuptiMarkerDecoder}) and MARKER_DATA
 * ({@code CUpti_ActivityMarkerData2}, 40: {@link CuptiMarkerDataDecoder}, read and counted) and
 * UNIFIED_MEMORY_COUNTER ({@code CUpti_ActivityUnifiedMemoryCounter3}, 104: {@link CuptiUnifiedMemoryDecoder}).
 * MEMCPY2 ({@code CUpti_ActivityMemcpyPtoP4}, 96: {@link CuptiPeerCopyDecoder}).
 */
public final class CuptiRecordLayout {
    /** CUPTI 13.0 (API version 130001). */
    public static final CuptiRecordLayout CUPTI_13_0 = new CuptiRecordLayout("CUPTI 13.0 (API version 130001)",
            "CUpti_ActivityKernel10", 216, "CUpti_ActivityMemcpy6", 96, "CUpti_ActivityMemset4", 88, 56)
            .with("CUpti_ActivitySynchronization2", 56, true)
            .memory("CUpti_ActivityMemory4", 128)
            .markers(56, 40)
            .unifiedMemory(104)
            .peerCopy("CUpti_ActivityMemcpyPtoP4", 96);
    /** CUPTI 12.1 (API version 18); Overhead's size is not known to it, so an OVERHEAD record ends a walk. */
    public static final CuptiRecordLayout CUPTI_12_1 = new CuptiRecordLayout("CUPTI 12.1 (API version 18)",
            "CUpti_ActivityKernel9", 208, "CUpti_ActivityMemcpy5", 88, "CUpti_ActivityMemset4", 88, -1)
            .with("CUpti_ActivitySynchronization", 40, true);
    /** CUPTI 11.1's Kernel6, Memcpy4 and Memset3; no Overhead. */
    public static final CuptiRecordLayout CUPTI_11_1 = new CuptiRecordLayout("CUPTI 11.1 (Kernel6, Memcpy4, Memset3)",
            "Kernel6 record", 168, "Memcpy4 record", 80, "Memset3 record", 80, -1)
            .with("Synchronization record", 40, false);

    private final String description;
    final String kernelRecord;
    final int kernelSize;
    final String memcpyRecord;
    final int memcpySize;
    final String memsetRecord;
    final int memsetSize;
    private final int overheadSize;
    /** The synchronization record's name and size (-1: unknown, a SYNCHRONIZATION record ends a walk). */
    String syncRecord = "synchronization record";
    int syncSize = -1;
    /** True when the kernel, memcpy and memset records carry graphNodeId and graphId where CUPTI 12-13 put them. */
    boolean graphIds;
    String memoryRecord = "memory record";
    int memorySize = -1;
    private int markerSize = -1;
    private int markerDataSize = -1;
    private int unifiedMemorySize = -1;
    String peerCopyRecord = "peer copy record";
    int peerCopySize = -1;

    private CuptiRecordLayout(String description, String kernelRecord, int kernelSize, String memcpyRecord,
                              int memcpySize, String memsetRecord, int memsetSize, int overheadSize) {
        this.description = description;
        this.kernelRecord = kernelRecord;
        this.kernelSize = kernelSize;
        this.memcpyRecord = memcpyRecord;
        this.memcpySize = memcpySize;
        this.memsetRecord = memsetRecord;
        this.memsetSize = memsetSize;
        this.overheadSize = overheadSize;
    }

    /** This row with its synchronization record and whether its device records carry graph ids. */
    private CuptiRecordLayout with(String syncRecord, int syncSize, boolean graphIds) {
        this.syncRecord = syncRecord;
        this.syncSize = syncSize;
        this.graphIds = graphIds;
        return this;
    }

    /** Sets this row's MEMORY2 record: its name in problems and its size. */
    private CuptiRecordLayout memory(String record, int size) {
        this.memoryRecord = record;
        this.memorySize = size;
        return this;
    }

    /**
     * Sets this row's NVTX record sizes ({@code CUpti_ActivityMarker2}, {@code CUpti_ActivityMarkerData2}).
     */
    private CuptiRecordLayout markers(int marker, int markerData) {
        this.markerSize = marker;
        this.markerDataSize = markerData;
        return this;
    }

    /** Sets this row's {@code CUpti_ActivityUnifiedMemoryCounter3} size. */
    private CuptiRecordLayout unifiedMemory(int size) {
        this.unifiedMemorySize = size;
        return this;
    }

    /** Sets this row's MEMCPY2 record (a copy between two devices): its name in problems and its size. */
    private CuptiRecordLayout peerCopy(String record, int size) {
        this.peerCopyRecord = record;
        this.peerCopySize = size;
        return this;
    }

    /** Record size in bytes for CUPTI activity kind {@code kind}, or -1 when this layout does not know it. */
    public int recordSize(int kind) {
        switch (kind) {
            case CuptiActivityKind.MEMCPY: return memcpySize;
            case CuptiActivityKind.MEMSET: return memsetSize;
            case CuptiActivityKind.KERNEL:
            case CuptiActivityKind.CONCURRENT_KERNEL: return kernelSize;
            case CuptiActivityKind.DRIVER:
            case CuptiActivityKind.RUNTIME: return CuptiApiDecoder.SIZE;
            case CuptiActivityKind.OVERHEAD: return overheadSize;
            case CuptiActivityKind.EXTERNAL_CORRELATION: return CuptiExternalCorrelationDecoder.SIZE;
            case CuptiActivityKind.SYNCHRONIZATION: return syncSize;
            case CuptiActivityKind.MEMORY2: return memorySize;
            case CuptiActivityKind.MARKER: return markerSize;
            case CuptiActivityKind.MARKER_DATA: return markerDataSize;
            case CuptiActivityKind.UNIFIED_MEMORY_COUNTER: return unifiedMemorySize;
            case CuptiActivityKind.MEMCPY2: return peerCopySize;
            default: return -1;
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
