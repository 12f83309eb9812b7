package org.flagos.trace.vendors.cupti;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over a {@code CUpti_ActivityExternalCorrelation} record, read in place, little-endian:
 * the only bridge between CUPTI's correlation id and the host op's External id.
 */
public final class CuptiExternalCorrelationDecoder {
    /** The record's size, in every CUPTI version. */
    public static final int SIZE = 24;
    /** CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0: the kind flagtrace (like torch) pushes op ids as. */
    static final int CUSTOM0 = 3;
    private static final int EXTERNAL_KIND = 4;
    private static final int EXTERNAL_ID = 8;
    private static final int CORRELATION_ID = 16;

    static final EventTranslatorOneArg<TraceRecord, CuptiExternalCorrelationDecoder> TRANSLATOR =
            (slot, sequence, ext) -> {
                slot.clear();
                slot.type = RecordType.CORRELATION_BINDING;
                slot.correlation(ext.correlationId());
                slot.externalId(ext.externalId());
            };

    private ByteBuffer buffer;
    private int offset;

    CuptiExternalCorrelationDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, "CUpti_ActivityExternalCorrelation");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    int externalKind() {
        return buffer.getInt(offset + EXTERNAL_KIND);
    }

    /** The pushed id as CUPTI stores it: an unsigned 64-bit value (negative here when above 2^63). */
    long externalId() {
        return buffer.getLong(offset + EXTERNAL_ID);
    }

    long correlationId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CORRELATION_ID));
    }

    /**
     * Writes one record at {@code offset} of {@code out} (little-endian): how a tracer that binds
     * External ids at API enter saves those bindings in a capture, in the vendor's own record shape.
     */
    public static void write(ByteBuffer out, int offset, int kind, int externalKind, long externalId, long correlation) {
        ByteBuffer b = out.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(offset, kind);
        b.putInt(offset + EXTERNAL_KIND, externalKind);
        b.putLong(offset + EXTERNAL_ID, externalId);
        b.putInt(offset + CORRELATION_ID, (int) correlation);
        b.putInt(offset + 20, 0);
    }
}
