package org.flagos.trace.vendors.roctracer;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over an EXT_API {@code EXTERN_ID} record: roctracer writes one directly before each API
 * record of a thread that has pushed an id, binding that call's correlation id to the top of the
 * thread's stack (the host op's External id). The only bridge between the two id schemes.
 */
final class RoctracerExternRecord {
    static final EventTranslatorOneArg<TraceRecord, RoctracerExternRecord> TRANSLATOR = (slot, sequence, ext) -> {
        slot.clear();
        slot.type = RecordType.CORRELATION_BINDING;
        slot.correlation(ext.correlationId());
        slot.externalId(ext.externalId());
    };

    private ByteBuffer buffer;
    private int offset;

    RoctracerExternRecord wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, RoctracerRecord.SIZE, "EXT_API activity_record_t");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    int op() {
        return buffer.getInt(offset + RoctracerRecord.OP);
    }

    long correlationId() {
        return buffer.getLong(offset + RoctracerRecord.CORRELATION_ID);
    }

    long externalId() {
        return buffer.getLong(offset + RoctracerRecord.EXTERNAL_ID);
    }
}
