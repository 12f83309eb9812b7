package org.flagos.trace.vendors.roctracer;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over a HIP_OPS {@code activity_record_t} (device work the HIP runtime reported), read in
 * place. A dispatch is a kernel; a copy op is a memcpy, or a memset when its command is a fill (the
 * HIP runtime files hipMemset under the COPY op as CL_COMMAND_FILL_BUFFER). The record has no grid,
 * block, registers, shared memory, context or queued time: those fields stay unmarked. It has the
 * byte count of copies and fills, and the queue the work ran on (the trace's stream).
 */
final class RoctracerOpsRecord {
    static final EventTranslatorOneArg<TraceRecord, RoctracerOpsRecord> TRANSLATOR = (slot, sequence, ops) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = ops.eventKind();
        slot.startNs = ops.startNs;
        slot.endNs = ops.endNs;
        slot.device = ops.deviceId();
        slot.stream = (int) ops.queueId();
        slot.correlation(ops.correlationId());
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

    private ByteBuffer buffer;
    private int offset;
    /** Epoch ns, set by the decoder after mapping the vendor clock. */
    long startNs;
    long endNs;
    /** How the name stage resolves the kernel-name handle. */
    private final RecordNaming naming;

    RoctracerOpsRecord(RecordNaming naming) {
        this.naming = naming;
    }

    RoctracerOpsRecord wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, RoctracerRecord.SIZE, "HIP_OPS activity_record_t");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    int op() {
        return buffer.getInt(offset + RoctracerRecord.OP);
    }

    /** The cl_command_type the HIP runtime reported. */
    int command() {
        return buffer.getInt(offset + RoctracerRecord.KIND);
    }

    long correlationId() {
        return buffer.getLong(offset + RoctracerRecord.CORRELATION_ID);
    }

    long begin() {
        return buffer.getLong(offset + RoctracerRecord.BEGIN_NS);
    }

    long end() {
        return buffer.getLong(offset + RoctracerRecord.END_NS);
    }

    /** The driver (KFD) node id of the device, as the HIP runtime reports it. */
    int deviceId() {
        return buffer.getInt(offset + RoctracerRecord.DEVICE_ID);
    }

    long queueId() {
        return buffer.getLong(offset + RoctracerRecord.QUEUE_ID);
    }

    long bytes() {
        return buffer.getLong(offset + RoctracerRecord.BYTES);
    }

    long kernelName() {
        return buffer.getLong(offset + RoctracerRecord.KERNEL_NAME);
    }

    boolean isFill() {
        int command = command();
        return command == RoctracerRecord.CMD_FILL_BUFFER || command == RoctracerRecord.CMD_FILL_IMAGE;
    }

    EventKind eventKind() {
        return op() == RoctracerRecord.OP_DISPATCH ? EventKind.KERNEL : isFill() ? EventKind.MEMSET : EventKind.MEMCPY;
    }

    CopyKind copyKind() {
        switch (command()) {
            case RoctracerRecord.CMD_READ_BUFFER:
            case RoctracerRecord.CMD_READ_BUFFER_RECT:
                return CopyKind.DTOH;
            case RoctracerRecord.CMD_WRITE_BUFFER:
            case RoctracerRecord.CMD_WRITE_BUFFER_RECT:
                return CopyKind.HTOD;
            case RoctracerRecord.CMD_COPY_BUFFER:
            case RoctracerRecord.CMD_COPY_BUFFER_RECT:
                return CopyKind.DTOD;
            default:
                return CopyKind.UNKNOWN; // images and buffer<->image copies
        }
    }
}
