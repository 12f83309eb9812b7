package org.flagos.trace.vendors.roctracer;

/**
 * ROCtracer's {@code activity_record_t} ({@code inc/ext/prof_protocol.h}): 64 bytes with the same
 * offsets in every public release on LP64 (roc-2.x through rocm-6.2), walked at a fixed stride, and
 * the enum values the decoder reads. The third union is {@code size_t bytes} up to rocm-5.2 and
 * {@code bytes | kernel_name | mark_message} since rocm-5.3.
 */
final class RoctracerRecord {
    static final int SIZE = 64;

    static final int DOMAIN = 0;
    static final int KIND = 4;
    static final int OP = 8;
    static final int CORRELATION_ID = 16;
    static final int BEGIN_NS = 24;
    static final int END_NS = 32;
    /** {@code int device_id} (HIP_OPS) | {@code uint32 process_id} (API) | {@code uint64 external_id} (EXT_API). */
    static final int DEVICE_ID = 40;
    static final int PROCESS_ID = 40;
    static final int EXTERNAL_ID = 40;
    static final int THREAD_ID = 44;
    static final int QUEUE_ID = 48;
    /** {@code size_t bytes} | {@code const char* kernel_name}. */
    static final int BYTES = 56;
    static final int KERNEL_NAME = 56;

    // activity_domain_t
    static final int DOMAIN_HSA_API = 0;
    static final int DOMAIN_HIP_OPS = 2;
    static final int DOMAIN_HIP_API = 3;
    static final int DOMAIN_EXT_API = 5;
    /** ACTIVITY_DOMAIN_NUMBER: a domain at or above it is not a ROCtracer record. */
    static final int DOMAIN_NUMBER = 8;

    // hip_op_id_t
    static final int OP_DISPATCH = 0;
    static final int OP_COPY = 1;
    static final int OP_BARRIER = 2;

    // activity_ext_op_t
    static final int EXT_OP_EXTERN_ID = 1;

    // The cl_command_type a HIP_OPS record carries in kind (clr rocclr/platform/activity.cpp).
    static final int CMD_READ_BUFFER = 0x11F3;
    static final int CMD_WRITE_BUFFER = 0x11F4;
    static final int CMD_COPY_BUFFER = 0x11F5;
    static final int CMD_READ_BUFFER_RECT = 0x1201;
    static final int CMD_WRITE_BUFFER_RECT = 0x1202;
    static final int CMD_COPY_BUFFER_RECT = 0x1203;
    static final int CMD_FILL_BUFFER = 0x1207;
    static final int CMD_FILL_IMAGE = 0x1208;

    /**
     * The key a record the decoder does not publish is counted under in
     * {@code DecodeStats.skippedByVendorKind}: {@code domain * 1000 + op} (2002 is a HIP_OPS barrier).
     */
    static int skipKey(int domain, int op) {
        return domain * 1000 + Math.floorMod(op, 1000);
    }

    private RoctracerRecord() {
    }
}
