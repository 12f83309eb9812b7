package org.flagos.trace.vendors.cupti;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.activity.RecordBounds;

/**
 * Flyweight over a CUPTI MEMCPY2 record, a copy between two devices: {@code CUpti_ActivityMemcpyPtoP4}
 * (96 bytes in CUPTI 13.0; offsets measured with gcc's {@code offsetof} against CUDA 13.0's
 * {@code cupti_activity.h}), read in place, little-endian. Published as a copy ({@link EventKind#MEMCPY})
 * on the stream of the device that ran it ({@code deviceId}, {@code contextId}), with both ends
 * ({@link RecordField#PEER}). Only the CUPTI 13.0 row of {@link CuptiRecordLayout} knows the record.
 */
final class CuptiPeerCopyDecoder {
    private static final int COPY_KIND = 4;
    private static final int SRC_KIND = 5;
    private static final int DST_KIND = 6;
    private static final int BYTES = 8;
    private static final int START = 16;
    private static final int END = 24;
    private static final int DEVICE_ID = 32;
    private static final int CONTEXT_ID = 36;
    private static final int STREAM_ID = 40;
    private static final int SRC_DEVICE_ID = 44;
    private static final int SRC_CONTEXT_ID = 48;
    private static final int DST_DEVICE_ID = 52;
    private static final int DST_CONTEXT_ID = 56;
    private static final int CORRELATION_ID = 60;
    private static final int GRAPH_NODE_ID = 72;
    private static final int GRAPH_ID = 80;

    static final EventTranslatorOneArg<TraceRecord, CuptiPeerCopyDecoder> TRANSLATOR = (slot, sequence, copy) -> {
        CuptiActivitySlot.fill(slot, EventKind.MEMCPY, copy.times.startNs(), copy.times.endNs(),
                copy.deviceId(), copy.contextId(), copy.streamId(), copy.correlationId());
        CuptiActivitySlot.fillCopy(slot, copy.bytes(), copy.copyKind(), copy.srcKind(), copy.dstKind());
        slot.srcDevice = copy.srcDeviceId();
        slot.srcContext = copy.srcContextId();
        slot.dstDevice = copy.dstDeviceId();
        slot.dstContext = copy.dstContextId();
        slot.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit() | RecordField.PEER.bit());
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

    CuptiPeerCopyDecoder(CuptiRecordLayout layout, CuptiTimes times) {
        this.times = times;
        this.size = layout.peerCopySize;
        this.record = layout.peerCopyRecord;
        this.graphIds = layout.graphIds;
    }

    CuptiPeerCopyDecoder wrap(ByteBuffer buffer, int offset) {
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

    int srcDeviceId() {
        return buffer.getInt(offset + SRC_DEVICE_ID);
    }

    int srcContextId() {
        return buffer.getInt(offset + SRC_CONTEXT_ID);
    }

    int dstDeviceId() {
        return buffer.getInt(offset + DST_DEVICE_ID);
    }

    int dstContextId() {
        return buffer.getInt(offset + DST_CONTEXT_ID);
    }

    long correlationId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CORRELATION_ID));
    }
}
