package org.flagos.trace.vendors.mspti;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over an {@code msptiActivityApi} record (kinds API, ACL_API, NODE_API and RUNTIME_API
 * share it), read in place. Packed: the 8-byte {@code start} sits at offset 4, unaligned. The record
 * has no callback id; it carries a pointer to the API's name, copied as the slot's name handle for
 * the name stage.
 */
final class MsptiApiRecord {
    static final int SIZE = 48;
    private static final int START = 4;
    private static final int END = 12;
    private static final int PROCESS_ID = 20;
    private static final int THREAD_ID = 24;
    private static final int CORRELATION_ID = 28;
    private static final int NAME = 36;

    static final EventTranslatorOneArg<TraceRecord, MsptiApiRecord> TRANSLATOR = (slot, sequence, api) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.RUNTIME;
        slot.startNs = api.start();
        slot.endNs = api.end();
        slot.processId = api.processId();
        slot.threadId = Integer.toUnsignedLong(api.threadId());
        slot.correlation(api.correlationId());
        slot.nameHandle = api.namePointer(); // the vendor names it (no cbid: RecordField.CBID stays unmarked)
        slot.naming = api.naming;
    };

    private ByteBuffer buffer;
    private int offset;
    /** How the name stage resolves the name pointer; set by the decoder. */
    RecordNaming naming;

    MsptiApiRecord wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, "msptiActivityApi");
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

    int processId() {
        return buffer.getInt(offset + PROCESS_ID);
    }

    int threadId() {
        return buffer.getInt(offset + THREAD_ID);
    }

    long correlationId() {
        return buffer.getLong(offset + CORRELATION_ID);
    }

    long namePointer() {
        return buffer.getLong(offset + NAME);
    }
}
