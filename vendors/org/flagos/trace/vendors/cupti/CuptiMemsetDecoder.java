package org.flagos.trace.vendors.cupti;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.family.CuptiShapedEnums;

/**
 * Flyweight over a CUPTI memset record, read in place, little-endian: {@code CUpti_ActivityMemset4}
 * or {@code Memset3}, whose fields read here sit at the same offsets (the layout row says which).
 */
final class CuptiMemsetDecoder {
    private static final int VALUE = 4;
    private static final int BYTES = 8;
    private static final int START = 16;
    private static final int END = 24;
    private static final int DEVICE_ID = 32;
    private static final int CONTEXT_ID = 36;
    private static final int STREAM_ID = 40;
    private static final int CORRELATION_ID = 44;
    private static final int MEMORY_KIND = 50;
    private static final int GRAPH_NODE_ID = 64;
    private static final int GRAPH_ID = 72;

    static final EventTranslatorOneArg<TraceRecord, CuptiMemsetDecoder> TRANSLATOR = (slot, sequence, set) -> {
        CuptiActivitySlot.fill(slot, EventKind.MEMSET, set.times.startNs(), set.times.endNs(),
                set.deviceId(), set.contextId(), set.streamId(), set.correlationId());
        slot.bytes = set.bytes();
        slot.memsetValue = set.value();
        slot.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit() | RecordField.MEMSET_VALUE.bit());
        slot.memoryKind = CuptiShapedEnums.memoryKind(set.memoryKind());
        if (set.graphIds) {
            CuptiGraphIds.publish(slot, set.buffer, set.offset + GRAPH_NODE_ID, set.offset + GRAPH_ID);
        }
    };

    private final CuptiTimes times;
    private final int size;
    private final String record;
    private final boolean graphIds;
    private ByteBuffer buffer;
    private int offset;

    CuptiMemsetDecoder(CuptiRecordLayout layout, CuptiTimes times) {
        this.times = times;
        this.size = layout.memsetSize;
        this.record = layout.memsetRecord;
        this.graphIds = layout.graphIds;
    }

    CuptiMemsetDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, size, record);
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

    long rawStart() {
        return buffer.getLong(offset + START);
    }

    long rawEnd() {
        return buffer.getLong(offset + END);
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

    int memoryKind() {
        return Short.toUnsignedInt(buffer.getShort(offset + MEMORY_KIND));
    }
}
