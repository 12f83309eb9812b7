package org.flagos.trace.vendors.roctracer;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over a HIP_API {@code activity_record_t} (one HIP call on a host thread), read in place.
 * Its op is the {@code hip_api_id_t}: the callback id the name stage resolves through
 * {@code roctracer_op_string}, so it travels as the record's cbid.
 */
final class RoctracerApiRecord {
    static final EventTranslatorOneArg<TraceRecord, RoctracerApiRecord> TRANSLATOR = (slot, sequence, api) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.RUNTIME;
        slot.cbid = api.op();
        slot.present(RecordField.CBID);
        slot.startNs = api.startNs;
        slot.endNs = api.endNs;
        slot.processId = api.processId();
        slot.threadId = api.threadId();
        slot.correlation(api.correlationId());
    };

    private ByteBuffer buffer;
    private int offset;
    /** Epoch ns, set by the decoder after mapping the vendor clock. */
    long startNs;
    long endNs;

    RoctracerApiRecord wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, RoctracerRecord.SIZE, "HIP_API activity_record_t");
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

    long begin() {
        return buffer.getLong(offset + RoctracerRecord.BEGIN_NS);
    }

    long end() {
        return buffer.getLong(offset + RoctracerRecord.END_NS);
    }

    int processId() {
        return buffer.getInt(offset + RoctracerRecord.PROCESS_ID);
    }

    /** gettid() of the calling thread, an unsigned 32-bit value. */
    long threadId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + RoctracerRecord.THREAD_ID));
    }
}
