package org.flagos.trace.vendors.mspti;

import org.flagos.trace.vendors.cupti.CuptiExternalCorrelationDecoder;

/**
 * {@code msptiActivityKind} values and the size each kind's record occupies in a buffer, from the
 * public header {@code csrc/include/mspti_activity.h} of github.com/Ascend/mspti (commit
 * a38916051d9a10467591f05c564f2f80985ee292). MSPTI writes records back to back, each exactly
 * {@code sizeof} its struct; the structs are packed with 8-byte overall alignment, so each size is
 * rounded up to a multiple of 8.
 */
final class MsptiActivityKind {
    static final int MARKER = 1;
    static final int KERNEL = 2;
    static final int API = 3;
    static final int HCCL = 4;
    static final int MEMORY = 5;
    static final int MEMSET = 6;
    static final int MEMCPY = 7;
    static final int EXTERNAL_CORRELATION = 8;
    static final int COMMUNICATION = 9;
    static final int ACL_API = 10;
    static final int NODE_API = 11;
    static final int RUNTIME_API = 12;

    /** {@code MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0}: the kind flagtrace pushes op ids as. */
    static final int EXTERNAL_KIND_CUSTOM0 = 2;

    /** The bytes a record of {@code kind} occupies, or -1 for a kind the header does not define. */
    static int recordSize(int kind) {
        switch (kind) {
            case MARKER:
            case KERNEL:
            case HCCL:
            case MEMSET:
            case MEMCPY:
                return 56;
            case API:
            case ACL_API:
            case NODE_API:
            case RUNTIME_API:
                return MsptiApiRecord.SIZE;
            case MEMORY:
                return 64;
            case EXTERNAL_CORRELATION:
                return CuptiExternalCorrelationDecoder.SIZE; // msptiActivityExternalCorrelation: CUPTI's 24 bytes
            case COMMUNICATION:
                return 72;
            default:
                return -1;
        }
    }

    private MsptiActivityKind() {
    }
}
