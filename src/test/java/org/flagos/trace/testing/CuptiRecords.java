package org.flagos.trace.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.vendors.cupti.CuptiRecordLayout;

/**
 * CUPTI 13.0 records written field by field at the offsets of {@code cupti-13.0-layouts.json}
 * (kernels, API calls, bindings, overhead) and of {@code CUpti_ActivitySynchronization2} (kind 4,
 * type 4, start 8, end 16, correlationId 24, contextId 28, streamId 32, cudaEventId 36,
 * cudaEventSyncId 40, returnValue 48; 56 bytes), into one buffer: a frame a replay can take.
 */
public final class CuptiRecords {
    public static final int KERNEL_SIZE = 216;
    public static final int SYNC_SIZE = 56;
    public static final int OVERHEAD_SIZE = 56;
    /** CUPTI's "not applicable" stream or event id of a synchronization record. */
    public static final int INVALID = -1;

    private final List<byte[]> records = new ArrayList<>();

    /** A CONCURRENT_KERNEL record ({@code CUpti_ActivityKernel10}), launched from graph {@code graphId} (0: none). */
    public CuptiRecords kernel(long start, long end, int device, int context, int stream, int correlation, long nameHandle,
                               int graphId, long graphNodeId) {
        ByteBuffer b = record(KERNEL_SIZE, 10);
        b.putShort(6, (short) 16);
        b.putLong(16, start).putLong(24, end).putInt(40, device).putInt(44, context).putInt(48, stream);
        b.putInt(52, 4).putInt(56, 1).putInt(60, 1).putInt(64, 128).putInt(68, 1).putInt(72, 1);
        b.putInt(92, correlation).putLong(104, nameHandle);
        b.putLong(144, graphNodeId).putInt(156, graphId);
        return this;
    }

    /** A RUNTIME record ({@code CUpti_ActivityAPI}). */
    public CuptiRecords runtime(int cbid, long start, long end, int pid, int tid, int correlation) {
        ByteBuffer b = record(40, 5);
        b.putInt(4, cbid).putLong(8, start).putLong(16, end).putInt(24, pid).putInt(28, tid).putInt(32, correlation);
        return this;
    }

    /** A CUSTOM0 binding ({@code CUpti_ActivityExternalCorrelation}): {@code correlation} to External id {@code external}. */
    public CuptiRecords binding(int correlation, long external) {
        ByteBuffer b = record(24, 39);
        b.putInt(4, 3).putLong(8, external).putInt(16, correlation);
        return this;
    }

    /** A SYNCHRONIZATION record of CUPTI type {@code type} (1 event, 2 stream wait event, 3 stream, 4 context). */
    public CuptiRecords sync(int type, long start, long end, int correlation, int context, int stream, int eventId) {
        ByteBuffer b = record(SYNC_SIZE, 38);
        b.putInt(4, type).putLong(8, start).putLong(16, end).putInt(24, correlation).putInt(28, context)
                .putInt(32, stream).putInt(36, eventId).putLong(40, eventId == INVALID ? -1L : 1000L + eventId);
        return this;
    }

    /** An OVERHEAD record ({@code CUpti_ActivityOverhead3}) of {@code overheadKind}, on thread {@code tid} of {@code pid}. */
    public CuptiRecords overhead(int overheadKind, long start, long end, int pid, int tid) {
        ByteBuffer b = record(OVERHEAD_SIZE, 17);
        b.putInt(4, overheadKind).putInt(8, 2 /* CUPTI_ACTIVITY_OBJECT_THREAD */).putInt(12, pid).putInt(16, tid);
        b.putLong(24, start).putLong(32, end);
        return this;
    }

    /** CUPTI's marker flags: an instantaneous mark, a range's start, a range's end. */
    public static final int MARK = 1;
    public static final int START = 2;
    public static final int END = 4;
    public static final int MARKER_SIZE = 56;
    public static final int MARKER_DATA_SIZE = 40;

    /**
     * A MARKER record ({@code CUpti_ActivityMarker2}: flags 4, timestamp 8, id 16, objectKind 20 =
     * thread, processId 24, threadId 28, name 40, domain 48) of NVTX range or mark {@code id}.
     */
    public CuptiRecords marker(int flags, long timestamp, int id, int pid, int tid, long namePointer, long domainPointer) {
        ByteBuffer b = record(MARKER_SIZE, 12);
        b.putInt(4, flags).putLong(8, timestamp).putInt(16, id).putInt(20, 2 /* CUPTI_ACTIVITY_OBJECT_THREAD */)
                .putInt(24, pid).putInt(28, tid).putLong(40, namePointer).putLong(48, domainPointer);
        return this;
    }

    /** A MARKER_DATA record ({@code CUpti_ActivityMarkerData2}) for marker {@code id}: a 64-bit payload, colour, category. */
    public CuptiRecords markerData(int id, long payload, int argb, int category) {
        ByteBuffer b = record(MARKER_DATA_SIZE, 13);
        b.putInt(4, START).putInt(8, id).putInt(12, 1).putLong(16, payload).putInt(24, argb).putInt(28, category).putInt(32, 1);
        return this;
    }

    public static final int PEER_COPY_SIZE = 96;
    /** {@code CUPTI_ACTIVITY_MEMCPY_KIND_PTOP}. */
    public static final int COPY_PTOP = 10;

    /**
     * A MEMCPY2 record ({@code CUpti_ActivityMemcpyPtoP4}, offsets from gcc's {@code offsetof} against
     * CUDA 13.0: copyKind 4 (PTOP), srcKind 5, dstKind 6 (device), flags 7, bytes 8, start 16, end 24,
     * deviceId 32, contextId 36, streamId 40, srcDeviceId 44, srcContextId 48, dstDeviceId 52,
     * dstContextId 56, correlationId 60, graphNodeId 72, graphId 80, channelID 84, channelType 88):
     * a copy from {@code srcDevice} to {@code dstDevice} run by {@code device} on {@code stream}.
     * Synthetic: a machine of one GPU writes none.
     */
    public CuptiRecords peerCopy(long start, long end, long bytes, int device, int context, int stream, int srcDevice,
                                 int srcContext, int dstDevice, int dstContext, int correlation, int graphId,
                                 long graphNodeId) {
        ByteBuffer b = record(PEER_COPY_SIZE, 22);
        b.put(4, (byte) COPY_PTOP).put(5, (byte) 3).put(6, (byte) 3).put(7, (byte) 1);
        b.putLong(8, bytes).putLong(16, start).putLong(24, end);
        b.putInt(32, device).putInt(36, context).putInt(40, stream);
        b.putInt(44, srcDevice).putInt(48, srcContext).putInt(52, dstDevice).putInt(56, dstContext);
        b.putInt(60, correlation).putLong(64, 0).putLong(72, graphNodeId).putInt(80, graphId);
        b.putInt(84, 6).putInt(88, 1); // a channel, as CUPTI writes one; not drawn
        return this;
    }

    private ByteBuffer record(int size, int kind) {
        byte[] bytes = new byte[size];
        records.add(bytes);
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(0, kind);
    }

    /** The records back to back, as CUPTI packs them. */
    public byte[] bytes() {
        int n = 0;
        for (byte[] r : records) {
            n += r.length;
        }
        ByteBuffer out = ByteBuffer.allocate(n);
        for (byte[] r : records) {
            out.put(r);
        }
        return out.array();
    }

    /** The records as one CUPTI frame of a replay. */
    public CaptureReplay.Frame frame() {
        return new CaptureReplay.Frame(1, ByteBuffer.wrap(bytes()).order(ByteOrder.LITTLE_ENDIAN));
    }

    /** {@link #oneFramePerRecord}, shuffled with {@code seed}. */
    public static List<CaptureReplay.Frame> shuffledRecords(List<CaptureReplay.Frame> frames, long seed) {
        List<CaptureReplay.Frame> records = oneFramePerRecord(frames);
        Collections.shuffle(records, new Random(seed));
        return records;
    }

    /**
     * Every record of {@code frames} (CUPTI 13.0 buffers, sized by {@link CuptiRecordLayout#CUPTI_13_0})
     * in a frame of its own, of its buffer's vendor, in the frames' order.
     */
    public static List<CaptureReplay.Frame> oneFramePerRecord(List<CaptureReplay.Frame> frames) {
        List<CaptureReplay.Frame> records = new ArrayList<>();
        for (CaptureReplay.Frame frame : frames) {
            ByteBuffer b = frame.payload().duplicate().order(ByteOrder.LITTLE_ENDIAN);
            for (int pos = b.position(); pos < b.limit(); ) {
                int size = CuptiRecordLayout.CUPTI_13_0.recordSize(b.getInt(pos));
                ByteBuffer one = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
                one.position(pos).limit(pos + size);
                records.add(new CaptureReplay.Frame(frame.vendor(), one.slice().order(ByteOrder.LITTLE_ENDIAN)));
                pos += size;
            }
        }
        return records;
    }
}
