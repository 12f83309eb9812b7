package org.flagos.trace.vendors.cupti;

/**
 * CUPTI's activity kinds ({@code CUpti_ActivityKind}), external-correlation kind and callback
 * domains, and the CUPTI 13.0 record sizes this decoder knows (CUPTI API version 130001). Records in
 * a buffer are packed back to back at these sizes (all multiples of 8), so a kind whose size is
 * unknown ends the walk of its buffer. The CUPTI-shaped vendors whose headers are not public (MCPTI,
 * MUPTI, TOPSPTI) and PPU's CUPTI-compatible library are assumed to use these same numbers: they
 * name them here rather than restating them.
 */
public final class CuptiActivityKind {
    /** {@code CUPTI_ACTIVITY_KIND_MEMCPY}. */
    public static final int MEMCPY = 1;
    /** {@code CUPTI_ACTIVITY_KIND_MEMSET}. */
    public static final int MEMSET = 2;
    /** {@code CUPTI_ACTIVITY_KIND_KERNEL} (serialized kernels). */
    public static final int KERNEL = 3;
    /** {@code CUPTI_ACTIVITY_KIND_DRIVER}. */
    public static final int DRIVER = 4;
    /** {@code CUPTI_ACTIVITY_KIND_RUNTIME}. */
    public static final int RUNTIME = 5;
    /** {@code CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL}. */
    public static final int CONCURRENT_KERNEL = 10;
    /**
     * {@code CUPTI_ACTIVITY_KIND_MEMCPY2}: a peer-to-peer copy between two devices
     * ({@code CUpti_ActivityMemcpyPtoP4}).
     */
    public static final int MEMCPY2 = 22;
    /** {@code CUPTI_ACTIVITY_KIND_OVERHEAD}: CUPTI's own time. */
    public static final int OVERHEAD = 17;
    /** {@code CUPTI_ACTIVITY_KIND_SYNCHRONIZATION}: stream, event and context synchronizations. */
    public static final int SYNCHRONIZATION = 38;
    /** {@code CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER}: migrations and page faults of managed memory. */
    public static final int UNIFIED_MEMORY_COUNTER = 25;
    /** {@code CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION}. */
    public static final int EXTERNAL_CORRELATION = 39;
    /** {@code CUPTI_ACTIVITY_KIND_MARKER}: NVTX marks and range ends ({@code CUpti_ActivityMarker2}). */
    public static final int MARKER = 12;
    /** {@code CUPTI_ACTIVITY_KIND_MARKER_DATA}: NVTX payloads and colours ({@code CUpti_ActivityMarkerData2}). */
    public static final int MARKER_DATA = 13;
    /** {@code CUPTI_ACTIVITY_KIND_MEMORY2}: one record per device-memory allocation or release. */
    public static final int MEMORY2 = 49;
    /** {@code CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0}, the external kind op ids are pushed as. */
    public static final int EXTERNAL_CUSTOM0 = 3;
    /** {@code CUPTI_CB_DOMAIN_DRIVER_API}. */
    public static final int DOMAIN_DRIVER_API = 1;
    /** {@code CUPTI_CB_DOMAIN_RUNTIME_API}. */
    public static final int DOMAIN_RUNTIME_API = 2;

    static final int API_VERSION = 130001;

    /** Record size in bytes for {@code kind} in CUPTI 13.0's layout, or -1 when it does not know it. */
    static int recordSize(int kind) {
        return CuptiRecordLayout.CUPTI_13_0.recordSize(kind);
    }

    private CuptiActivityKind() {
    }
}
