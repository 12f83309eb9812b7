package org.flagos.trace.vendors.cupti;

import com.lmax.disruptor.EventTranslatorOneArg;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over a CUPTI MEMCPY2 record, a copy between two devices: {@code CUpti_ActivityMemcpyPtoP4}
 * (96 bytes in CUPTI 13.0; offsets measured with gcc's {@code offsetof} against CUDA 13.0's
 * {@code cupti_activity.h}), read in place, little-endian. Published as a copy ({@link EventKind#MEMCPY})
 * on the stream of the device that ran it ({@code deviceId}, {@code contextId}), with both ends
 * ({@link RecordField#PEER}). Only the CUPTI 13.0 row of {@link CuptiRecordLayout} knows the record. Its
 * first 44 bytes are a memcpy record's, read by {@link CuptiTransferRecord}.
 */
final class CuptiPeerCopyDecoder extends CuptiTransferRecord {
    private static final int SRC_DEVICE_ID = 44;
    private static final int SRC_CONTEXT_ID = 48;
    private static final int DST_DEVICE_ID = 52;
    private static final int DST_CONTEXT_ID = 56;
    private static final int CORRELATION_ID = 60;
    private static final int GRAPH_NODE_ID = 72;
    private static final int GRAPH_ID = 80;

    static final EventTranslatorOneArg<TraceRecord, CuptiPeerCopyDecoder> TRANSLATOR = (slot, sequence, copy) -> {
        copy.fill(slot, EventKind.MEMCPY, copy.correlationId());
        copy.fillCopy(slot);
        slot.srcDevice = copy.srcDeviceId();
        slot.srcContext = copy.srcContextId();
        slot.dstDevice = copy.dstDeviceId();
        slot.dstContext = copy.dstContextId();
        slot.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit() | RecordField.PEER.bit());
        copy.publishGraphIds(slot, GRAPH_NODE_ID, GRAPH_ID);
    };

    CuptiPeerCopyDecoder(CuptiRecordLayout layout, CuptiTimes times) {
        super(times, layout.peerCopySize, layout.peerCopyRecord, layout.graphIds);
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
