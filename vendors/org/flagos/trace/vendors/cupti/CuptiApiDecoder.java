package org.flagos.trace.vendors.cupti;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;

/** Flyweight over a {@code CUpti_ActivityAPI} record (kinds RUNTIME and DRIVER), read in place, little-endian. */
final class CuptiApiDecoder {
    static final int SIZE = 40;
    private static final int KIND = 0;
    private static final int CBID = 4;
    private static final int START = 8;
    private static final int END = 16;
    private static final int PROCESS_ID = 24;
    private static final int THREAD_ID = 28;
    private static final int CORRELATION_ID = 32;
    private static final int RETURN_VALUE = 36;

    static final EventTranslatorOneArg<TraceRecord, CuptiApiDecoder> TRANSLATOR = (slot, sequence, api) -> {
        slot.activity(api.kind() == CuptiActivityKind.DRIVER ? EventKind.DRIVER : EventKind.RUNTIME,
                api.times.startNs(), api.times.endNs(), api.correlationId());
        slot.cbid = api.cbid();
        slot.present(RecordField.CBID);
        slot.processId = api.processId();
        slot.threadId = api.threadId();
    };

    private final CuptiTimes times;
    private ByteBuffer buffer;
    private int offset;

    CuptiApiDecoder(CuptiTimes times) {
        this.times = times;
    }

    CuptiApiDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, "CUpti_ActivityAPI");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    int kind() {
        return buffer.getInt(offset + KIND);
    }

    int cbid() {
        return buffer.getInt(offset + CBID);
    }

    long rawStart() {
        return buffer.getLong(offset + START);
    }

    long rawEnd() {
        return buffer.getLong(offset + END);
    }


    int processId() {
        return buffer.getInt(offset + PROCESS_ID);
    }

    /** CUPTI's thread id, an unsigned 32-bit value. */
    long threadId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + THREAD_ID));
    }

    long correlationId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CORRELATION_ID));
    }

    int returnValue() {
        return buffer.getInt(offset + RETURN_VALUE);
    }
}
