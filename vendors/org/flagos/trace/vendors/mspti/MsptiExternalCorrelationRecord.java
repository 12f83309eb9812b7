package org.flagos.trace.vendors.mspti;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over an {@code msptiActivityExternalCorrelation} record: binds an MSPTI correlation id
 * (64-bit) to the External id pushed when the API call was made. MSPTI writes one before each API
 * record made inside a pushed region.
 */
final class MsptiExternalCorrelationRecord {
    static final int SIZE = 24;
    private static final int EXTERNAL_KIND = 4;
    private static final int EXTERNAL_ID = 8;
    private static final int CORRELATION_ID = 16;

    static final EventTranslatorOneArg<TraceRecord, MsptiExternalCorrelationRecord> TRANSLATOR = (slot, sequence, x) -> {
        slot.clear();
        slot.type = RecordType.CORRELATION_BINDING;
        slot.correlation(x.correlationId());
        slot.externalId(x.externalId());
    };

    private ByteBuffer buffer;
    private int offset;

    MsptiExternalCorrelationRecord wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, "msptiActivityExternalCorrelation");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    int externalKind() {
        return buffer.getInt(offset + EXTERNAL_KIND);
    }

    long externalId() {
        return buffer.getLong(offset + EXTERNAL_ID);
    }

    long correlationId() {
        return buffer.getLong(offset + CORRELATION_ID);
    }
}
