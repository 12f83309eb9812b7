package org.flagos.trace.vendors.mspti;

import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.activity.RecordBounds;

/**
 * What MSPTI's {@code msptiActivityMemcpy} and {@code msptiActivityMemset} share: 56 bytes each, with
 * bytes, start, end, a flat device and stream and a 64-bit correlation id at the same offsets (8 to
 * 47); each view adds the int at 4 (the copy kind, or the value set). One flyweight base reads them,
 * read in place; every method is final, so the translators call them directly.
 */
abstract class MsptiTransferRecord {
    static final int SIZE = 56;
    private static final int BYTES = 8;
    private static final int START = 16;
    private static final int END = 24;
    private static final int DEVICE_ID = 32;
    private static final int STREAM_ID = 36;
    private static final int CORRELATION_ID = 40;

    private final String record;
    ByteBuffer buffer;
    int offset;
    /** The device's logical ordinal, set by the decoder from {@link #deviceId()}. */
    int logicalDevice;

    /** @param record the struct's name, for a bounds problem */
    MsptiTransferRecord(String record) {
        this.record = record;
    }

    final void wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, record);
        this.buffer = buffer;
        this.offset = offset;
    }

    final long bytes() {
        return buffer.getLong(offset + BYTES);
    }

    final long start() {
        return buffer.getLong(offset + START);
    }

    final long end() {
        return buffer.getLong(offset + END);
    }

    final int deviceId() {
        return buffer.getInt(offset + DEVICE_ID);
    }

    final int streamId() {
        return buffer.getInt(offset + STREAM_ID);
    }

    final long correlationId() {
        return buffer.getLong(offset + CORRELATION_ID);
    }

    /** The slot's activity fields: {@code kind}, times, logical device, stream, correlation id and bytes. */
    final void fill(TraceRecord slot, EventKind kind) {
        slot.activity(kind, start(), end(), correlationId());
        slot.device = logicalDevice;
        slot.stream = streamId();
        slot.bytes = bytes();
    }
}
