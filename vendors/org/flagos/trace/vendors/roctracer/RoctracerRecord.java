package org.flagos.trace.vendors.roctracer;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.activity.RecordBounds;

/**
 * ROCtracer's {@code activity_record_t} ({@code inc/ext/prof_protocol.h}): 64 bytes with the same
 * offsets in every public release on LP64 (roc-2.x through rocm-6.2), walked at a fixed stride, and
 * the enum values the decoder reads. The third union is {@code size_t bytes} up to rocm-5.2 and
 * {@code bytes | kernel_name | mark_message} since rocm-5.3.
 *
 * <p>An instance is the one flyweight over such a record, read in place (little-endian): every domain
 * shares the struct, so one view serves the three the decoder publishes, each with its translator:
 * <ul>
 *   <li>{@link #API}: a HIP_API record, one HIP call on a host thread. Its op is the {@code
 *       hip_api_id_t}: the callback id the name stage resolves through {@code roctracer_op_string}, so
 *       it travels as the record's cbid.</li>
 *   <li>{@link #OPS}: a HIP_OPS record, device work the HIP runtime reported. A dispatch is a kernel; a
 *       copy op is a memcpy, or a memset when its command is a fill (the HIP runtime files hipMemset
 *       under the COPY op as CL_COMMAND_FILL_BUFFER). The record has no grid, block, registers, shared
 *       memory, context or queued time: those fields stay unmarked. It has the byte count of copies
 *       and fills, and the queue the work ran on (the trace's stream).</li>
 *   <li>{@link #EXTERN}: an EXT_API {@code EXTERN_ID} record: roctracer writes one directly before
 *       each API record of a thread that has pushed an id, binding that call's correlation id to the
 *       top of the thread's stack (the host op's External id). The only bridge between the two id
 *       schemes.</li>
 * </ul>
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

    static final EventTranslatorOneArg<TraceRecord, RoctracerRecord> API = (slot, sequence, api) -> {
        slot.activity(EventKind.RUNTIME, api.startNs, api.endNs, api.correlationId());
        slot.cbid = api.op();
        slot.present(RecordField.CBID);
        slot.processId = api.processId();
        slot.threadId = api.threadId();
    };

    static final EventTranslatorOneArg<TraceRecord, RoctracerRecord> OPS = (slot, sequence, ops) -> {
        slot.activity(ops.eventKind(), ops.startNs, ops.endNs, ops.correlationId());
        slot.device = ops.deviceId();
        slot.stream = (int) ops.queueId();
        if (slot.kind == EventKind.KERNEL) {
            slot.nameHandle = ops.kernelName();
            slot.naming = ops.naming;
        } else {
            slot.bytes = ops.bytes();
            slot.present(RecordField.BYTES);
            if (slot.kind == EventKind.MEMCPY) {
                slot.copyKind = ops.copyKind();
            }
        }
    };

    static final EventTranslatorOneArg<TraceRecord, RoctracerRecord> EXTERN =
            (slot, sequence, ext) -> slot.binding(ext.correlationId(), ext.externalId());

    private ByteBuffer buffer;
    private int offset;
    /** Epoch ns, set by the decoder after mapping the vendor clock. */
    long startNs;
    long endNs;
    /** How the name stage resolves a dispatch's kernel-name handle. */
    private final RecordNaming naming;

    RoctracerRecord(RecordNaming naming) {
        this.naming = naming;
    }

    RoctracerRecord wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, "activity_record_t");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    int domain() {
        return buffer.getInt(offset + DOMAIN);
    }

    int op() {
        return buffer.getInt(offset + OP);
    }

    /** The cl_command_type the HIP runtime reported (HIP_OPS). */
    int command() {
        return buffer.getInt(offset + KIND);
    }

    long correlationId() {
        return buffer.getLong(offset + CORRELATION_ID);
    }

    long begin() {
        return buffer.getLong(offset + BEGIN_NS);
    }

    long end() {
        return buffer.getLong(offset + END_NS);
    }

    /** The driver (KFD) node id of the device, as the HIP runtime reports it (HIP_OPS). */
    int deviceId() {
        return buffer.getInt(offset + DEVICE_ID);
    }

    /** The calling process (HIP_API). */
    int processId() {
        return buffer.getInt(offset + PROCESS_ID);
    }

    /** gettid() of the calling thread, an unsigned 32-bit value (HIP_API). */
    long threadId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + THREAD_ID));
    }

    /** The pushed id (EXT_API), an unsigned 64-bit value: negative here when above 2^63. */
    long externalId() {
        return buffer.getLong(offset + EXTERNAL_ID);
    }

    long queueId() {
        return buffer.getLong(offset + QUEUE_ID);
    }

    long bytes() {
        return buffer.getLong(offset + BYTES);
    }

    long kernelName() {
        return buffer.getLong(offset + KERNEL_NAME);
    }

    boolean isFill() {
        int command = command();
        return command == CMD_FILL_BUFFER || command == CMD_FILL_IMAGE;
    }

    EventKind eventKind() {
        return op() == OP_DISPATCH ? EventKind.KERNEL : isFill() ? EventKind.MEMSET : EventKind.MEMCPY;
    }

    CopyKind copyKind() {
        switch (command()) {
            case CMD_READ_BUFFER:
            case CMD_READ_BUFFER_RECT:
                return CopyKind.DTOH;
            case CMD_WRITE_BUFFER:
            case CMD_WRITE_BUFFER_RECT:
                return CopyKind.HTOD;
            case CMD_COPY_BUFFER:
            case CMD_COPY_BUFFER_RECT:
                return CopyKind.DTOD;
            default:
                return CopyKind.UNKNOWN; // images and buffer<->image copies
        }
    }
}
