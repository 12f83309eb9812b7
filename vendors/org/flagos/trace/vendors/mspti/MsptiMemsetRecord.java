package org.flagos.trace.vendors.mspti;

import com.lmax.disruptor.EventTranslatorOneArg;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over an {@code msptiActivityMemset} record, read in place: flat device and stream, no
 * context, no memory kind (the trace names it plain {@code Memset}).
 */
final class MsptiMemsetRecord extends MsptiTransferRecord {
    private static final int VALUE = 4;

    static final EventTranslatorOneArg<TraceRecord, MsptiMemsetRecord> TRANSLATOR = (slot, sequence, m) -> {
        m.fill(slot, EventKind.MEMSET);
        slot.memsetValue = m.value();
        slot.presentAll(RecordField.BYTES.bit() | RecordField.MEMSET_VALUE.bit());
    };

    MsptiMemsetRecord() {
        super("msptiActivityMemset");
    }

    int value() {
        return buffer.getInt(offset + VALUE);
    }
}
