package org.flagos.trace.vendors.mspti;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over an {@code msptiActivityMemcpy} record, read in place. Device and stream are flat
 * fields here (not the kernel's {@code ds} pair); there is no context and no memory kind, so the
 * trace names the copy by direction only ({@code Memcpy HtoD}).
 */
final class MsptiMemcpyRecord {
    static final int SIZE = 56;
    private static final int COPY_KIND = 4;
    private static final int BYTES = 8;
    private static final int START = 16;
    private static final int END = 24;
    private static final int DEVICE_ID = 32;
    private static final int STREAM_ID = 36;
    private static final int CORRELATION_ID = 40;

    static final EventTranslatorOneArg<TraceRecord, MsptiMemcpyRecord> TRANSLATOR = (slot, sequence, m) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.MEMCPY;
        slot.startNs = m.start();
        slot.endNs = m.end();
        slot.device = m.logicalDevice;
        slot.stream = m.streamId();
        slot.correlation(m.correlationId());
        slot.bytes = m.bytes();
        slot.copyKind = copyKind(m.copyKind());
        slot.present(RecordField.BYTES);
    };

    private ByteBuffer buffer;
    private int offset;
    int logicalDevice;

    MsptiMemcpyRecord wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, SIZE, "msptiActivityMemcpy");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** {@code msptiActivityMemcpyKind}: UNKNOWN 0, HTOH 1, HTOD 2, DTOH 3, DTOD 4, DEFAULT 5. */
    static CopyKind copyKind(int kind) {
        switch (kind) {
            case 1: return CopyKind.HTOH;
            case 2: return CopyKind.HTOD;
            case 3: return CopyKind.DTOH;
            case 4: return CopyKind.DTOD;
            default: return CopyKind.UNKNOWN;
        }
    }

    int copyKind() {
        return buffer.getInt(offset + COPY_KIND);
    }

    long bytes() {
        return buffer.getLong(offset + BYTES);
    }

    long start() {
        return buffer.getLong(offset + START);
    }

    long end() {
        return buffer.getLong(offset + END);
    }

    int deviceId() {
        return buffer.getInt(offset + DEVICE_ID);
    }

    int streamId() {
        return buffer.getInt(offset + STREAM_ID);
    }

    long correlationId() {
        return buffer.getLong(offset + CORRELATION_ID);
    }
}
