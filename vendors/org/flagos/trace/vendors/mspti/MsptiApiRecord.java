package org.flagos.trace.vendors.mspti;

import com.lmax.disruptor.EventTranslatorOneArg;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over an {@code msptiActivityApi} record (kinds API, ACL_API, NODE_API and RUNTIME_API
 * share it), read in place. Packed: the 8-byte {@code start} sits at offset 4, unaligned. The record
 * has no callback id; it carries a pointer to the API's name, copied as the slot's name handle for
 * the name stage.
 */
final class MsptiApiRecord extends MsptiPackedRecord {
    static final int SIZE = 48;
    private static final int PROCESS_ID = 20;
    private static final int THREAD_ID = 24;
    private static final int NAME = 36;

    static final EventTranslatorOneArg<TraceRecord, MsptiApiRecord> TRANSLATOR = (slot, sequence, api) -> {
        slot.activity(EventKind.RUNTIME, api.start(), api.end(), api.correlationId());
        slot.processId = api.processId();
        slot.threadId = Integer.toUnsignedLong(api.threadId());
        slot.nameHandle = api.namePointer(); // the vendor names it (no cbid: RecordField.CBID stays unmarked)
        slot.naming = api.naming;
    };

    MsptiApiRecord() {
        super(SIZE, "msptiActivityApi");
    }

    int processId() {
        return buffer.getInt(offset + PROCESS_ID);
    }

    int threadId() {
        return buffer.getInt(offset + THREAD_ID);
    }

    long namePointer() {
        return buffer.getLong(offset + NAME);
    }
}
