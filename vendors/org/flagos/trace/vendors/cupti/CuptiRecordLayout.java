package org.flagos.trace.vendors.cupti;

/**
 * Which versions of CUPTI's versioned activity records a buffer holds: the size of each record
 * kind, so a walk can step from one record to the next. The fields flagtrace reads sit at the same
 * offsets in every version listed here (each version only appends fields), so one set of flyweights
 * reads them all; only the stride differs.
 *
 * <ul>
 *   <li>{@link #CUPTI_13_0}: CUpti_ActivityKernel10 (216 bytes), Memcpy6 (96), Memset4 (88): what
 *       NVIDIA's CUPTI 13.0 writes (API version 130001), the layout of flagtrace's CUDA captures.</li>
 *   <li>{@link #CUPTI_12_1}: CUpti_ActivityKernel9 (208), Memcpy5 (88), Memset4 (88): CUDA 12.1's
 *       current records (offsets measured with gcc on x86_64 against the 12.1 headers).</li>
 * </ul>
 * The unversioned records are the same in both: CUpti_ActivityAPI (40) and
 * CUpti_ActivityExternalCorrelation (24).
 */
public final class CuptiRecordLayout {
    /** CUPTI 13.0 (API version 130001). */
    public static final CuptiRecordLayout CUPTI_13_0 = new CuptiRecordLayout("CUPTI 13.0 (API version 130001)",
            "CUpti_ActivityKernel10", 216, "CUpti_ActivityMemcpy6", 96, 56);
    /** CUPTI 12.1 (API version 18); Overhead's size is not known to it, so an OVERHEAD record ends a walk. */
    public static final CuptiRecordLayout CUPTI_12_1 = new CuptiRecordLayout("CUPTI 12.1 (API version 18)",
            "CUpti_ActivityKernel9", 208, "CUpti_ActivityMemcpy5", 88, -1);

    private final String description;
    final String kernelRecord;
    final int kernelSize;
    final String memcpyRecord;
    final int memcpySize;
    private final int overheadSize;

    private CuptiRecordLayout(String description, String kernelRecord, int kernelSize, String memcpyRecord,
                              int memcpySize, int overheadSize) {
        this.description = description;
        this.kernelRecord = kernelRecord;
        this.kernelSize = kernelSize;
        this.memcpyRecord = memcpyRecord;
        this.memcpySize = memcpySize;
        this.overheadSize = overheadSize;
    }

    /** Record size in bytes for CUPTI activity kind {@code kind}, or -1 when this layout does not know it. */
    public int recordSize(int kind) {
        switch (kind) {
            case CuptiActivityKind.MEMCPY: return memcpySize;
            case CuptiActivityKind.MEMSET: return CuptiMemset4Decoder.SIZE;
            case CuptiActivityKind.KERNEL:
            case CuptiActivityKind.CONCURRENT_KERNEL: return kernelSize;
            case CuptiActivityKind.DRIVER:
            case CuptiActivityKind.RUNTIME: return CuptiApiDecoder.SIZE;
            case CuptiActivityKind.OVERHEAD: return overheadSize; // skipped, see docs/vendors/cupti.md
            case CuptiActivityKind.EXTERNAL_CORRELATION: return CuptiExternalCorrelationDecoder.SIZE;
            default: return -1;
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
