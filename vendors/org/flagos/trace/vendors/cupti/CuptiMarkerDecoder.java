package org.flagos.trace.vendors.cupti;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.MarkerPhase;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.activity.RecordBounds;

/**
 * Flyweight over a CUPTI MARKER record ({@code CUpti_ActivityMarker2}, 56 bytes in CUPTI 13.0), read
 * in place, little-endian: one NVTX mark, range start or range end as CUPTI received it as NVTX's
 * injection library. Offsets are gcc's {@code offsetof} against CUDA 13.0's {@code cupti_activity.h}
 * (the kinds capture's layouts): flags 4, timestamp 8, id 16, objectKind 20, objectId 24 (for a
 * thread: processId 24, threadId 28), name 40, domain 48. The name and domain are pointers into the
 * capturing process, copied as handles; the name stage resolves them. A range's start and end share
 * its id (push/pop ranges too); only the start carries the name.
 */
final class CuptiMarkerDecoder {
    /** {@code CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS}. */
    static final int INSTANTANEOUS = 1;
    /** {@code CUPTI_ACTIVITY_FLAG_MARKER_START}. */
    static final int START = 2;
    /** {@code CUPTI_ACTIVITY_FLAG_MARKER_END}. */
    static final int END = 4;
    /** {@code CUPTI_ACTIVITY_OBJECT_PROCESS}. */
    static final int OBJECT_PROCESS = 1;
    /** {@code CUPTI_ACTIVITY_OBJECT_THREAD}. */
    static final int OBJECT_THREAD = 2;

    private static final int FLAGS = 4;
    private static final int TIMESTAMP = 8;
    private static final int ID = 16;
    private static final int OBJECT_KIND = 20;
    private static final int PROCESS_ID = 24;
    private static final int THREAD_ID = 28;
    private static final int NAME = 40;
    private static final int DOMAIN = 48;
    /** The fields read end here. */
    static final int FIELDS_END = 56;

    static final EventTranslatorOneArg<TraceRecord, CuptiMarkerDecoder> TRANSLATOR = (slot, sequence, m) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.MARKER;
        slot.startNs = m.times.startNs();
        slot.endNs = slot.startNs;
        slot.markerPhase = m.phase();
        slot.markerId = m.id();
        int objectKind = m.objectKind();
        if (objectKind == OBJECT_THREAD || objectKind == OBJECT_PROCESS) {
            slot.processId = m.processId();
            slot.threadId = objectKind == OBJECT_THREAD ? m.threadId() : 0;
        }
        slot.nameHandle = m.namePointer();
        slot.domainHandle = m.domainPointer();
        slot.naming = m.naming;
    };

    private final CuptiTimes times;
    private final RecordNaming naming;
    private final int size;
    private ByteBuffer buffer;
    private int offset;

    CuptiMarkerDecoder(CuptiRecordLayout layout, CuptiTimes times, RecordNaming naming) {
        this.times = times;
        this.naming = naming;
        this.size = Math.max(layout.recordSize(CuptiActivityKind.MARKER), FIELDS_END);
    }

    CuptiMarkerDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, size, "CUpti_ActivityMarker2");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** Why this record cannot be drawn (not exactly one of start, end and instantaneous), or null. */
    String invalid() {
        return phase() == null
                ? "marker record " + Integer.toUnsignedString(id()) + " with flags 0x" + Integer.toHexString(flags())
                        + " (not exactly one of start, end, instantaneous)"
                : null;
    }

    /** The record's phase, or null when its flags name none or several. */
    MarkerPhase phase() {
        switch (flags() & (INSTANTANEOUS | START | END)) {
            case START: return MarkerPhase.START;
            case END: return MarkerPhase.END;
            case INSTANTANEOUS: return MarkerPhase.INSTANT;
            default: return null;
        }
    }

    int flags() {
        return buffer.getInt(offset + FLAGS);
    }

    long rawTimestamp() {
        return buffer.getLong(offset + TIMESTAMP);
    }

    /** CUPTI's marker id, an unsigned 32-bit value. */
    int id() {
        return buffer.getInt(offset + ID);
    }

    int objectKind() {
        return buffer.getInt(offset + OBJECT_KIND);
    }

    int processId() {
        return buffer.getInt(offset + PROCESS_ID);
    }

    /** CUPTI's thread id, an unsigned 32-bit value (the same id its API records carry). */
    long threadId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + THREAD_ID));
    }

    long namePointer() {
        return buffer.getLong(offset + NAME);
    }

    long domainPointer() {
        return buffer.getLong(offset + DOMAIN);
    }
}
