package org.flagos.trace.vendors.cupti;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.testing.CuptiRecords;

/**
 * A real H200 capture with CUPTI MEMORY2 records ({@code CUpti_ActivityMemory4}, 128 bytes, offsets
 * from gcc's {@code offsetof} against CUDA 13.0's header) written in beside its runtime calls: one
 * allocation per {@code cudaMalloc}, one release per {@code cudaFree} (of the allocations in order),
 * each stamped 1 ns after its call starts and placed just before the call's record, where CUPTI
 * writes it (inside the call, in the calling thread's buffer). Allocation {@code i} is at
 * {@code 0x7f00_0000_0000 + i·2^24} and holds {@code (i + 1) MiB}.
 */
public final class MemoryCapture {
    /** {@code CUPTI_ACTIVITY_KIND_MEMORY2}. */
    public static final int MEMORY2 = CuptiActivityKind.MEMORY2;
    public static final int RECORD_SIZE = 128;
    static final int CUDA_MALLOC = 20;
    static final int CUDA_FREE = 22;
    public static final long BASE_ADDRESS = 0x7f00_0000_0000L;

    /** Where a memory record goes relative to its call's record. */
    public enum Placement { BEFORE_CALL, AFTER_CALL }

    private MemoryCapture() {
    }

    /** One Memory4 record. */
    public static byte[] record(int operation, int memoryKind, long correlation, long address, long bytes, long timestamp,
                                int processId, int device, int stream) {
        ByteBuffer b = ByteBuffer.allocate(RECORD_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, MEMORY2);
        b.putInt(4, operation);
        b.putInt(8, memoryKind);
        b.putInt(12, (int) correlation);
        b.putLong(16, address);
        b.putLong(24, bytes);
        b.putLong(32, timestamp);
        b.putInt(48, processId);
        b.putInt(52, device);
        b.putInt(56, 1);
        b.putInt(60, stream);
        return b.array();
    }

    /** The frames with a memory record beside every {@code cudaMalloc} and {@code cudaFree}. */
    public static UnaryOperator<List<CaptureReplay.Frame>> injected(Placement placement) {
        return frames -> {
            List<CaptureReplay.Frame> out = new ArrayList<>();
            int allocations = 0;
            int releases = 0;
            for (CaptureReplay.Frame frame : frames) {
                ByteBuffer in = frame.payload().duplicate().order(ByteOrder.LITTLE_ENDIAN);
                ByteBuffer copy = ByteBuffer.allocate(in.remaining() * 2 + 4096).order(ByteOrder.LITTLE_ENDIAN);
                int pos = in.position();
                while (pos < in.limit()) {
                    int kind = in.getInt(pos);
                    int size = CuptiActivityKind.recordSize(kind);
                    byte[] memory = null;
                    if (kind == CuptiActivityKind.RUNTIME) {
                        int cbid = in.getInt(pos + 4);
                        long start = in.getLong(pos + 8);
                        int pid = in.getInt(pos + 24);
                        long corr = Integer.toUnsignedLong(in.getInt(pos + 32));
                        if (cbid == CUDA_MALLOC) {
                            memory = record(CuptiMemoryDecoder.ALLOCATION, 3, corr, address(allocations), bytes(allocations),
                                    start + 1, pid, 0, 0);
                            allocations++;
                        } else if (cbid == CUDA_FREE) {
                            memory = record(CuptiMemoryDecoder.RELEASE, 3, corr, address(releases), bytes(releases),
                                    start + 1, pid, 0, 0);
                            releases++;
                        }
                    }
                    if (memory != null && placement == Placement.BEFORE_CALL) {
                        copy.put(memory);
                    }
                    copy.put(in.duplicate().position(pos).limit(pos + size));
                    if (memory != null && placement == Placement.AFTER_CALL) {
                        copy.put(memory);
                    }
                    pos += size;
                }
                copy.flip();
                out.add(new CaptureReplay.Frame(frame.vendor(), copy.slice().order(ByteOrder.LITTLE_ENDIAN)));
            }
            return out;
        };
    }

    /** Then {@code more} applied to the injected frames. */
    public static UnaryOperator<List<CaptureReplay.Frame>> injected(Placement placement,
                                                                    UnaryOperator<List<CaptureReplay.Frame>> more) {
        UnaryOperator<List<CaptureReplay.Frame>> first = injected(placement);
        return frames -> more.apply(first.apply(frames));
    }

    /** One more frame holding {@code records}, after the capture's. */
    public static UnaryOperator<List<CaptureReplay.Frame>> appended(byte[]... records) {
        return frames -> {
            int n = 0;
            for (byte[] r : records) {
                n += r.length;
            }
            ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
            for (byte[] r : records) {
                b.put(r);
            }
            b.flip();
            List<CaptureReplay.Frame> out = new ArrayList<>(frames);
            out.add(new CaptureReplay.Frame(frames.get(0).vendor(), b));
            return out;
        };
    }

    /** Every record of every frame in a frame of its own, in {@code order}'s order. */
    public static UnaryOperator<List<CaptureReplay.Frame>> oneFramePerRecord(UnaryOperator<List<CaptureReplay.Frame>> order) {
        return frames -> order.apply(CuptiRecords.oneFramePerRecord(frames));
    }

    public static long address(int allocation) {
        return BASE_ADDRESS + ((long) allocation << 24);
    }

    public static long bytes(int allocation) {
        return (allocation + 1L) << 20;
    }
}
