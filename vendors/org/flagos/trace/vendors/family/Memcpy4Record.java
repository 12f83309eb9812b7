package org.flagos.trace.vendors.family;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/** Flyweight over a {@code CUpti_ActivityMemcpy4}-shaped record (80 bytes), read in place. */
final class Memcpy4Record {
    static final int SIZE = 80;
    private static final int COPY_KIND = 4;
    private static final int SRC_KIND = 5;
    private static final int DST_KIND = 6;
    private static final int BYTES = 8;
    private static final int START = 16;
    private static final int END = 24;
    private static final int DEVICE_ID = 32;
    private static final int CONTEXT_ID = 36;
    private static final int STREAM_ID = 40;
    private static final int CORRELATION_ID = 44;

    static final EventTranslatorOneArg<TraceRecord, Memcpy4Record> TRANSLATOR = (slot, sequence, copy) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.MEMCPY;
        slot.startNs = copy.startNs;
        slot.endNs = copy.endNs;
        slot.device = copy.deviceId();
        slot.context = copy.buffer.getInt(copy.offset + CONTEXT_ID);
        slot.stream = copy.buffer.getInt(copy.offset + STREAM_ID);
        slot.correlation(copy.correlationId());
        slot.bytes = copy.buffer.getLong(copy.offset + BYTES);
        slot.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit());
        slot.copyKind = CuptiShapedEnums.copyKind(Byte.toUnsignedInt(copy.buffer.get(copy.offset + COPY_KIND)));
        slot.srcKind = CuptiShapedEnums.memoryKind(Byte.toUnsignedInt(copy.buffer.get(copy.offset + SRC_KIND)));
        slot.dstKind = CuptiShapedEnums.memoryKind(Byte.toUnsignedInt(copy.buffer.get(copy.offset + DST_KIND)));
    };

    private ByteBuffer buffer;
    private int offset;
    long startNs;
    long endNs;

    Memcpy4Record wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, "Memcpy4 record");
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
