package org.flagos.trace.vendors.cupti;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.activity.RecordBounds;
import org.flagos.trace.vendors.family.CuptiShapedEnums;

/**
 * Flyweight over a CUPTI MEMORY2 record ({@code CUpti_ActivityMemory4}), read in place,
 * little-endian: one allocation or one release of device (or pinned host) memory, at one time,
 * with the correlation id of the runtime call that asked for it. Offsets are gcc's {@code offsetof}
 * against CUDA 13.0's {@code cupti_activity.h}; the fields after {@code streamId} (name, async flag,
 * pool configuration, source) are not read.
 */
final class CuptiMemoryDecoder {
    /** {@code CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION}. */
    static final int ALLOCATION = 1;
    /** {@code CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE}. */
    static final int RELEASE = 2;

    private static final int OPERATION = 4;
    private static final int MEMORY_KIND = 8;
    private static final int CORRELATION_ID = 12;
    private static final int ADDRESS = 16;
    private static final int BYTES = 24;
    private static final int TIMESTAMP = 32;
    private static final int PROCESS_ID = 48;
    private static final int DEVICE_ID = 52;
    private static final int CONTEXT_ID = 56;
    private static final int STREAM_ID = 60;

    static final EventTranslatorOneArg<TraceRecord, CuptiMemoryDecoder> TRANSLATOR = (slot, sequence, m) -> {
        long at = m.times.startNs(); // an instant: it ends where it starts
        CuptiActivitySlot.fill(slot, EventKind.MEMORY, at, at, m.deviceId(), m.contextId(), m.streamId(), m.correlationId());
        slot.processId = m.processId();
        slot.address = m.address();
        slot.bytes = m.bytes();
        slot.memoryRelease = m.operation() == RELEASE;
        slot.memoryKind = CuptiShapedEnums.memoryKind(m.memoryKind());
        slot.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit());
    };

    private final CuptiTimes times;
    private final int size;
    private final String record;
    private ByteBuffer buffer;
    private int offset;

    CuptiMemoryDecoder(CuptiRecordLayout layout, CuptiTimes times) {
        this.times = times;
        this.size = layout.memorySize;
        this.record = layout.memoryRecord;
    }

    CuptiMemoryDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, size, record);
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Why this record cannot be drawn (an operation neither allocation nor release, a size past
     * 2^63), or null.
     */
    String invalid() {
        int op = operation();
        if (op != ALLOCATION && op != RELEASE) {
            return "memory record with operation type " + Integer.toUnsignedString(op) + " (neither allocation nor release)";
        }
        if (bytes() < 0) {
            return "memory record of " + Long.toUnsignedString(bytes()) + " bytes (above 2^63)";
        }
        return null;
    }

    int operation() {
        return buffer.getInt(offset + OPERATION);
    }

    int memoryKind() {
        return buffer.getInt(offset + MEMORY_KIND);
    }

    long correlationId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CORRELATION_ID));
    }

    long address() {
        return buffer.getLong(offset + ADDRESS);
    }

    long bytes() {
        return buffer.getLong(offset + BYTES);
    }

    long rawTimestamp() {
        return buffer.getLong(offset + TIMESTAMP);
    }

    int processId() {
        return buffer.getInt(offset + PROCESS_ID);
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
}
