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
import java.util.Arrays;
import java.util.List;

/**
 * An external sort of fixed-width records of longs, ordered by their first {@code keyWidth} longs
 * (signed, lexicographic). Records collect in one bounded buffer; a full buffer is sorted and
 * written to a temporary file (a run) under the spill directory; reading merges the runs. A sort
 * that fits its buffer never touches the disk. Every file it writes is deleted by {@link #close()}.
 *
 * <p>Input that comes (mostly) in key order costs little. A record whose key is below the key of the record
 * kept before it (a straggler) goes to a second sort of its own, made when the first straggler comes, whose
 * buffer grows as stragglers come up to the same size (so a sort holds at most twice its buffer); so the main records stay in key order as they were added, and are written and read
 * as they stand, unsorted, and the stragglers, sorted apart, are merged in as they are read (a fully ordered
 * input is read straight through). In the stragglers' sort (which has no stragglers' sort of its own), a
 * buffer whose records came in key order is not sorted either, and runs whose keys follow on (each one's last
 * key at most the next one's first) are read one after the other as one chain, so that only chains are merged.
 * Either way the order is the one of a stable sort: by key, equal keys in the order they were added (a
 * straggler's key is below that of every main record added after it, so of main and straggler records of one
 * key, the main ones came first).
 */
final class RecordSorter implements Closeable, RecordSink {
    /** Bytes of read buffer for each run while merging. */
    private static final int RUN_BUFFER = 1 << 15;
    /** Bytes of write buffer while a run is written. */
    private static final int WRITE_BUFFER = 1 << 16;

    private final int width;
    private final int keyWidth;
    private final Path spillDir;
    private final SpillCounter counter;
    private final List<Path> runs = new ArrayList<>();
    /** Each run's first and last key (its first {@code keyWidth} longs at its start and its end). */
    private final List<long[]> runFirst = new ArrayList<>();
    private final List<long[]> runLast = new ArrayList<>();
    private long[] buffer;
    /** Longs the buffer holds at most. */
    private final int capacity;
    private int records;
    /** Whether the buffer's records were added in key order (then they need no sort). */
    private boolean inOrder = true;
    /** Buffers that had to be sorted (the others came in order). */
    private int sortedBuffers;
    private long size;
    private boolean reading;
    private int[] memoryOrder;
    /** Whether stragglers go to a sort of their own ({@link #stragglers}), made at the first. */
    private final boolean splits;
    private RecordSorter stragglers;

    /**
     * @param width longs a record
     * @param keyWidth the leading longs that order records
     * @param bufferLongs longs held in memory before a run is written
     */
    RecordSorter(int width, int keyWidth, int bufferLongs, Path spillDir, SpillCounter counter) {
        this(width, keyWidth, bufferLongs, spillDir, counter, true);
    }

    private RecordSorter(int width, int keyWidth, int bufferLongs, Path spillDir, SpillCounter counter, boolean splits) {
        this.splits = splits;
        this.width = width;
        this.keyWidth = keyWidth;
        this.spillDir = spillDir;
        this.counter = counter;
        this.capacity = Math.max(width, bufferLongs - bufferLongs % width);
        // the stragglers' buffer grows as they come (most inputs have few), up to the same size
        this.buffer = new long[splits ? capacity : Math.min(capacity, width * 4096)];
    }

    /** Appends {@code record} (its first {@code width} longs). */
    @Override
    public void add(long[] record) throws IOException {
        if (reading) {
            throw new IllegalStateException("add after sorted()");
        }
        if (splits && belowLast(record)) {
            if (stragglers == null) {
                stragglers = new RecordSorter(width, keyWidth, capacity, spillDir, counter, false);
            }
            stragglers.add(record);
            size++;
            return;
        }
        if (records * width == buffer.length) {
            if (buffer.length < capacity) {
                buffer = Arrays.copyOf(buffer, Math.min(capacity, buffer.length * 2));
            } else {
                spill();
            }
        }
        System.arraycopy(record, 0, buffer, records * width, width);
        if (!splits && inOrder && records > 0 && compare(records - 1, records) > 0) { // a splitting sort's buffer is in order
            inOrder = false;
        }
        records++;
        size++;
    }

    /** Records added. */
    long size() {
        return size;
    }

    /** Whether {@code record}'s key is below that of the last record kept here (in the buffer or the last run). */
    private boolean belowLast(long[] record) {
        long[] last;
        int at;
        if (records > 0) {
            last = buffer;
            at = (records - 1) * width;
        } else if (!runLast.isEmpty()) {
            last = runLast.get(runLast.size() - 1);
            at = 0;
        } else {
            return false;
        }
        for (int k = 0; k < keyWidth; k++) {
            int c = Long.compare(record[k], last[at + k]);
            if (c != 0) {
                return c < 0;
            }
        }
        return false;
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

    /** The buffer's records in order, as indices; null when they are in order as they stand. */
    private int[] sortedBuffer() {
        if (inOrder) {
            return null;
        }
        sortedBuffers++;
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
            if (idx == null) { // in order as it stands: copied in blocks
                for (int from = 0, total = records * width; from < total; ) {
                    int n = Math.min(longs.remaining(), total - from);
                    longs.put(buffer, from, n);
                    from += n;
                    drain(out, bytes, longs);
                }
            } else {
                for (int n = 0; n < records; n++) {
                    if (!longs.hasRemaining()) {
                        drain(out, bytes, longs);
                    }
                    longs.put(buffer, idx[n] * width, width);
                }
                drain(out, bytes, longs);
            }
        }
        runFirst.add(Arrays.copyOfRange(buffer, (idx == null ? 0 : idx[0]) * width, (idx == null ? 0 : idx[0]) * width + keyWidth));
        int last = idx == null ? records - 1 : idx[records - 1];
        runLast.add(Arrays.copyOfRange(buffer, last * width, last * width + keyWidth));
        counter.add((long) records * width * Long.BYTES);
        records = 0;
        inOrder = true;
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
                memoryOrder = sortedBuffer(); // null: the buffer as it stands
            } else {
                if (records > 0) {
                    spill();
                }
                buffer = null;
            }
        }
        Cursor main = buffer != null ? new MemoryCursor(memoryOrder) : new MergeCursor(chains());
        return stragglers == null ? main : new TwoWayCursor(main, stragglers.sorted());
    }

    /** Records that came below the key of the record before them, sorted apart. */
    long stragglers() {
        return stragglers == null ? 0 : stragglers.size();
    }

    /** The sort of the {@link #stragglers}, or null. */
    RecordSorter stragglerSort() {
        return stragglers;
    }

    /**
     * The runs cut into chains: the runs of a chain follow each other's keys (a run's last key at most the next
     * one's first), so that a chain read run after run is in order; each chain as the first run of the next.
     */
    int[] chains() {
        int[] starts = new int[runs.size() + 1];
        int n = 0;
        for (int r = 0; r < runs.size(); r++) {
            if (r == 0 || compareKeys(runLast.get(r - 1), runFirst.get(r)) > 0) {
                starts[n++] = r;
            }
        }
        starts[n++] = runs.size();
        return Arrays.copyOf(starts, n);
    }

    private int compareKeys(long[] a, long[] b) {
        for (int k = 0; k < keyWidth; k++) {
            int c = Long.compare(a[k], b[k]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** Runs written so far. */
    int runs() {
        return runs.size();
    }

    /** Buffers sorted so far: those whose records were not added in key order. */
    int sortedBuffers() {
        return sortedBuffers;
    }

    @Override
    public void close() throws IOException {
        buffer = null;
        memoryOrder = null;
        for (Path run : runs) {
            Files.deleteIfExists(run);
        }
        runs.clear();
        runFirst.clear();
        runLast.clear();
        if (stragglers != null) {
            stragglers.close();
        }
    }

    /** Records in order, one at a time. */
    interface Cursor {
        /** Copies the next record into {@code into}; false at the end. */
        boolean next(long[] into) throws IOException;
    }

    /** The main records merged with the stragglers; of equal keys, the main record first (it was added first). */
    private final class TwoWayCursor implements Cursor {
        private final Cursor main;
        private final Cursor other;
        private final long[] mainHead = new long[width];
        private final long[] otherHead = new long[width];
        private boolean hasMain;
        private boolean hasOther;

        TwoWayCursor(Cursor main, Cursor other) throws IOException {
            this.main = main;
            this.other = other;
            hasMain = main.next(mainHead);
            hasOther = other.next(otherHead);
        }

        @Override
        public boolean next(long[] into) throws IOException {
            if (hasMain && (!hasOther || !keyBelow(otherHead, mainHead))) {
                System.arraycopy(mainHead, 0, into, 0, width);
                hasMain = main.next(mainHead);
                return true;
            }
            if (hasOther) {
                System.arraycopy(otherHead, 0, into, 0, width);
                hasOther = other.next(otherHead);
                return true;
            }
            return false;
        }

        private boolean keyBelow(long[] a, long[] b) {
            for (int k = 0; k < keyWidth; k++) {
                int c = Long.compare(a[k], b[k]);
                if (c != 0) {
                    return c < 0;
                }
            }
            return false;
        }
    }

    private final class MemoryCursor implements Cursor {
        private final int[] order;
        private int at;

        /** {@code order}: the records' indices in order, or null for the buffer as it stands. */
        MemoryCursor(int[] order) {
            this.order = order;
        }

        @Override
        public boolean next(long[] into) {
            if (at == records) {
                return false;
            }
            int i = order == null ? at : order[at];
            at++;
            System.arraycopy(buffer, i * width, into, 0, width);
            return true;
        }
    }

    /**
     * A k-way merge of the chains of runs ({@link #chains}) through a binary heap of their head records; each
     * chain reads its runs one after the other. One chain is read straight through, without the heap.
     */
    private final class MergeCursor implements Cursor {
        private final int[] starts;
        /** Each chain's run being read. */
        private final int[] run;
        private final FileChannel[] in;
        private final ByteBuffer[] bytes;
        private final LongBuffer[] longs;
        private final long[][] head;
        private final int[] heap;
        private int live;

        MergeCursor(int[] starts) throws IOException {
            this.starts = starts;
            int n = starts.length - 1;
            run = new int[n];
            in = new FileChannel[n];
            bytes = new ByteBuffer[n];
            longs = new LongBuffer[n];
            head = new long[n][width];
            heap = new int[n];
            for (int c = 0; c < n; c++) {
                run[c] = starts[c];
                in[c] = FileChannel.open(runs.get(run[c]), StandardOpenOption.READ);
                bytes[c] = ByteBuffer.allocate(RUN_BUFFER - RUN_BUFFER % (width * Long.BYTES)).order(ByteOrder.nativeOrder());
                longs[c] = bytes[c].asLongBuffer();
                longs[c].limit(0);
                if (n == 1) {
                    live = 1; // read straight through by next
                } else if (read(c, head[c])) {
                    heap[live++] = c;
                    up(live - 1);
                }
            }
        }

        /** The next record of chain {@code c} into {@code into}; false at the chain's end. */
        private boolean read(int c, long[] into) throws IOException {
            while (!longs[c].hasRemaining()) {
                ByteBuffer b = bytes[c];
                b.clear();
                while (b.hasRemaining() && in[c].read(b) >= 0) {
                    // fill the buffer: runs hold whole records, so a full buffer or the end ends on one
                }
                if (b.position() % (width * Long.BYTES) != 0) {
                    throw new IOException("a sort run was cut short: " + runs.get(run[c]));
                }
                longs[c].clear();
                longs[c].limit(b.position() / Long.BYTES);
                if (b.position() == 0) { // this run's end: the chain's next run, if any
                    in[c].close();
                    if (++run[c] == starts[c + 1]) {
                        return false;
                    }
                    in[c] = FileChannel.open(runs.get(run[c]), StandardOpenOption.READ);
                }
            }
            longs[c].get(into, 0, width);
            return true;
        }

        private boolean less(int a, int b) {
            for (int k = 0; k < keyWidth; k++) {
                int c = Long.compare(head[a][k], head[b][k]);
                if (c != 0) {
                    return c < 0;
                }
            }
            return a < b; // chains hold the runs in the order they were written: equal keys keep it
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
            if (heap.length == 1) { // one chain: in order as it is read
                if (!read(0, into)) {
                    live = 0;
                    return false;
                }
                return true;
            }
            int c = heap[0];
            System.arraycopy(head[c], 0, into, 0, width);
            if (read(c, head[c])) {
                down(0);
            } else {
                heap[0] = heap[--live];
                down(0);
            }
            return true;
        }
    }
}
