package org.flagos.trace.vendors.mspti;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over an {@code msptiActivityKernel} record, read in place. The record has no grid,
 * block, registers, shared memory, queued time or context: none of those fields is marked, so the
 * trace leaves them out. Note the header's order: {@code type} before {@code name}.
 */
final class MsptiKernelRecord {
    static final int SIZE = 56;
    private static final int START = 4;
    private static final int END = 12;
    private static final int DEVICE_ID = 20;
    private static final int STREAM_ID = 24;
    private static final int CORRELATION_ID = 28;
    private static final int TYPE = 36;
    private static final int NAME = 44;

    static final EventTranslatorOneArg<TraceRecord, MsptiKernelRecord> TRANSLATOR = (slot, sequence, k) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.KERNEL;
        slot.startNs = k.start();
        slot.endNs = k.end();
        slot.device = k.logicalDevice;
        slot.stream = k.streamId();
        slot.correlation(k.correlationId());
        slot.nameHandle = k.namePointer();
        slot.naming = k.naming;
    };

    private ByteBuffer buffer;
    private int offset;
    /** How the name stage resolves the name pointer; set by the decoder. */
    RecordNaming naming;
    int logicalDevice;

    MsptiKernelRecord wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, "msptiActivityKernel");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    long start() {
        return buffer.getLong(offset + START);
    }

    long end() {
        return buffer.getLong(offset + END);
    }

    int deviceId() {
        return buffer.getInt(offset + DEVICE_ID);
    }

    int streamId() {
        return buffer.getInt(offset + STREAM_ID);
    }

    long correlationId() {
        return buffer.getLong(offset + CORRELATION_ID);
    }

    long typePointer() {
        return buffer.getLong(offset + TYPE);
    }

    long namePointer() {
        return buffer.getLong(offset + NAME);
    }
}
