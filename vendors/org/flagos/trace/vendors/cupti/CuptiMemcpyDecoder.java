package org.flagos.trace.vendors.cupti;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over a CUPTI memcpy record, read in place, little-endian: {@code CUpti_ActivityMemcpy6},
 * {@code Memcpy5} or {@code Memcpy4}, whose fields read here sit at the same offsets (the layout row
 * says which). Times are published as the decoder's clock accepted them.
 */
final class CuptiMemcpyDecoder {
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
    private static final int GRAPH_NODE_ID = 64;
    private static final int GRAPH_ID = 72;

    static final EventTranslatorOneArg<TraceRecord, CuptiMemcpyDecoder> TRANSLATOR = (slot, sequence, copy) -> {
        CuptiActivitySlot.fill(slot, EventKind.MEMCPY, copy.times.startNs(), copy.times.endNs(),
                copy.deviceId(), copy.contextId(), copy.streamId(), copy.correlationId());
        CuptiActivitySlot.fillCopy(slot, copy.bytes(), copy.copyKind(), copy.srcKind(), copy.dstKind());
        slot.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit());
        if (copy.graphIds) {
            CuptiGraphIds.publish(slot, copy.buffer, copy.offset + GRAPH_NODE_ID, copy.offset + GRAPH_ID);
        }
    };

    private final CuptiTimes times;
    private final int size;
    private final String record;
    private final boolean graphIds;
    private ByteBuffer buffer;
    private int offset;

    CuptiMemcpyDecoder(CuptiRecordLayout layout, CuptiTimes times) {
        this.times = times;
        this.size = layout.memcpySize;
        this.record = layout.memcpyRecord;
        this.graphIds = layout.graphIds;
    }

    CuptiMemcpyDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, size, record);
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    int copyKind() {
        return Byte.toUnsignedInt(buffer.get(offset + COPY_KIND));
    }

    int srcKind() {
        return Byte.toUnsignedInt(buffer.get(offset + SRC_KIND));
    }

    int dstKind() {
        return Byte.toUnsignedInt(buffer.get(offset + DST_KIND));
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
}
