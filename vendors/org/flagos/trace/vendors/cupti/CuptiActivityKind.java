package org.flagos.trace.vendors.cupti;

/**
 * CUPTI 13.0 activity kinds this decoder knows the record size of (CUPTI API version 130001).
 * Records in a buffer are packed back to back at these sizes (all multiples of 8), so a kind whose
 * size is unknown ends the walk of its buffer.
 */
final class CuptiActivityKind {
    static final int MEMCPY = 1;
    static final int MEMSET = 2;
    static final int KERNEL = 3;
    static final int DRIVER = 4;
    static final int RUNTIME = 5;
    static final int CONCURRENT_KERNEL = 10;
    static final int OVERHEAD = 17;
    static final int EXTERNAL_CORRELATION = 39;

    static final int API_VERSION = 130001;

    /** Record size in bytes for {@code kind} in CUPTI 13.0's layout, or -1 when it does not know it. */
    static int recordSize(int kind) {
        return CuptiRecordLayout.CUPTI_13_0.recordSize(kind);
    }

    private CuptiActivityKind() {
    }
}
