package org.flagos.trace.vendors.cupti;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.SyncKind;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.activity.RecordBounds;

/**
 * Flyweight over a CUPTI synchronization record (kind SYNCHRONIZATION), read in place,
 * little-endian: {@code CUpti_ActivitySynchronization2} (CUPTI 13.0, 56 bytes) or {@code
 * CUpti_ActivitySynchronization} (40), whose fields read here sit at the same offsets: type 4, start
 * 8, end 16, correlationId 24, contextId 28, streamId 32, cudaEventId 36 (the layout row gives the
 * record's size). The record names no device: its context's device is the one the decoder learned
 * from the capture's device records ({@link CuptiContextDevices}). A stream of all ones (a context or
 * event synchronization, which concerns no stream) is published as stream -1, as torch writes it.
 */
final class CuptiSynchronizationDecoder {
    private static final int TYPE = 4;
    private static final int START = 8;
    private static final int END = 16;
    private static final int CORRELATION_ID = 24;
    private static final int CONTEXT_ID = 28;
    private static final int STREAM_ID = 32;
    private static final int EVENT_ID = 36;
    /** The fields read end here: the smallest record this flyweight can read. */
    static final int FIELDS_END = 40;

    /** CUPTI's synchronization types in the order of {@code CUpti_ActivitySynchronizationType} (0 unknown .. 4 context). */
    private static final SyncKind[] TYPES = {SyncKind.UNKNOWN, SyncKind.EVENT, SyncKind.STREAM_WAIT_EVENT,
        SyncKind.STREAM, SyncKind.CONTEXT};

    static final EventTranslatorOneArg<TraceRecord, CuptiSynchronizationDecoder> TRANSLATOR = (slot, sequence, s) -> {
        slot.activity(EventKind.SYNC, s.times.startNs(), s.times.endNs(), s.correlationId());
        slot.context = s.contextId();
        slot.device = s.device;
        slot.stream = s.streamId();
        slot.present(RecordField.CONTEXT);
        slot.syncKind = s.syncKind();
        slot.syncEventId = Integer.toUnsignedLong(s.buffer.getInt(s.offset + EVENT_ID));
    };

    private final CuptiTimes times;
    private final int size;
    private final String record;
    private ByteBuffer buffer;
    private int offset;
    /** The device of the record's context, set by the decoder before publishing. */
    int device;

    CuptiSynchronizationDecoder(CuptiRecordLayout layout, CuptiTimes times) {
        this.times = times;
        this.size = Math.max(layout.syncSize, FIELDS_END);
        this.record = layout.syncRecord;
    }

    CuptiSynchronizationDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, size, record);
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    SyncKind syncKind() {
        int type = buffer.getInt(offset + TYPE);
        return type > 0 && type < TYPES.length ? TYPES[type] : SyncKind.UNKNOWN;
    }

    long rawStart() {
        return buffer.getLong(offset + START);
    }

    long rawEnd() {
        return buffer.getLong(offset + END);
    }

    long correlationId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CORRELATION_ID));
    }

    int contextId() {
        return buffer.getInt(offset + CONTEXT_ID);
    }

    int streamId() {
        return buffer.getInt(offset + STREAM_ID);
    }
}
