package org.flagos.trace.vendors.mspti;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over an {@code msptiActivityMemset} record, read in place: flat device and stream, no
 * context, no memory kind (the trace names it plain {@code Memset}).
 */
final class MsptiMemsetRecord {
    static final int SIZE = 56;
    private static final int VALUE = 4;
    private static final int BYTES = 8;
    private static final int START = 16;
    private static final int END = 24;
    private static final int DEVICE_ID = 32;
    private static final int STREAM_ID = 36;
    private static final int CORRELATION_ID = 40;

    static final EventTranslatorOneArg<TraceRecord, MsptiMemsetRecord> TRANSLATOR = (slot, sequence, m) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.MEMSET;
        slot.startNs = m.start();
        slot.endNs = m.end();
        slot.device = m.logicalDevice;
        slot.stream = m.streamId();
        slot.correlation(m.correlationId());
        slot.bytes = m.bytes();
        slot.memsetValue = m.value();
        slot.presentAll(RecordField.BYTES.bit() | RecordField.MEMSET_VALUE.bit());
    };

    private ByteBuffer buffer;
    private int offset;
    int logicalDevice;

    MsptiMemsetRecord wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, "msptiActivityMemset");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    int value() {
        return buffer.getInt(offset + VALUE);
    }

    long bytes() {
        return buffer.getLong(offset + BYTES);
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
}
