package org.flagos.trace.vendors.family;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/** Flyweight over a {@code CUpti_ActivityAPI}-shaped record (40 bytes; runtime and driver kinds), read in place. */
final class ApiRecord {
    static final int SIZE = 40;
    private static final int CBID = 4;
    private static final int START = 8;
    private static final int END = 16;
    private static final int PROCESS_ID = 24;
    private static final int THREAD_ID = 28;
    private static final int CORRELATION_ID = 32;

    static final EventTranslatorOneArg<TraceRecord, ApiRecord> TRANSLATOR = (slot, sequence, api) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = api.eventKind;
        slot.cbid = api.buffer.getInt(api.offset + CBID);
        slot.present(RecordField.CBID);
        slot.startNs = api.startNs;
        slot.endNs = api.endNs;
        slot.processId = api.buffer.getInt(api.offset + PROCESS_ID);
        slot.threadId = Integer.toUnsignedLong(api.buffer.getInt(api.offset + THREAD_ID));
        slot.correlation(api.correlationId());
    };

    private ByteBuffer buffer;
    private int offset;
    EventKind eventKind;
    long startNs;
    long endNs;

    ApiRecord wrap(ByteBuffer buffer, int offset, EventKind kind) {
        RecordBounds.check(buffer, offset, SIZE, "API record");
        this.buffer = buffer;
        this.offset = offset;
        this.eventKind = kind;
        return this;
    }

    long start() {
        return buffer.getLong(offset + START);
    }

    long end() {
        return buffer.getLong(offset + END);
    }

    long correlationId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CORRELATION_ID));
    }
}
