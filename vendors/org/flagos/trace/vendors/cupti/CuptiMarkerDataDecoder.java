package org.flagos.trace.vendors.cupti;

import java.nio.ByteBuffer;
import org.flagos.trace.vendors.activity.RecordBounds;

/**
 * Flyweight over a CUPTI MARKER_DATA record ({@code CUpti_ActivityMarkerData2}, 40 bytes in CUPTI
 * 13.0), read in place, little-endian: the colour, category and payload an NVTX call's event
 * attributes gave the marker of the same id. Offsets (gcc's {@code offsetof}, CUDA 13.0): flags 4,
 * id 8, payloadKind 12, payload 16, color 24, category 28, cuptiDomainId 32.
 *
 * <p>torch's {@code user_annotation} has no field for any of them, so the buffer walk checks the
 * record's bounds and counts it as read ({@code markers.data_records_read} in the accounting); no
 * slot is published. The accessors are what a later arg would read.
 */
final class CuptiMarkerDataDecoder {
    private static final int ID = 8;
    private static final int PAYLOAD_KIND = 12;
    private static final int PAYLOAD = 16;
    private static final int COLOR = 24;
    private static final int CATEGORY = 28;
    /** The fields read end here. */
    static final int FIELDS_END = 36;

    private final int size;
    private ByteBuffer buffer;
    private int offset;

    CuptiMarkerDataDecoder(CuptiRecordLayout layout) {
        this.size = Math.max(layout.recordSize(CuptiActivityKind.MARKER_DATA), FIELDS_END);
    }

    CuptiMarkerDataDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, size, "CUpti_ActivityMarkerData2");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** The id of the marker these attributes belong to (unsigned 32 bits). */
    int id() {
        return buffer.getInt(offset + ID);
    }

    /** {@code CUpti_MetricValueKind} of the payload (1: unsigned 64-bit). */
    int payloadKind() {
        return buffer.getInt(offset + PAYLOAD_KIND);
    }

    /** The payload's 8 bytes, as {@link #payloadKind} says to read them. */
    long payloadBits() {
        return buffer.getLong(offset + PAYLOAD);
    }

    /** ARGB. */
    int color() {
        return buffer.getInt(offset + COLOR);
    }

    int category() {
        return buffer.getInt(offset + CATEGORY);
    }
}
