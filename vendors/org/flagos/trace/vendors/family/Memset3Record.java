package org.flagos.trace.vendors.family;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/** Flyweight over a {@code CUpti_ActivityMemset3}-shaped record (80 bytes), read in place. */
final class Memset3Record {
    static final int SIZE = 80;
    private static final int VALUE = 4;
    private static final int BYTES = 8;
    private static final int START = 16;
    private static final int END = 24;
    private static final int DEVICE_ID = 32;
    private static final int CONTEXT_ID = 36;
    private static final int STREAM_ID = 40;
    private static final int CORRELATION_ID = 44;
    private static final int MEMORY_KIND = 50;

    static final EventTranslatorOneArg<TraceRecord, Memset3Record> TRANSLATOR = (slot, sequence, set) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.MEMSET;
        slot.startNs = set.startNs;
        slot.endNs = set.endNs;
        slot.device = set.deviceId();
        slot.context = set.buffer.getInt(set.offset + CONTEXT_ID);
        slot.stream = set.buffer.getInt(set.offset + STREAM_ID);
        slot.correlation(set.correlationId());
        slot.bytes = set.buffer.getLong(set.offset + BYTES);
        slot.memsetValue = set.buffer.getInt(set.offset + VALUE);
        slot.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit() | RecordField.MEMSET_VALUE.bit());
        slot.memoryKind = CuptiShapedEnums.memoryKind(Short.toUnsignedInt(set.buffer.getShort(set.offset + MEMORY_KIND)));
    };

    private ByteBuffer buffer;
    private int offset;
    long startNs;
    long endNs;

    Memset3Record wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, "Memset3 record");
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

    long correlationId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CORRELATION_ID));
    }
}
