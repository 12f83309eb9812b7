package org.flagos.trace.vendors.cupti;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over a {@code CUpti_ActivityExternalCorrelation} record, read in place, little-endian:
 * the only bridge between CUPTI's correlation id and the host op's External id.
 *
 * <p>MSPTI's {@code msptiActivityExternalCorrelation} has the same 24 bytes (kind, externalKind,
 * externalId at 8, correlationId at 16) but for the width of the correlation id: CUPTI's is 32 bits
 * followed by 32 reserved ones, MSPTI's is 64 bits. One class reads both ({@link #wideCorrelation}): the id is
 * read as the 64 bits at 16 and masked to CUPTI's 32 (little-endian, so the low half is CUPTI's field).
 */
public final class CuptiExternalCorrelationDecoder {
    /** The record's size, in every CUPTI version (and MSPTI's). */
    public static final int SIZE = 24;
    /** CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0: the kind flagtrace (like torch) pushes op ids as. */
    static final int CUSTOM0 = 3;
    private static final int EXTERNAL_KIND = 4;
    private static final int EXTERNAL_ID = 8;
    private static final int CORRELATION_ID = 16;

    static final EventTranslatorOneArg<TraceRecord, CuptiExternalCorrelationDecoder> TRANSLATOR =
            (slot, sequence, ext) -> slot.binding(ext.correlationId(), ext.externalId());

    private final String record;
    /** The external kind flagtrace pushes its op ids as, in this vendor's numbering. */
    private final int custom0;
    /** The bits of the 64 at {@link #CORRELATION_ID} that are the correlation id. */
    private final long correlationMask;
    private ByteBuffer buffer;
    private int offset;

    /** A view of CUPTI's record (and of every CUPTI-shaped vendor's). */
    CuptiExternalCorrelationDecoder() {
        this("CUpti_ActivityExternalCorrelation", CUSTOM0, 0xFFFF_FFFFL);
    }

    private CuptiExternalCorrelationDecoder(String record, int custom0, long correlationMask) {
        this.record = record;
        this.custom0 = custom0;
        this.correlationMask = correlationMask;
    }

    /**
     * A view of a record of this layout whose correlation id is 64 bits (MSPTI's
     * {@code msptiActivityExternalCorrelation}).
     *
     * @param record  the struct's name, for a bounds problem
     * @param custom0 the vendor's number for the external kind flagtrace pushes its op ids as
     */
    public static CuptiExternalCorrelationDecoder wideCorrelation(String record, int custom0) {
        return new CuptiExternalCorrelationDecoder(record, custom0, -1L);
    }

    /** Wraps the record at {@code offset} of {@code buffer}, which must be little-endian. */
    public CuptiExternalCorrelationDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, record);
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

    /** The correlation id: CUPTI's unsigned 32 bits, or MSPTI's 64 (compare and print unsigned). */
    long correlationId() {
        return buffer.getLong(offset + CORRELATION_ID) & correlationMask;
    }

    /**
     * Publishes the wrapped record as a binding when it carries flagtrace's op ids (CUSTOM0) and its id
     * fits in 63 bits; another tool's external kind is counted as skipped under {@code kind}, an id
     * above 2^63 as invalid.
     */
    public void publish(int kind, RecordSink sink, DecodeStats stats) {
        if (externalKind() != custom0) {
            stats.countSkipped(kind); // another tool's external ids (CUSTOM1, OpenACC, ...)
        } else if (externalId() < 0) {
            stats.invalid("External id above 2^63 in correlation record " + Long.toUnsignedString(correlationId()));
        } else {
            sink.publish(TRANSLATOR, this);
            stats.countBinding();
        }
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
