package org.flagos.trace.vendors.family;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over a {@code CUpti_ActivityKernel6}-shaped record (168 bytes, CUPTI 11.1-11.5's kernel
 * record), read in place. Times are published as the decoder mapped them to epoch ns; the name
 * pointer is copied as a handle, for the name stage.
 */
final class Kernel6Record {
    static final int SIZE = 168;
    private static final int REGISTERS_PER_THREAD = 6;
    private static final int START = 16;
    private static final int END = 24;
    private static final int DEVICE_ID = 40;
    private static final int CONTEXT_ID = 44;
    private static final int STREAM_ID = 48;
    private static final int GRID_X = 52;
    private static final int GRID_Y = 56;
    private static final int GRID_Z = 60;
    private static final int BLOCK_X = 64;
    private static final int BLOCK_Y = 68;
    private static final int BLOCK_Z = 72;
    private static final int STATIC_SHARED_MEMORY = 76;
    private static final int DYNAMIC_SHARED_MEMORY = 80;
    private static final int CORRELATION_ID = 92;
    private static final int NAME = 104;
    private static final int QUEUED = 120;

    static final EventTranslatorOneArg<TraceRecord, Kernel6Record> TRANSLATOR = (slot, sequence, k) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.KERNEL;
        slot.startNs = k.startNs;
        slot.endNs = k.endNs;
        slot.device = k.deviceId();
        slot.context = k.contextId();
        slot.stream = k.streamId();
        slot.correlation(k.correlationId());
        slot.gridX = k.buffer.getInt(k.offset + GRID_X);
        slot.gridY = k.buffer.getInt(k.offset + GRID_Y);
        slot.gridZ = k.buffer.getInt(k.offset + GRID_Z);
        slot.blockX = k.buffer.getInt(k.offset + BLOCK_X);
        slot.blockY = k.buffer.getInt(k.offset + BLOCK_Y);
        slot.blockZ = k.buffer.getInt(k.offset + BLOCK_Z);
        slot.registersPerThread = Short.toUnsignedInt(k.buffer.getShort(k.offset + REGISTERS_PER_THREAD));
        slot.staticSharedMemory = k.buffer.getInt(k.offset + STATIC_SHARED_MEMORY);
        slot.dynamicSharedMemory = k.buffer.getInt(k.offset + DYNAMIC_SHARED_MEMORY);
        slot.queued = k.queuedNs;
        slot.presentAll(RecordField.CUDA_KERNEL);
        slot.nameHandle = k.nameHandle();
        slot.naming = k.naming;
    };

    private final RecordNaming naming;
    private ByteBuffer buffer;
    private int offset;
    long startNs;
    long endNs;
    long queuedNs;

    Kernel6Record(RecordNaming naming) {
        this.naming = naming;
    }

    Kernel6Record wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, "Kernel6 record");
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

    /** The vendor clock's queued time; 0 when the vendor did not collect it. */
    long queued() {
        return buffer.getLong(offset + QUEUED);
    }

    int deviceId() {
        return buffer.getInt(offset + DEVICE_ID);
    }

    int contextId() {
        return buffer.getInt(offset + CONTEXT_ID);
    }

    int streamId() {
        return buffer.getInt(offset + STREAM_ID);
    }

    long correlationId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CORRELATION_ID));
    }

    long nameHandle() {
        return buffer.getLong(offset + NAME);
    }
}
