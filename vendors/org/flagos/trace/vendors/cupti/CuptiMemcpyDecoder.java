package org.flagos.trace.vendors.cupti;

import com.lmax.disruptor.EventTranslatorOneArg;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over a CUPTI memcpy record, read in place, little-endian: {@code CUpti_ActivityMemcpy6},
 * {@code Memcpy5} or {@code Memcpy4}, whose fields read here sit at the same offsets (the layout row
 * says which). Times are published as the decoder's clock accepted them. The fields it shares with
 * memset and peer-copy records are read by {@link CuptiTransferRecord}.
 */
final class CuptiMemcpyDecoder extends CuptiTransferRecord {
    private static final int CORRELATION_ID = 44;
    private static final int GRAPH_NODE_ID = 64;
    private static final int GRAPH_ID = 72;

    static final EventTranslatorOneArg<TraceRecord, CuptiMemcpyDecoder> TRANSLATOR = (slot, sequence, copy) -> {
        copy.fill(slot, EventKind.MEMCPY, copy.correlationId());
        copy.fillCopy(slot);
        slot.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit());
        copy.publishGraphIds(slot, GRAPH_NODE_ID, GRAPH_ID);
    };

    CuptiMemcpyDecoder(CuptiRecordLayout layout, CuptiTimes times) {
        super(times, layout.memcpySize, layout.memcpyRecord, layout.graphIds);
    }

    long correlationId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CORRELATION_ID));
    }
}
