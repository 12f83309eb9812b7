package org.flagos.trace.vendors.mspti;

import com.lmax.disruptor.EventTranslatorOneArg;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over an {@code msptiActivityKernel} record, read in place. The record has no grid,
 * block, registers, shared memory, queued time or context: none of those fields is marked, so the
 * trace leaves them out. Note the header's order: {@code type} before {@code name}.
 */
final class MsptiKernelRecord extends MsptiPackedRecord {
    static final int SIZE = 56;
    private static final int DEVICE_ID = 20;
    private static final int STREAM_ID = 24;
    private static final int TYPE = 36;
    private static final int NAME = 44;

    static final EventTranslatorOneArg<TraceRecord, MsptiKernelRecord> TRANSLATOR = (slot, sequence, k) -> {
        slot.activity(EventKind.KERNEL, k.start(), k.end(), k.correlationId());
        slot.device = k.logicalDevice;
        slot.stream = k.streamId();
        slot.nameHandle = k.namePointer();
        slot.naming = k.naming;
    };

    /** The device's logical ordinal, set by the decoder from {@link #deviceId()}. */
    int logicalDevice;

    MsptiKernelRecord() {
        super(SIZE, "msptiActivityKernel");
    }

    int deviceId() {
        return buffer.getInt(offset + DEVICE_ID);
    }

    int streamId() {
        return buffer.getInt(offset + STREAM_ID);
    }

    long typePointer() {
        return buffer.getLong(offset + TYPE);
    }

    long namePointer() {
        return buffer.getLong(offset + NAME);
    }
}
