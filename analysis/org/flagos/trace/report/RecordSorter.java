package org.flagos.trace.report;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An external sort of fixed-width records of longs, ordered by their first {@code keyWidth} longs
 * (signed, lexicographic). Records collect in one bounded buffer; a full buffer is sorted and
 * written to a temporary file (a run) under the spill directory; reading merges the runs. A sort
 * that fits its buffer never touches the disk. Every file it writes is deleted by {@link #close()}.
 */
final class RecordSorter implements Closeable {
    /** Bytes of read buffer for each run while merging. */
    private static final int RUN_BUFFER = 1 << 15;
    /** Bytes of write buffer while a run is written. */
    private static final int WRITE_BUFFER = 1 << 16;

    private final int width;
    private final int keyWidth;
    private final Path spillDir;
    private final SpillCounter counter;
    private final List<Path> runs = new ArrayList<>();
    private long[] buffer;
    private int records;
    private long size;
    private boolean reading;
    private int[] memoryOrder;

    /**
     * @param width longs a record
     * @param keyWidth the leading longs that order records
     * @param bufferLongs longs held in memory before a run is written
     */
    RecordSorter(int width, int keyWidth, int bufferLongs, Path spillDir, SpillCounter counter) {
        this.width = width;
        this.keyWidth = keyWidth;
        this.spillDir = spillDir;
        this.counter = counter;
        this.buffer = new long[Math.max(width, bufferLongs - bufferLongs % width)];
    }

    /** Appends {@code record} (its first {@code width} longs). */
    void add(long[] record) throws IOException {
        if (reading) {
            throw new IllegalStateException("add after sorted()");
        }
        if (records * width == buffer.length) {
            spill();
        }
        System.arraycopy(record, 0, buffer, records * width, width);
        records++;
        size++;
    }

    /** Records added. */
    long size() {
        return size;
    }

    private int compare(int a, int b) {
        int ia = a * width;
        int ib = b * width;
        for (int k = 0; k < keyWidth; k++) {
            int c = Long.compare(buffer[ia + k], buffer[ib + k]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private int[] sortedBuffer() {
        int[] idx = new int[records];
        for (int i = 0; i < records; i++) {
            idx[i] = i;
        }
        IndexOrder.sort(idx, records, this::compare);
        return idx;
    }

    private void spill() throws IOException {
        int[] idx = sortedBuffer();
        Path run = Files.createTempFile(spillDir, "flagtrace-sort-", ".run");
        run.toFile().deleteOnExit();
        runs.add(run);
        try (FileChannel out = FileChannel.open(run, StandardOpenOption.WRITE)) {
            // the machine's own byte order: a run is read back only by this process, and its longs are copied, not swapped
            ByteBuffer bytes = ByteBuffer.allocate(WRITE_BUFFER - WRITE_BUFFER % (width * Long.BYTES)).order(ByteOrder.nativeOrder());
            LongBuffer longs = bytes.asLongBuffer();
            for (int i : idx) {
                if (!longs.hasRemaining()) {
                    drain(out, bytes, longs);
                }
                longs.put(buffer, i * width, width);
            }
            drain(out, bytes, longs);
        }
        counter.add((long) records * width * Long.BYTES);
        records = 0;
    }

    private static void drain(FileChannel out, ByteBuffer bytes, LongBuffer longs) throws IOException {
        bytes.limit(longs.position() * Long.BYTES).position(0);
        while (bytes.hasRemaining()) {
            out.write(bytes);
        }
        bytes.clear();
        longs.clear();
    }

    /** The records in order, from the start; after the last {@link #add}, as often as needed. */
    Cursor sorted() throws IOException {
        if (!reading) {
            reading = true;
            if (runs.isEmpty()) {
                memoryOrder = sortedBuffer();
            } else {
                if (records > 0) {
                    spill();
                }
                buffer = null;
            }
        }
        return memoryOrder != null ? new MemoryCursor(memoryOrder) : new MergeCursor();
    }

    @Override
    public void close() throws IOException {
        buffer = null;
        memoryOrder = null;
        for (Path run : runs) {
            Files.deleteIfExists(run);
        }
        runs.clear();
    }

    /** Records in order, one at a time. */
    interface Cursor {
        /** Copies the next record into {@code into}; false at the end. */
        boolean next(long[] into) throws IOException;
    }

    private final class MemoryCursor implements Cursor {
        private final int[] order;
        private int at;

        MemoryCursor(int[] order) {
            this.order = order;
        }

        @Override
        public boolean next(long[] into) {
            if (at == order.length) {
                return false;
            }
            System.arraycopy(buffer, order[at++] * width, into, 0, width);
            return true;
        }
    }

    /** A k-way merge of the runs through a binary heap of their head records. */
    private final class MergeCursor implements Cursor {
        private final FileChannel[] in;
        private final ByteBuffer[] bytes;
        private final LongBuffer[] longs;
        private final long[][] head;
        private final int[] heap;
        private int live;

        MergeCursor() throws IOException {
            int n = runs.size();
            in = new FileChannel[n];
            bytes = new ByteBuffer[n];
            longs = new LongBuffer[n];
            head = new long[n][width];
            heap = new int[n];
            for (int r = 0; r < n; r++) {
                in[r] = FileChannel.open(runs.get(r), StandardOpenOption.READ);
                bytes[r] = ByteBuffer.allocate(RUN_BUFFER - RUN_BUFFER % (width * Long.BYTES)).order(ByteOrder.nativeOrder());
                longs[r] = bytes[r].asLongBuffer();
                longs[r].limit(0);
                if (read(r)) {
                    heap[live++] = r;
                    up(live - 1);
                }
            }
        }

        private boolean read(int r) throws IOException {
            if (!longs[r].hasRemaining()) {
                ByteBuffer b = bytes[r];
                b.clear();
                while (b.hasRemaining() && in[r].read(b) >= 0) {
                    // fill the buffer: runs hold whole records, so a full buffer or the end ends on one
                }
                if (b.position() % (width * Long.BYTES) != 0) {
                    throw new IOException("a sort run was cut short: " + runs.get(r));
                }
                longs[r].clear();
                longs[r].limit(b.position() / Long.BYTES);
                if (b.position() == 0) {
                    in[r].close();
                    return false;
                }
            }
            longs[r].get(head[r], 0, width);
            return true;
        }

        private boolean less(int a, int b) {
            for (int k = 0; k < keyWidth; k++) {
                int c = Long.compare(head[a][k], head[b][k]);
                if (c != 0) {
                    return c < 0;
                }
            }
            return a < b; // runs were written in trace order: equal keys keep it
        }

        private void up(int i) {
            while (i > 0) {
                int p = (i - 1) / 2;
                if (!less(heap[i], heap[p])) {
                    return;
                }
                int t = heap[i];
                heap[i] = heap[p];
                heap[p] = t;
                i = p;
            }
        }

        private void down(int i) {
            while (true) {
                int l = 2 * i + 1;
                int m = i;
                if (l < live && less(heap[l], heap[m])) {
                    m = l;
                }
                if (l + 1 < live && less(heap[l + 1], heap[m])) {
                    m = l + 1;
                }
                if (m == i) {
                    return;
                }
                int t = heap[i];
                heap[i] = heap[m];
                heap[m] = t;
                i = m;
            }
        }

        @Override
        public boolean next(long[] into) throws IOException {
            if (live == 0) {
                return false;
            }
            int r = heap[0];
            System.arraycopy(head[r], 0, into, 0, width);
            if (read(r)) {
                down(0);
            } else {
                heap[0] = heap[--live];
                down(0);
            }
            return true;
        }
    }
}
