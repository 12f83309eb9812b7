package org.flagos.trace.report;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The device time of each External id (microseconds, summed in trace order as torch appends an
 * op's kernels), appended in ascending id order and then looked up by binary search. Up to
 * {@link #IN_MEMORY} ids (by default) live on the heap; more go to a temporary file that is memory-mapped, so
 * a trace of millions of launches costs no heap for the join.
 */
final class DeviceTimeIndex implements Closeable {
    /** Ids held on the heap before the table moves to a file. */
    static final int IN_MEMORY = 1 << 18;
    private static final int ENTRY = 16;

    private final Path spillDir;
    private final SpillCounter counter;
    private long[] ids = new long[1024];
    private double[] sums = new double[1024];
    private int size;
    private Path file;
    /** The file being written, through {@link #buffer} (big-endian, as {@link #mapped} reads it). */
    private FileChannel out;
    private ByteBuffer buffer;
    private long fileEntries;
    private ByteBuffer mapped;

    private final int inMemory;

    DeviceTimeIndex(Path spillDir, SpillCounter counter, int inMemory) {
        this.spillDir = spillDir;
        this.counter = counter;
        this.inMemory = inMemory;
    }

    /** Adds {@code id}'s time; ids come in ascending order. */
    void append(long id, double us) throws IOException {
        if (out != null) {
            write(id, us);
            fileEntries++;
            return;
        }
        if (size == inMemory) {
            file = Files.createTempFile(spillDir, "flagtrace-device-", ".idx");
            file.toFile().deleteOnExit();
            out = FileChannel.open(file, StandardOpenOption.WRITE);
            buffer = ByteBuffer.allocate(1 << 16);
            for (int i = 0; i < size; i++) {
                write(ids[i], sums[i]);
            }
            fileEntries = size;
            ids = null;
            sums = null;
            append(id, us);
            return;
        }
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, size * 2);
            sums = Arrays.copyOf(sums, size * 2);
        }
        ids[size] = id;
        sums[size++] = us;
    }

    /** One entry to the file: its id and its time, as {@link #get} reads them. */
    private void write(long id, double us) throws IOException {
        if (buffer.remaining() < ENTRY) {
            drain();
        }
        buffer.putLong(id).putDouble(us);
    }

    private void drain() throws IOException {
        buffer.flip();
        while (buffer.hasRemaining()) {
            out.write(buffer);
        }
        buffer.clear();
    }

    /** Ends the appending; lookups may start. */
    void finish() throws IOException {
        if (out == null) {
            return;
        }
        drain();
        out.close();
        out = null;
        counter.add(fileEntries * ENTRY);
        if (fileEntries * ENTRY > Integer.MAX_VALUE) {
            throw new IOException("more than " + Integer.MAX_VALUE / ENTRY + " External ids carry device time");
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, fileEntries * ENTRY);
        }
    }

    /** The device time of {@code id}, or 0 when no device event carries it. */
    double get(long id) {
        long lo = 0;
        long hi = (mapped != null ? fileEntries : size) - 1;
        while (lo <= hi) {
            long mid = (lo + hi) >>> 1;
            long at = mapped != null ? mapped.getLong((int) (mid * ENTRY)) : ids[(int) mid];
            if (at < id) {
                lo = mid + 1;
            } else if (at > id) {
                hi = mid - 1;
            } else {
                return mapped != null ? mapped.getDouble((int) (mid * ENTRY + 8)) : sums[(int) mid];
            }
        }
        return 0;
    }

    @Override
    public void close() throws IOException {
        if (out != null) {
            out.close();
        }
        mapped = null;
        if (file != null) {
            Files.deleteIfExists(file);
        }
    }
}
