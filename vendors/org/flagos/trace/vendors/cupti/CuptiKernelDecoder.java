package org.flagos.trace.vendors.cupti;

import org.flagos.trace.vendors.activity.RecordBounds;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over a CUPTI kernel record (kinds KERNEL and CONCURRENT_KERNEL), read in place, little-endian:
 * {@code CUpti_ActivityKernel10}, {@code Kernel9} or {@code Kernel6}, whose fields read here sit at
 * the same offsets (the layout row says which, and so how long a record is). Times are published as
 * the decoder's clock accepted them. The name is a pointer into the capturing process, copied as a
 * handle: the name stage resolves it (once per kernel) and fills the occupancy figures, through the
 * decoder's {@link RecordNaming}.
 */
final class CuptiKernelDecoder {
    private static final int REGISTERS_PER_THREAD = 6;
    private static final int START = 16;
    private static final int END = 24;
    private static final int DEVICE_ID = 40;
    private static final int CONTEXT_ID = 44;
    private static final int STREAM_ID = 48;
    private static final int GRID_X = 52;
    private static final int GRID_Y = 56;
    private static final int GRID_Z = 60;
    private static final int BLOCK_X = 64;
    private static final int BLOCK_Y = 68;
    private static final int BLOCK_Z = 72;
    private static final int STATIC_SHARED_MEMORY = 76;
    private static final int DYNAMIC_SHARED_MEMORY = 80;
    private static final int CORRELATION_ID = 92;
    private static final int NAME = 104;
    private static final int QUEUED = 120;
    private static final int GRAPH_NODE_ID = 144;
    private static final int GRAPH_ID = 156;

    static final EventTranslatorOneArg<TraceRecord, CuptiKernelDecoder> TRANSLATOR = (slot, sequence, k) -> {
        CuptiActivitySlot.fill(slot, EventKind.KERNEL, k.times.startNs(), k.times.endNs(),
                k.deviceId(), k.contextId(), k.streamId(), k.correlationId());
        slot.gridX = k.gridX();
        slot.gridY = k.gridY();
        slot.gridZ = k.gridZ();
        slot.blockX = k.blockX();
        slot.blockY = k.blockY();
        slot.blockZ = k.blockZ();
        slot.registersPerThread = k.registersPerThread();
        slot.staticSharedMemory = k.staticSharedMemory();
        slot.dynamicSharedMemory = k.dynamicSharedMemory();
        slot.queued = k.times.toEpoch(k.queued());
        slot.presentAll(RecordField.CUDA_KERNEL);
        slot.nameHandle = k.nameHandle();
        slot.naming = k.naming;
        if (k.graphIds) {
            CuptiGraphIds.publish(slot, k.buffer, k.offset + GRAPH_NODE_ID, k.offset + GRAPH_ID);
        }
    };

    private final RecordNaming naming;
    private final CuptiTimes times;
    private final int size;
    private final String record;
    private final boolean graphIds;
    private ByteBuffer buffer;
    private int offset;

    CuptiKernelDecoder(RecordNaming naming, CuptiRecordLayout layout, CuptiTimes times) {
        this.naming = naming;
        this.times = times;
        this.size = layout.kernelSize;
        this.record = layout.kernelRecord;
        this.graphIds = layout.graphIds;
    }

    CuptiKernelDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, size, record);
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    int registersPerThread() {
        return Short.toUnsignedInt(buffer.getShort(offset + REGISTERS_PER_THREAD));
    }

    long rawStart() {
        return buffer.getLong(offset + START);
    }

    long rawEnd() {
        return buffer.getLong(offset + END);
    }


    int deviceId() {
        return buffer.getInt(offset + DEVICE_ID);
    }

    int contextId() {
        return buffer.getInt(offset + CONTEXT_ID);
    }

    int streamId() {
        return buffer.getInt(offset + STREAM_ID);
    }

    int gridX() {
        return buffer.getInt(offset + GRID_X);
    }

    int gridY() {
        return buffer.getInt(offset + GRID_Y);
    }

    int gridZ() {
        return buffer.getInt(offset + GRID_Z);
    }

    int blockX() {
        return buffer.getInt(offset + BLOCK_X);
    }

    int blockY() {
        return buffer.getInt(offset + BLOCK_Y);
    }

    int blockZ() {
        return buffer.getInt(offset + BLOCK_Z);
    }

    int staticSharedMemory() {
        return buffer.getInt(offset + STATIC_SHARED_MEMORY);
    }

    int dynamicSharedMemory() {
        return buffer.getInt(offset + DYNAMIC_SHARED_MEMORY);
    }

    long correlationId() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CORRELATION_ID));
    }

    long nameHandle() {
        return buffer.getLong(offset + NAME);
    }

    long queued() {
        return buffer.getLong(offset + QUEUED);
    }
}
