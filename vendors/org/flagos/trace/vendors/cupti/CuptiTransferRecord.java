package org.flagos.trace.vendors.cupti;

import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.activity.RecordBounds;

/**
 * What CUPTI's memcpy ({@code CUpti_ActivityMemcpy6/5/4}), memset ({@code CUpti_ActivityMemset4/3}) and
 * peer-copy ({@code CUpti_ActivityMemcpyPtoP4}) records share at the same offsets: bytes, start, end,
 * device, context and stream (8 to 43), and for the two copies their copy, source and destination
 * kinds (4 to 6). One flyweight base reads them; each record's view adds its own fields (the
 * correlation id and graph ids sit elsewhere in a peer copy). Every method here is final: the
 * translators call them directly, as they would their own.
 */
abstract class CuptiTransferRecord {
    private static final int COPY_KIND = 4;
    private static final int SRC_KIND = 5;
    private static final int DST_KIND = 6;
    private static final int BYTES = 8;
    private static final int START = 16;
    private static final int END = 24;
    private static final int DEVICE_ID = 32;
    private static final int CONTEXT_ID = 36;
    private static final int STREAM_ID = 40;

    final CuptiTimes times;
    private final int size;
    private final String record;
    private final boolean graphIds;
    ByteBuffer buffer;
    int offset;

    /**
     * @param size     the record's size in the layout row (its bounds when wrapped)
     * @param record   the record's name, for a bounds problem
     * @param graphIds whether the row's records carry graph ids where CUPTI 12-13 put them
     */
    CuptiTransferRecord(CuptiTimes times, int size, String record, boolean graphIds) {
        this.times = times;
        this.size = size;
        this.record = record;
        this.graphIds = graphIds;
    }

    final void wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, size, record);
        this.buffer = buffer;
        this.offset = offset;
    }

    final long bytes() {
        return buffer.getLong(offset + BYTES);
    }

    final long rawStart() {
        return buffer.getLong(offset + START);
    }

    final long rawEnd() {
        return buffer.getLong(offset + END);
    }

    final int deviceId() {
        return buffer.getInt(offset + DEVICE_ID);
    }

    final int contextId() {
        return buffer.getInt(offset + CONTEXT_ID);
    }

    final int streamId() {
        return buffer.getInt(offset + STREAM_ID);
    }

    /** The slot's activity fields: {@code kind}, the accepted times, device, context, stream and {@code correlation}. */
    final void fill(TraceRecord slot, EventKind kind, long correlation) {
        CuptiActivitySlot.fill(slot, kind, times.startNs(), times.endNs(), deviceId(), contextId(), streamId(), correlation);
    }

    /** A copy's bytes and its copy, source and destination kinds (memcpy and peer-copy records only). */
    final void fillCopy(TraceRecord slot) {
        CuptiActivitySlot.fillCopy(slot, bytes(), Byte.toUnsignedInt(buffer.get(offset + COPY_KIND)),
                Byte.toUnsignedInt(buffer.get(offset + SRC_KIND)), Byte.toUnsignedInt(buffer.get(offset + DST_KIND)));
    }

    /** The graph ids at {@code nodeAt} and {@code graphAt} of the record, when the layout row has them. */
    final void publishGraphIds(TraceRecord slot, int nodeAt, int graphAt) {
        if (graphIds) {
            CuptiGraphIds.publish(slot, buffer, offset + nodeAt, offset + graphAt);
        }
    }
}
