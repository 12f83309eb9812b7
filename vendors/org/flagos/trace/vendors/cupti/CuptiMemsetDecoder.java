package org.flagos.trace.vendors.cupti;

import com.lmax.disruptor.EventTranslatorOneArg;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.family.CuptiShapedEnums;

/**
 * Flyweight over a CUPTI memset record, read in place, little-endian: {@code CUpti_ActivityMemset4}
 * or {@code Memset3}, whose fields read here sit at the same offsets (the layout row says which). The
 * fields it shares with memcpy and peer-copy records are read by {@link CuptiTransferRecord}.
 */
final class CuptiMemsetDecoder extends CuptiTransferRecord {
    private static final int VALUE = 4;
    private static final int CORRELATION_ID = 44;
    private static final int MEMORY_KIND = 50;
    private static final int GRAPH_NODE_ID = 64;
    private static final int GRAPH_ID = 72;

    static final EventTranslatorOneArg<TraceRecord, CuptiMemsetDecoder> TRANSLATOR = (slot, sequence, set) -> {
        set.fill(slot, EventKind.MEMSET, set.correlationId());
        slot.bytes = set.bytes();
        slot.memsetValue = set.value();
        slot.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit() | RecordField.MEMSET_VALUE.bit());
        slot.memoryKind = CuptiShapedEnums.memoryKind(set.memoryKind());
        set.publishGraphIds(slot, GRAPH_NODE_ID, GRAPH_ID);
    };

    CuptiMemsetDecoder(CuptiRecordLayout layout, CuptiTimes times) {
        super(times, layout.memsetSize, layout.memsetRecord, layout.graphIds);
    }

    int value() {
        return buffer.getInt(offset + VALUE);
    }

    long correlationId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CORRELATION_ID));
    }

    int memoryKind() {
        return Short.toUnsignedInt(buffer.getShort(offset + MEMORY_KIND));
    }
}
