package org.flagos.trace.benchmarks;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;

/**
 * CUPTI without a GPU, for timing a live session's close on any machine: each {@link #launchOne}
 * writes what one {@code cudaMemsetAsync} inside a pushed External id makes CUPTI 13.0 write (a
 * CUSTOM0 binding, a RUNTIME record, a {@code Memset4} record, 152 bytes) into a 1 MiB buffer, CUPTI's default size here.
 * A full buffer is decoded on a completion thread, as CUPTI's worker hands buffers over while the
 * program runs; {@link #stop()} hands over the partial buffer and returns once every buffer was
 * decoded, as {@code cuptiActivityFlushAll} does. Records are decoded by the real CUPTI decoder.
 * One launching thread (the probe's).
 */
final class SyntheticMemsetTracer implements DeviceTracer {
    private static final int BUFFER_BYTES = 1 << 20;
    private static final int CBID_MEMSET_ASYNC = 51;
    private static final int CBID_DEVICE_SYNCHRONIZE = 165;
    /** CUPTI 13.0's Synchronization2 and Overhead3 records: 56 B each. */
    private static final int SYNC_BYTES = 56;
    private static final int OVERHEAD_BYTES = 56;
    private static final ByteBuffer END = ByteBuffer.allocate(0);

    private final long epochOffsetNs = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
    private final ArrayDeque<ByteBuffer> pool = new ArrayDeque<>();
    private final int pid = (int) ProcessHandle.current().pid();
    private ActivityBufferDecoder decoder;
    private RecordSink sink;
    private DecodeStats stats;
    private BlockingQueue<ByteBuffer> completed;
    private Thread worker;
    private ByteBuffer buffer;
    private volatile boolean armed;
    private long external = -1;
    private int correlation = 1;

    @Override
    public String name() {
        return "synthetic";
    }

    @Override
    public boolean available() {
        return true;
    }

    @Override
    public String unavailableReason() {
        return "";
    }

    @Override
    public ApiNames apiNames() {
        return new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of()).apiNames();
    }

    @Override
    public synchronized void start(RecordSink sink, NameTable names, DecodeStats stats, BufferTap tap) {
        this.decoder = new CuptiBufferDecoder(KernelNames.NONE, names, List.of());
        this.sink = sink;
        this.stats = stats;
        this.completed = new ArrayBlockingQueue<>(64);
        this.buffer = take();
        this.worker = new Thread(this::complete, "synthetic-cupti-worker");
        worker.setDaemon(true);
        worker.start();
        armed = true;
    }

    private void complete() {
        try {
            for (ByteBuffer b = completed.take(); b != END; b = completed.take()) {
                decode(b);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void decode(ByteBuffer b) {
        b.flip();
        decoder.decode(b, sink, stats);
        b.clear();
        synchronized (pool) {
            pool.push(b);
        }
    }

    private ByteBuffer take() {
        synchronized (pool) {
            ByteBuffer b = pool.poll();
            return b != null ? b : ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    @Override
    public synchronized void stop() {
        if (!armed) {
            return;
        }
        armed = false;
        overhead(); // CUPTI accounts its own time in the last buffer too (before the worker ends: room() may hand it a buffer)
        try {
            completed.put(END);
            worker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while flushing", e);
        }
        if (buffer.position() > 0) {
            decode(buffer); // the forced flush's partial buffer, on the stopping thread
        } else {
            buffer.clear();
            pool.push(buffer);
        }
        buffer = null;
    }

    /** One launch as the op's thread makes it: binding, runtime call, memset, each stamped now. */
    void launchOne(int value) {
        if (!armed) {
            return;
        }
        if (!room(152)) {
            return;
        }
        int c = correlation++;
        ByteBuffer b = buffer;
        int at = b.position();
        long enter = timestampNs();
        if (external >= 0) {
            b.putInt(at, 39).putInt(at + 4, 3).putLong(at + 8, external).putInt(at + 16, c).putInt(at + 20, 0);
            at += 24;
        }
        long exit = timestampNs();
        b.putInt(at, 5).putInt(at + 4, CBID_MEMSET_ASYNC).putLong(at + 8, enter).putLong(at + 16, exit)
                .putInt(at + 24, pid).putInt(at + 28, (int) Thread.currentThread().getId()).putInt(at + 32, c).putInt(at + 36, 0);
        at += 40;
        for (int i = 0; i < 88; i += 8) {
            b.putLong(at + i, 0);
        }
        b.putInt(at, 2).putInt(at + 4, value).putLong(at + 8, 4).putLong(at + 16, exit + 1_000).putLong(at + 24, exit + 2_000)
                .putInt(at + 32, 0).putInt(at + 36, 1).putInt(at + 40, 7).putInt(at + 44, c).putShort(at + 50, (short) 3);
        b.position(at + 88);
    }

    /**
     * What {@code cudaDeviceSynchronize()} outside every op makes CUPTI write: its runtime call and a
     * context synchronization record (stream id CUPTI's invalid value), as the GPU probe ends its loop.
     */
    void synchronize() {
        if (!armed) {
            return;
        }
        room(40 + SYNC_BYTES);
        int c = correlation++;
        ByteBuffer b = buffer;
        int at = b.position();
        long enter = timestampNs();
        long exit = timestampNs() + 500;
        b.putInt(at, 5).putInt(at + 4, CBID_DEVICE_SYNCHRONIZE).putLong(at + 8, enter).putLong(at + 16, exit)
                .putInt(at + 24, pid).putInt(at + 28, (int) Thread.currentThread().getId()).putInt(at + 32, c).putInt(at + 36, 0);
        at += 40;
        for (int i = 0; i < SYNC_BYTES; i += 8) {
            b.putLong(at + i, 0);
        }
        b.putInt(at, 38).putInt(at + 4, 4 /* context */).putLong(at + 8, enter + 100).putLong(at + 16, exit - 100)
                .putInt(at + 24, c).putInt(at + 28, 1).putInt(at + 32, -1).putInt(at + 36, -1);
        b.position(at + SYNC_BYTES);
    }

    /** One OVERHEAD record (CUPTI's own time: a buffer flush), stamped now. */
    private void overhead() {
        room(OVERHEAD_BYTES);
        ByteBuffer b = buffer;
        int at = b.position();
        for (int i = 0; i < OVERHEAD_BYTES; i += 8) {
            b.putLong(at + i, 0);
        }
        long now = timestampNs();
        b.putInt(at, 17).putInt(at + 4, 0x10000 /* activity buffer flush */).putLong(at + 24, now - 2_000).putLong(at + 32, now - 1_000);
        b.position(at + OVERHEAD_BYTES);
    }

    /** Hands the buffer on when it has less than {@code bytes} left; false when interrupted meanwhile (the buffer is kept). */
    private boolean room(int bytes) {
        if (buffer.remaining() < bytes) {
            try {
                completed.put(buffer);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            buffer = take();
        }
        return true;
    }

    @Override
    public boolean pushCorrelation(ExternalId id) {
        if (!armed) {
            return false;
        }
        external = id.value();
        return true;
    }

    @Override
    public void popCorrelation() {
        external = -1;
    }

    @Override
    public int deviceCount() {
        return 1;
    }

    @Override
    public List<DeviceProperties> deviceProperties() {
        return List.of();
    }

    /** As {@code CuptiTracer.opSettleRecords()}: one buffer of CUPTI's densest records (32 B each). */
    @Override
    public int opSettleRecords() {
        return BUFFER_BYTES / 32;
    }

    @Override
    public long droppedByVendor() {
        return 0;
    }

    @Override
    public long timestampNs() {
        return epochOffsetNs + System.nanoTime();
    }
}
