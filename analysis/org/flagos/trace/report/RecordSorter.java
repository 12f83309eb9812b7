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
 * written to temporary files (runs) under the spill directory; reading merges the runs. A sort
 * that fits its buffer never touches the disk. Every file it writes is deleted by {@link #close()}.
 *
 * <p>Input that comes (mostly) in key order costs little. A record whose key is below that of the last
 * record kept in order (a straggler) is marked as such in the buffer; the others, the main records, are
 * then in key order as they were added. A full buffer writes its main records as they stand, unsorted, as
 * one run, and its stragglers, sorted (unless they too came in key order), as another; the main runs follow
 * each other's keys and are read one after the other, and the stragglers' runs whose keys follow on (each
 * one's last key at most the next one's first) are read as one chain, so that only the stragglers' chains
 * are merged, and that with the main records as they are read (a fully ordered input is read straight
 * through, with no merge). Either way the order is the one of a stable sort: by key, equal keys in the order
 * they were added (a straggler's key is below that of every main record added after it, so of main and
 * straggler records of one key, the main ones came first).
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
    /** The runs of main records (in order, one after the other) and of stragglers. */
    private final Runs mainRuns = new Runs();
    private final Runs strayRuns = new Runs();
    private long[] buffer;
    private int records;
    /** Which of the buffer's records are stragglers, a bit each. */
    private long[] stray;
    private int strays;
    /** The buffer's last main record and last straggler (-1: none yet). */
    private int lastMain = -1;
    private int lastStray = -1;
    /** Whether the buffer's stragglers came in key order (then they need no sort). */
    private boolean straysInOrder = true;
    /** Buffers whose stragglers had to be sorted. */
    private int sortedBuffers;
    private long stragglers;
    private long size;
    private boolean reading;
    private int[] memoryStrays;

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
        this.stray = new long[(buffer.length / width + 63) / 64];
    }

    /** Appends {@code record} (its first {@code width} longs). */
    @Override
    public void add(long[] record) throws IOException {
        if (reading) {
            throw new IllegalStateException("add after sorted()");
        }
        if (records * width == buffer.length) {
            spill();
        }
        int at = records * width;
        System.arraycopy(record, 0, buffer, at, width);
        if (belowLastMain(at)) {
            stray[records >>> 6] |= 1L << records;
            if (straysInOrder && lastStray >= 0 && compare(lastStray, records) > 0) {
                straysInOrder = false;
            }
            lastStray = records;
            strays++;
            stragglers++;
        } else {
            lastMain = records;
        }
        records++;
        size++;
    }

    /** Records added. */
    long size() {
        return size;
    }

    /** Whether the key of the record at {@code at} is below that of the last main record (in the buffer or the last main run). */
    private boolean belowLastMain(int at) {
        long[] last;
        int from;
        if (lastMain >= 0) {
            last = buffer;
            from = lastMain * width;
        } else if (!mainRuns.last.isEmpty()) {
            last = mainRuns.last.get(mainRuns.last.size() - 1);
            from = 0;
        } else {
            return false;
        }
        for (int k = 0; k < keyWidth; k++) {
            int c = Long.compare(buffer[at + k], last[from + k]);
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

    /** The buffer's first main record. */
    private int firstMain() {
        int i = 0;
        while (strays > 0 && isStray(i)) {
            i++;
        }
        return i;
    }

    private boolean isStray(int i) {
        return (stray[i >>> 6] & 1L << i) != 0;
    }

    /** The buffer's stragglers in order, as indices. */
    private int[] strayOrder() {
        int[] s = new int[strays];
        int n = 0;
        for (int i = 0; n < strays; i++) {
            if (isStray(i)) {
                s[n++] = i;
            }
        }
        if (!straysInOrder) {
            sortedBuffers++;
            IndexOrder.sort(s, n, this::compare);
        }
        return s;
    }

    private void spill() throws IOException {
        if (records > strays) {
            write(mainRuns, null, records - strays);
        }
        if (strays > 0) {
            write(strayRuns, strayOrder(), strays);
        }
        records = 0;
        strays = 0;
        Arrays.fill(stray, 0);
        lastMain = -1;
        lastStray = -1;
        straysInOrder = true;
    }

    /** Writes {@code n} records of the buffer, {@code idx}'s (null: the main records, as they stand), as a run of {@code to}. */
    private void write(Runs to, int[] idx, int n) throws IOException {
        Path run = Files.createTempFile(spillDir, "flagtrace-sort-", ".run");
        run.toFile().deleteOnExit();
        to.files.add(run);
        try (FileChannel out = FileChannel.open(run, StandardOpenOption.WRITE)) {
            // the machine's own byte order: a run is read back only by this process, and its longs are copied, not swapped
            ByteBuffer bytes = ByteBuffer.allocate(WRITE_BUFFER - WRITE_BUFFER % (width * Long.BYTES)).order(ByteOrder.nativeOrder());
            LongBuffer longs = bytes.asLongBuffer();
            if (idx == null) { // the main records, in order as they stand: copied in blocks between the stragglers
                for (int i = 0; i < records; ) {
                    if (strays > 0 && isStray(i)) {
                        i++;
                        continue;
                    }
                    int j = i + 1;
                    while (j < records && (strays == 0 || !isStray(j))) {
                        j++;
                    }
                    for (int from = i * width, end = j * width; from < end; ) {
                        if (!longs.hasRemaining()) {
                            drain(out, bytes, longs);
                        }
                        int k = Math.min(longs.remaining(), end - from);
                        longs.put(buffer, from, k);
                        from += k;
                    }
                    i = j;
                }
                drain(out, bytes, longs);
            } else {
                for (int i = 0; i < n; i++) {
                    if (!longs.hasRemaining()) {
                        drain(out, bytes, longs);
                    }
                    longs.put(buffer, idx[i] * width, width);
                }
                drain(out, bytes, longs);
            }
        }
        int first = idx != null ? idx[0] : firstMain();
        int last = idx != null ? idx[n - 1] : lastMain;
        to.first.add(Arrays.copyOfRange(buffer, first * width, first * width + keyWidth));
        to.last.add(Arrays.copyOfRange(buffer, last * width, last * width + keyWidth));
        counter.add((long) n * width * Long.BYTES);
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
            if (mainRuns.files.isEmpty() && strayRuns.files.isEmpty()) {
                memoryStrays = strayOrder();
            } else {
                if (records > 0) {
                    spill();
                }
                buffer = null;
                stray = null;
            }
        }
        if (buffer != null) {
            Cursor main = new MemoryCursor(null, records);
            return strays == 0 ? main : new TwoWayCursor(main, new MemoryCursor(memoryStrays, strays));
        }
        Cursor main = new MergeCursor(mainRuns);
        return strayRuns.files.isEmpty() ? main : new TwoWayCursor(main, new MergeCursor(strayRuns));
    }

    /** Runs of main records written so far. */
    int runs() {
        return mainRuns.files.size();
    }

    /** Runs of stragglers written so far. */
    int strayRuns() {
        return strayRuns.files.size();
    }

    /** Chains of the stragglers' runs ({@link Runs#chains}). */
    int strayChains() {
        return strayRuns.files.isEmpty() ? 0 : strayRuns.chains().length - 1;
    }

    /** Chains of the main runs: one (or none), as they are in order. */
    int mainChains() {
        return mainRuns.files.isEmpty() ? 0 : mainRuns.chains().length - 1;
    }

    /** Buffers whose stragglers were sorted (the others came in order). */
    int sortedBuffers() {
        return sortedBuffers;
    }

    /** Records that came below the key of the last main record. */
    long stragglers() {
        return stragglers;
    }

    @Override
    public void close() throws IOException {
        buffer = null;
        stray = null;
        memoryStrays = null;
        for (Runs r : new Runs[] {mainRuns, strayRuns}) {
            for (Path run : r.files) {
                Files.deleteIfExists(run);
            }
            r.files.clear();
            r.first.clear();
            r.last.clear();
        }
    }

    /** Records in order, one at a time. */
    interface Cursor {
        /** Copies the next record into {@code into}; false at the end. */
        boolean next(long[] into) throws IOException;
    }

    /** Runs, in the order written, with each one's first and last key (its first {@code keyWidth} longs at its start and end). */
    private final class Runs {
        final List<Path> files = new ArrayList<>();
        final List<long[]> first = new ArrayList<>();
        final List<long[]> last = new ArrayList<>();

        /**
         * The runs cut into chains: the runs of a chain follow each other's keys (a run's last key at most the next
         * one's first), so that a chain read run after run is in order; each chain as its first run, then the end.
         */
        int[] chains() {
            int[] starts = new int[files.size() + 1];
            int n = 0;
            for (int r = 0; r < files.size(); r++) {
                if (r == 0 || compareKeys(last.get(r - 1), first.get(r)) > 0) {
                    starts[n++] = r;
                }
            }
            starts[n++] = files.size();
            return Arrays.copyOf(starts, n);
        }
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

    private final class MemoryCursor implements Cursor {
        private final int[] order;
        private final int length;
        private int at;

        /** {@code order}: the first {@code length} of these indices in order, or null for the main records as they stand. */
        MemoryCursor(int[] order, int length) {
            this.order = order;
            this.length = length;
        }

        @Override
        public boolean next(long[] into) {
            if (order == null) {
                while (at < length && strays > 0 && isStray(at)) {
                    at++;
                }
            }
            if (at == length) {
                return false;
            }
            int i = order == null ? at : order[at];
            at++;
            System.arraycopy(buffer, i * width, into, 0, width);
            return true;
        }
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
            if (hasMain && (!hasOther || compareKeys(otherHead, mainHead) >= 0)) {
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
    }

    /**
     * A k-way merge of the chains of runs ({@link Runs#chains}) through a binary heap of their head records; each
     * chain reads its runs one after the other. One chain is read straight through, without the heap.
     */
    private final class MergeCursor implements Cursor {
        private final List<Path> runs;
        private final int[] starts;
        /** Each chain's run being read. */
        private final int[] run;
        private final FileChannel[] in;
        private final ByteBuffer[] bytes;
        private final LongBuffer[] longs;
        private final long[][] head;
        private final int[] heap;
        private int live;

        MergeCursor(Runs of) throws IOException {
            this.runs = of.files;
            this.starts = of.chains();
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
