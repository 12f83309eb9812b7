package org.flagos.trace.encoders;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The {@code events} table of docs/tables.md, written as Parquet by flagtrace's own writer ({@link ParquetColumns},
 * as the walk's {@link ParquetSink}; no engine, no CSV): {@code flagtrace tables} (any trace file, whose facts
 * (rank, host, base time, a merge's pids) may follow its events) adds the rows as they are read, then the
 * table is written with those facts filled in, the rows ordered by rank, slot and {@code ts_ns} (then their
 * order in the trace). Both writers share this class's column list, {@link #rank}, {@link #put} and {@link CopyKinds}; the
 * finishing rule (slot, rank, host, pid, {@code ts_ns}, copy kind) is {@link EventFacts}', which the Spark data source uses too.
 *
 * <p>Memory is bounded whatever the trace says: rows are kept encoded (about 20 bytes each) in a block of at
 * most {@link #BLOCK_BYTES} and {@link #BLOCK_ROWS}; a trace of more goes block by block to a scratch file
 * beside the output ({@code .flagtrace-events.PID-N.rows}), each block is sorted into a run of its own, and
 * the runs are merged as the file is written ({@link #RUN_BUFFER} of memory each). Strings are kept once in a
 * dictionary of at most {@link #DICTIONARY_STRINGS} strings and {@link #DICTIONARY_CHARS} characters, later
 * ones whole in the row. {@link #close()} deletes the scratch files. Not thread-safe: one writer.
 */
public final class EventTable implements EventRows, AutoCloseable {
    /** A null column among the longs of {@link Row}. */
    public static final long NONE = Long.MIN_VALUE;
    /** The published columns, in order, with their SQL types (docs/tables.md; other tools read them by these names). */
    public static final List<String[]> COLUMNS = List.of(
            new String[] {"rank", "INTEGER"}, new String[] {"slot", "INTEGER"}, new String[] {"host", "VARCHAR"},
            new String[] {"pid", "BIGINT"}, new String[] {"tid", "BIGINT"}, new String[] {"ph", "VARCHAR"},
            new String[] {"cat", "VARCHAR"}, new String[] {"name", "VARCHAR"}, new String[] {"ts_ns", "BIGINT"},
            new String[] {"dur_ns", "BIGINT"}, new String[] {"device", "INTEGER"}, new String[] {"stream", "BIGINT"},
            new String[] {"correlation", "BIGINT"}, new String[] {"external_id", "BIGINT"}, new String[] {"flow_id", "BIGINT"},
            new String[] {"bytes", "BIGINT"}, new String[] {"copy_kind", "VARCHAR"},
            new String[] {"total_allocated", "BIGINT"}, new String[] {"total_reserved", "BIGINT"},
            new String[] {"from_device", "INTEGER"}, new String[] {"to_device", "INTEGER"},
            new String[] {"from_context", "BIGINT"}, new String[] {"to_context", "BIGINT"},
            new String[] {"in_elems", "BIGINT"}, new String[] {"out_elems", "BIGINT"}, new String[] {"dtype", "VARCHAR"},
            new String[] {"group_size", "INTEGER"}, new String[] {"process_group", "VARCHAR"});

    /**
     * The columns added after the first tables were published (a collective's message, December 2026):
     * a table written before them lacks them, and {@code analyze} reads them there as NULL.
     */
    public static final List<String> ADDED_COLUMNS = List.of("in_elems", "out_elems", "dtype", "group_size", "process_group");

    /** One event, filled by the caller and handed to {@link #add}; longs are {@link #NONE} when absent. */
    public static final class Row {
        /** The input the event came from ({@link #source}). */
        public int source;
        public long pid = NONE;
        public long tid = NONE;
        public String ph;
        public String cat;
        public String name;
        /** Nanoseconds from its source's base time ({@link #source}). */
        public long ts;
        public long dur = NONE;
        public long device = NONE;
        public long stream = NONE;
        public long correlation = NONE;
        public long externalId = NONE;
        public long flowId = NONE;
        public long bytes = NONE;
        public long totalAllocated = NONE;
        public long totalReserved = NONE;
        /** A copy between two devices: the device and context it copied from and to (unsigned). */
        public long fromDevice = NONE;
        public long toDevice = NONE;
        public long fromContext = NONE;
        public long toContext = NONE;
        /** A collective's message as torch records it: elements in and out, element type, group size and name. */
        public long inElems = NONE;
        public long outElems = NONE;
        public long groupSize = NONE;
        public String dtype;
        public String processGroup;

        /** Clears every column but the source. */
        public Row reset() {
            pid = tid = dur = device = stream = correlation = externalId = flowId = bytes = totalAllocated = totalReserved = NONE;
            fromDevice = toDevice = fromContext = toContext = NONE;
            inElems = outElems = groupSize = NONE;
            ph = cat = name = dtype = processGroup = null;
            ts = 0;
            return this;
        }
    }

    /**
     * The table's layout version, written in the file's key-value metadata as {@code flagtrace.schema_version}
     * (docs/tables.md): raised when a column is added at the end.
     */
    public static final int SCHEMA_VERSION = 1;

    /** The rank column of a slot: its trace's rank, or {@code -1 - slot} when it names none (docs/tables.md). */
    public static int rank(Integer traceRank, int slot) {
        return traceRank != null ? traceRank : -1 - slot;
    }

    /**
     * The {@code copy_kind} column: a copy's direction as torch names it, from the name of a row of
     * category {@code gpu_memcpy} (2021: {@code Memcpy}), {@code Memcpy HtoD (Pageable -> Device)} giving
     * {@code HtoD}; null for any other row. Each name's answer is kept (a trace has few names).
     */
    public static final class CopyKinds {
        private static final java.util.regex.Pattern KIND = java.util.regex.Pattern.compile("^Memcpy ([A-Za-z]+to[A-Za-z]+)");
        private final java.util.Map<String, String> known = new java.util.HashMap<>();
        private String lastName;
        private String lastKind;

        public String of(String cat, String name) {
            if (name == null || cat == null || !(cat.equals("gpu_memcpy") || cat.equals("Memcpy"))) {
                return null;
            }
            if (name == lastName) { // the same instance again (names come from one table): no hash
                return lastKind;
            }
            String kind = known.get(name);
            if (kind == null && !known.containsKey(name)) {
                java.util.regex.Matcher m = KIND.matcher(name);
                kind = m.find() ? m.group(1) : null;
                if (known.size() < 1 << 16) {
                    known.put(name, kind);
                }
            }
            lastName = name;
            lastKind = kind;
            return kind;
        }
    }

    /** How every scratch name begins, then the writing process's id and a dash. */
    public static final String SCRATCH_PREFIX = ".flagtrace-events.";

    /**
     * Deletes the scratch files and folders in {@code dir} of processes that no longer run (killed
     * before they could: the id is in the name); a live process's, this one's included, are never touched.
     */
    static void removeStale(Path dir) {
        try (var entries = Files.newDirectoryStream(dir, SCRATCH_PREFIX + "*")) {
            for (Path entry : entries) {
                String rest = entry.getFileName().toString().substring(SCRATCH_PREFIX.length());
                int dash = rest.indexOf('-');
                long pid;
                try {
                    pid = dash > 0 ? Long.parseLong(rest.substring(0, dash)) : -1;
                } catch (NumberFormatException e) {
                    continue;
                }
                if (pid > 0 && pid != ProcessHandle.current().pid() && !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    deleteTree(entry);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort: the names start with a dot and say what they are
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            try (var files = Files.list(p)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(f);
                }
            }
        }
        Files.deleteIfExists(p);
    }

    /**
     * Rows held in memory, encoded (about 20 bytes each), before a block of them goes to the scratch file:
     * a block ends at this many bytes or {@link #BLOCK_ROWS} rows, whichever comes first. A trace that
     * fits one block is sorted and written without any scratch file.
     */
    static final int BLOCK_BYTES = 32 << 20;
    /** Rows of one block: the sort's keys of a block take 24 bytes a row (24 MB). */
    static final int BLOCK_ROWS = 1 << 20;
    /** Distinct strings kept once in memory and referred to by number (names repeat); later ones are stored whole. */
    static final int DICTIONARY_STRINGS = 1 << 16;
    /** Characters of those strings at most. */
    static final long DICTIONARY_CHARS = 8L << 20;
    /** The read buffer of each sorted run while the runs are merged. */
    static final int RUN_BUFFER = 1 << 16;
    /** Distinct (rank, slot) parts counted at most: a table of more processes is refused by {@link #partitions()}. */
    static final int MAX_PARTS = 1 << 20;

    /** The numbers a row stores, in {@link #encode}'s order; bit {@code i} of a row's mask says number {@code i} is there. */
    private static final int NUMBERS = 18;
    /** The strings a row stores after the numbers: ph, cat, name, copy_kind, dtype, process_group. */
    private static final int STRINGS = 6;

    /** How a table's rows go to its files. */
    public interface Parts {
        /** The file of the rows of {@code rank} and {@code slot}: rows of equal paths go to one file, in order. */
        Path file(int rank, int slot);
    }

    /** The facts the rows share, and the finishing rule ({@link EventFacts}: the Spark data source's too). */
    private final EventFacts facts = new EventFacts();
    private final Path dir;
    private final String stem;
    private final int blockRows;
    private ParquetColumns.Bytes block = new ParquetColumns.Bytes(1 << 16);
    private int rowsInBlock;
    private Path spill;
    private java.io.DataOutputStream spillOut;
    private final List<Path> runs = new ArrayList<>();
    private final java.util.Map<String, Integer> dictionary = new java.util.HashMap<>();
    private final List<String> strings = new ArrayList<>();
    private long dictionaryChars;
    private final String[] lastString = new String[STRINGS];
    private final long[] lastRef = new long[STRINGS];
    private final long[] numbers = new long[NUMBERS];
    private final String[] texts = new String[STRINGS];
    private long rows;
    private boolean prepared;
    private boolean closed;
    // after prepare(), when every row fits one block: the rows' offsets and keys, and their order
    private int[] offsets;
    private int[] rankOf;
    private int[] slotOf;
    private long[] tsOf;
    private int[] order;
    private final java.util.TreeMap<Long, long[]> parts = new java.util.TreeMap<>();
    private boolean tooManyParts;

    /**
     * A table whose rows, past what one block holds in memory, are kept in scratch files in {@code scratchDir}
     * (an existing, writable directory: the output's own folder, so that the scratch shares its disk).
     */
    public EventTable(Path scratchDir) throws IOException {
        this(scratchDir, BLOCK_ROWS);
    }

    /**
     * As {@link #EventTable(Path)}, with blocks of at most {@code blockRows} rows in memory (at least 1; tests
     * give few, so that a small trace takes the scratch files' path).
     */
    public EventTable(Path scratchDir, int blockRows) throws IOException {
        if (blockRows < 1 || blockRows > BLOCK_ROWS) {
            throw new IllegalArgumentException("blockRows " + blockRows + " is not 1 to " + BLOCK_ROWS);
        }
        this.blockRows = blockRows;
        if (!Files.isDirectory(scratchDir)) {
            throw new IOException("cannot keep the table's scratch files in " + scratchDir + ": not a folder");
        }
        removeStale(scratchDir);
        this.dir = scratchDir.toAbsolutePath();
        this.stem = SCRATCH_PREFIX + ProcessHandle.current().pid() + "-" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong());
    }

    /**
     * One input: its name (the trace file's, for the file metadata), the base time its rows' {@link Row#ts}
     * count from (epoch ns), and for a merged trace ({@code flagtrace merge}) its pid stride, by which each
     * row's pid names its merge slot ({@code (slot + 1) * stride + n}); 0 for any other trace, whose rows are
     * all of slot {@code source}. Any number of times before the table is written, in any order with the rows.
     */
    @Override
    public void source(int source, String name, long baseNs, long pidStride) {
        facts.source(source, name, baseNs, pidStride);
    }

    /**
     * What a slot's rows share: its rank (null when its trace names none: the rows get {@code -1 - slot},
     * {@link #rank}) and its host (null when unknown).
     */
    @Override
    public void slot(int slot, Integer rank, String host) {
        facts.slot(slot, rank, host);
    }

    /**
     * A merged trace's pid {@code tracePid} of slot {@code slot} stands for {@code originalPid} in that
     * process's own trace ({@link #NONE}: a pid that was no number there, such as torch's {@code Spans}).
     */
    @Override
    public void pid(int slot, long tracePid, long originalPid) {
        facts.pid(slot, tracePid, originalPid);
    }

    /** Appends one event (its source's facts may come later). */
    @Override
    public void add(Row r) throws IOException {
        if (prepared) {
            throw new IllegalStateException("the table is written already");
        }
        long[] v = numbers;
        v[0] = r.pid;
        v[1] = r.tid;
        v[2] = r.dur;
        v[3] = device(r.device);
        v[4] = r.stream;
        v[5] = r.correlation;
        v[6] = r.externalId;
        v[7] = r.flowId;
        v[8] = r.bytes;
        v[9] = r.totalAllocated;
        v[10] = r.totalReserved;
        v[11] = device(r.fromDevice);
        v[12] = device(r.toDevice);
        v[13] = r.fromContext;
        v[14] = r.toContext;
        v[15] = r.inElems;
        v[16] = r.outElems;
        v[17] = device(r.groupSize);
        String[] s = texts;
        s[0] = r.ph;
        s[1] = r.cat;
        s[2] = r.name;
        s[3] = facts.copyKind(r.cat, r.name);
        s[4] = r.dtype;
        s[5] = r.processGroup;
        int mask = 0;
        for (int i = 0; i < NUMBERS; i++) {
            if (v[i] != NONE) {
                mask |= 1 << i;
            }
        }
        for (int i = 0; i < STRINGS; i++) {
            if (s[i] != null) {
                mask |= 1 << (NUMBERS + i);
            }
        }
        ParquetColumns.Bytes b = block;
        b.varint(r.source);
        b.varint(mask);
        b.varint(zigzag(r.ts));
        for (int i = 0; i < NUMBERS; i++) {
            if (v[i] != NONE) {
                b.varint(zigzag(v[i]));
            }
        }
        for (int i = 0; i < STRINGS; i++) {
            if (s[i] != null) {
                string(b, i, s[i]);
            }
        }
        rows++;
        if (++rowsInBlock == blockRows || b.length >= BLOCK_BYTES) {
            spillBlock();
        }
    }

    /** A string as its number in the dictionary ({@code id << 1}), or whole ({@code length << 1 | 1}, then UTF-8). */
    private void string(ParquetColumns.Bytes b, int column, String s) {
        if (s == lastString[column]) { // the same instance again: no hash
            long ref = lastRef[column];
            if (ref >= 0) {
                b.varint(ref);
                return;
            }
        }
        Integer id = dictionary.get(s);
        if (id == null && strings.size() < DICTIONARY_STRINGS && dictionaryChars + s.length() <= DICTIONARY_CHARS) {
            id = strings.size();
            strings.add(s);
            dictionary.put(s, id);
            dictionaryChars += s.length();
        }
        lastString[column] = s;
        if (id != null) {
            lastRef[column] = (long) id << 1;
            b.varint((long) id << 1);
            return;
        }
        lastRef[column] = -1;
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        b.varint(((long) utf8.length << 1) | 1);
        b.put(utf8, 0, utf8.length);
    }

    /** The block in memory to the scratch file (its row count, its length, its rows), and a new block. */
    private void spillBlock() throws IOException {
        if (rowsInBlock == 0) {
            return;
        }
        if (spillOut == null) {
            spill = dir.resolve(stem + ".rows");
            spill.toFile().deleteOnExit();
            try {
                spillOut = new java.io.DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(spill), 1 << 16));
            } catch (IOException e) {
                throw new IOException("cannot make the table's scratch file in " + dir + ": " + e.getMessage(), e);
            }
        }
        spillOut.writeInt(rowsInBlock);
        spillOut.writeInt(block.length);
        spillOut.write(block.bytes, 0, block.length);
        block.length = 0;
        rowsInBlock = 0;
    }

    private static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    /** Rows appended so far. */
    public long rows() {
        return rows;
    }

    /** A row being read back: where it ends, and its values. */
    private final class Reader {
        int source;
        long ts;
        final Row row = new Row();
        String copyKind;
        int end;

        /** Reads the row at {@code at} of {@code b} into {@link #row}. */
        void read(byte[] b, int at) {
            pos = at;
            Row r = row.reset();
            source = (int) varint(b);
            r.source = source;
            int mask = (int) varint(b);
            ts = unzigzag(varint(b));
            r.ts = ts;
            long[] v = numbers;
            for (int i = 0; i < NUMBERS; i++) {
                v[i] = (mask & (1 << i)) != 0 ? unzigzag(varint(b)) : NONE;
            }
            r.pid = v[0];
            r.tid = v[1];
            r.dur = v[2];
            r.device = v[3];
            r.stream = v[4];
            r.correlation = v[5];
            r.externalId = v[6];
            r.flowId = v[7];
            r.bytes = v[8];
            r.totalAllocated = v[9];
            r.totalReserved = v[10];
            r.fromDevice = v[11];
            r.toDevice = v[12];
            r.fromContext = v[13];
            r.toContext = v[14];
            r.inElems = v[15];
            r.outElems = v[16];
            r.groupSize = v[17];
            String[] s = texts;
            for (int i = 0; i < STRINGS; i++) {
                s[i] = (mask & (1 << (NUMBERS + i))) != 0 ? text(b) : null;
            }
            r.ph = s[0];
            r.cat = s[1];
            r.name = s[2];
            copyKind = s[3];
            r.dtype = s[4];
            r.processGroup = s[5];
            end = pos;
        }

        private final long[] numbers = new long[NUMBERS];
        private final String[] texts = new String[STRINGS];
        private int pos;

        private long varint(byte[] b) {
            long v = 0;
            int shift = 0;
            while (true) {
                byte x = b[pos++];
                v |= (long) (x & 0x7f) << shift;
                if (x >= 0) {
                    return v;
                }
                shift += 7;
            }
        }

        private String text(byte[] b) {
            long ref = varint(b);
            if ((ref & 1) == 0) {
                return strings.get((int) (ref >>> 1));
            }
            int n = (int) (ref >>> 1);
            String s = new String(b, pos, n, StandardCharsets.UTF_8);
            pos += n;
            return s;
        }
    }

    private static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    /**
     * Orders the rows by rank, slot, {@code ts_ns} and their place in the input: a block in memory when every
     * row fits one; otherwise each block of the scratch file sorted into a run of its own (a scratch file
     * beside it), the runs merged as the table is written. Counts the parts (rank, slot) on the way.
     */
    private void prepare() throws IOException {
        if (prepared) {
            return;
        }
        prepared = true;
        if (spillOut == null) {
            sortBlock(block.bytes, rowsInBlock);
            return;
        }
        spillBlock();
        spillOut.close();
        spillOut = null;
        block = null; // the memory goes to the sort
        try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(spill), 1 << 16))) {
            byte[] bytes = new byte[0];
            while (true) {
                int n;
                try {
                    n = in.readInt();
                } catch (java.io.EOFException end) {
                    break;
                }
                int length = in.readInt();
                if (bytes.length < length) {
                    bytes = new byte[length];
                }
                in.readFully(bytes, 0, length);
                sortBlock(bytes, n);
                Path run = dir.resolve(stem + ".run" + runs.size());
                run.toFile().deleteOnExit();
                runs.add(run);
                try (java.io.DataOutputStream out = new java.io.DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(run), 1 << 16))) {
                    for (int k = 0; k < n; k++) {
                        int i = order[k];
                        int from = offsets[i];
                        int to = i + 1 < n ? offsets[i + 1] : length;
                        out.writeInt(rankOf[i]);
                        out.writeInt(slotOf[i]);
                        out.writeLong(tsOf[i]);
                        out.writeInt(to - from);
                        out.write(bytes, from, to - from);
                    }
                }
            }
        }
        Files.deleteIfExists(spill);
        offsets = rankOf = slotOf = order = null;
        tsOf = null;
    }

    /** The keys of the {@code n} rows of {@code b}, and their order. */
    private void sortBlock(byte[] b, int n) throws IOException {
        offsets = new int[n];
        rankOf = new int[n];
        slotOf = new int[n];
        tsOf = new long[n];
        Reader r = new Reader();
        int at = 0;
        int lastRank = 0;
        int lastSlot = 0;
        long count = 0;
        for (int i = 0; i < n; i++) {
            offsets[i] = at;
            r.read(b, at);
            at = r.end;
            int slot = facts.slot(r.source, r.row.pid);
            int rank = facts.rank(slot);
            slotOf[i] = slot;
            rankOf[i] = rank;
            tsOf[i] = facts.tsNs(r.source, r.ts);
            if (count > 0 && (rank != lastRank || slot != lastSlot)) {
                count(lastRank, lastSlot, count);
                count = 0;
            }
            lastRank = rank;
            lastSlot = slot;
            count++;
        }
        if (count > 0) {
            count(lastRank, lastSlot, count);
        }
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
        }
        int[] sorted = mergeSort(idx, new int[n], 0, n);
        order = sorted;
    }

    private void count(int rank, int slot, long n) {
        long key = ((long) rank << 32) | (slot & 0xffffffffL);
        long[] c = parts.get(key);
        if (c == null) {
            if (parts.size() >= MAX_PARTS) {
                tooManyParts = true;
                return;
            }
            parts.put(key, c = new long[] {rank, slot, 0});
        }
        c[2] += n;
    }

    /** Sorts {@code a[from, to)} by the rows' keys; returns the array that holds the result ({@code a} or {@code tmp}). */
    private int[] mergeSort(int[] a, int[] tmp, int from, int to) {
        int n = to - from;
        for (int i = from; i < to; i += 32) { // runs of 32 by insertion
            int end = Math.min(i + 32, to);
            for (int j = i + 1; j < end; j++) {
                int x = a[j];
                int k = j - 1;
                while (k >= i && before(x, a[k])) {
                    a[k + 1] = a[k];
                    k--;
                }
                a[k + 1] = x;
            }
        }
        int[] src = a;
        int[] dst = tmp;
        for (int width = 32; width < n; width *= 2) {
            for (int lo = from; lo < to; lo += 2 * width) {
                int mid = Math.min(lo + width, to);
                int hi = Math.min(lo + 2 * width, to);
                int i = lo;
                int j = mid;
                int k = lo;
                if (mid >= hi || !before(src[mid], src[mid - 1])) { // already in order
                    System.arraycopy(src, lo, dst, lo, hi - lo);
                    continue;
                }
                while (i < mid && j < hi) {
                    dst[k++] = before(src[j], src[i]) ? src[j++] : src[i++];
                }
                while (i < mid) {
                    dst[k++] = src[i++];
                }
                while (j < hi) {
                    dst[k++] = src[j++];
                }
            }
            int[] t = src;
            src = dst;
            dst = t;
        }
        return src;
    }

    /** Whether row {@code x} comes before row {@code y}: rank, slot, ts_ns, then the input's order. */
    private boolean before(int x, int y) {
        if (rankOf[x] != rankOf[y]) {
            return rankOf[x] < rankOf[y];
        }
        if (slotOf[x] != slotOf[y]) {
            return slotOf[x] < slotOf[y];
        }
        if (tsOf[x] != tsOf[y]) {
            return tsOf[x] < tsOf[y];
        }
        return x < y;
    }

    /**
     * The table's parts by rank: each distinct (rank, slot) of its rows with their count, ordered by rank
     * then slot (the slots' facts filled in).
     */
    public List<long[]> partitions() throws IOException {
        prepare();
        if (tooManyParts) {
            throw new IOException("the traces hold more than " + MAX_PARTS + " processes (rank and slot): too many to write a"
                    + " file each");
        }
        List<long[]> out = new ArrayList<>();
        for (long[] p : parts.values()) {
            out.add(p.clone());
        }
        return out;
    }

    /** Writes every row to {@code out} as one Parquet file (the stream stays open); returns the rows written. */
    public long writeParquet(OutputStream out) throws IOException {
        prepare();
        Path one = Path.of("table");
        write((rank, slot) -> one, out);
        return rows;
    }

    /** Writes every row to the new file {@code parquet} (replaced if there: the caller renames it into place). */
    public long writeParquet(Path parquet) throws IOException {
        try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(parquet), 1 << 16)) {
            return writeParquet(out);
        }
    }

    /**
     * Writes the rows to the files {@code parts} names, each a new file (replaced if there), in the table's
     * order: rows of one file must be consecutive in it (rank, then slot).
     */
    public void writeParts(Parts parts) throws IOException {
        prepare();
        write(parts, null);
    }

    /** Where the rows being written go: one file, its metadata gathered as its rows come. */
    private final class Target {
        final Path path;
        final OutputStream stream;
        final boolean owned;
        final ParquetColumns table;
        final java.util.Map<String, String> kv = new java.util.LinkedHashMap<>();
        final java.util.TreeSet<Integer> sourcesIn = new java.util.TreeSet<>();
        int rank;
        boolean oneRank = true;
        long rows;

        Target(Path path, OutputStream given) throws IOException {
            this.path = path;
            this.owned = given == null;
            this.stream = given != null ? given : new java.io.BufferedOutputStream(Files.newOutputStream(path), 1 << 16);
            this.table = new ParquetColumns(stream, COLUMNS, kv);
        }

        void row(int rank, int slot, long tsNs, Reader r) throws IOException {
            if (rows++ == 0) {
                this.rank = rank;
            } else if (rank != this.rank) {
                oneRank = false;
            }
            if (sourcesIn.size() < 1024) {
                sourcesIn.add(r.source);
            }
            Row row = r.row;
            row.pid = facts.pid(slot, row.pid);
            put(table, rank, slot, facts.host(slot), row, tsNs, r.copyKind);
        }

        void finish() throws IOException {
            kv.putAll(metadata());
            table.finish();
            if (owned) {
                stream.close();
            } else {
                stream.flush();
            }
        }

        /** docs/tables.md, "File metadata": the walk's keys, for the traces this file's rows come from. */
        private java.util.Map<String, String> metadata() {
            int first = sourcesIn.isEmpty() ? 0 : sourcesIn.first();
            boolean oneSource = sourcesIn.size() <= 1;
            boolean merged = oneSource && facts.merged(first);
            StringBuilder names = new StringBuilder();
            int named = 0;
            for (int s : sourcesIn) {
                if (named++ == 16) {
                    names.append(" and ").append(sourcesIn.size() - 16).append(" more");
                    break;
                }
                names.append(named == 1 ? "" : ", ").append(facts.name(s, "input " + s));
            }
            java.util.Map<String, String> m = ParquetSink.metadata(facts.baseNs(first), names.length() == 0 ? null : names.toString(),
                    oneSource && !merged ? facts.host(first) : null, rank);
            if (merged) {
                m.put("flagtrace.clock", "ts_ns: nanoseconds since the epoch on the clock of the merge's reference (flagtrace"
                        + " merge puts every rank's events on it)");
            } else if (!oneSource) {
                m.put("flagtrace.clock", "ts_ns: nanoseconds since the epoch, each trace's rows on the clock of the host that"
                        + " recorded it (not aligned across traces)");
                m.remove("flagtrace.base_time_ns");
            }
            if (!oneRank || rows == 0) {
                m.remove("flagtrace.rank");
            }
            return m;
        }

        void abandon() {
            table.abandon();
            if (owned) {
                try {
                    stream.close();
                } catch (IOException ignored) {
                    // the caller deletes the file
                }
            }
        }
    }

    /** The rows in order into their files: {@code given} is the one file's stream (null: each file opened by its path). */
    private void write(Parts parts, OutputStream given) throws IOException {
        Target t = null;
        try {
            if (runs.isEmpty()) {
                Reader r = new Reader();
                byte[] b = block.bytes;
                for (int k = 0; k < order.length; k++) {
                    int i = order[k];
                    r.read(b, offsets[i]);
                    t = to(t, parts.file(rankOf[i], slotOf[i]), given);
                    t.row(rankOf[i], slotOf[i], tsOf[i], r);
                }
            } else {
                t = mergeRuns(parts, given);
            }
            if (t == null && given != null) { // no row: a table of every column and no row
                t = new Target(Path.of("table"), given);
            }
            if (t != null) {
                t.finish();
                t = null;
            }
        } finally {
            if (t != null) {
                t.abandon();
            }
        }
    }

    private Target to(Target t, Path path, OutputStream given) throws IOException {
        if (t != null && t.path.equals(path)) {
            return t;
        }
        if (t != null) {
            t.finish();
        }
        return new Target(path, given);
    }

    /** One sorted run being read back. */
    private static final class Run {
        final java.io.DataInputStream in;
        final int index;
        int rank;
        int slot;
        long ts;
        byte[] bytes = new byte[256];

        Run(Path path, int index) throws IOException {
            this.in = new java.io.DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(path), RUN_BUFFER));
            this.index = index;
        }

        boolean next() throws IOException {
            try {
                rank = in.readInt();
            } catch (java.io.EOFException end) {
                in.close();
                return false;
            }
            slot = in.readInt();
            ts = in.readLong();
            int n = in.readInt();
            if (bytes.length < n) {
                bytes = new byte[Math.max(n, bytes.length * 2)];
            }
            in.readFully(bytes, 0, n);
            return true;
        }

        static int compare(Run a, Run b) {
            if (a.rank != b.rank) {
                return Integer.compare(a.rank, b.rank);
            }
            if (a.slot != b.slot) {
                return Integer.compare(a.slot, b.slot);
            }
            if (a.ts != b.ts) {
                return Long.compare(a.ts, b.ts);
            }
            return Integer.compare(a.index, b.index); // runs are in the input's order
        }
    }

    /** The runs merged into their files; returns the last file, not yet finished. */
    private Target mergeRuns(Parts parts, OutputStream given) throws IOException {
        java.util.PriorityQueue<Run> queue = new java.util.PriorityQueue<>(Run::compare);
        List<Run> open = new ArrayList<>();
        Target t = null;
        try {
            for (int i = 0; i < runs.size(); i++) {
                Run run = new Run(runs.get(i), i);
                open.add(run);
                if (run.next()) {
                    queue.add(run);
                }
            }
            Reader r = new Reader();
            while (!queue.isEmpty()) {
                Run run = queue.poll();
                r.read(run.bytes, 0);
                t = to(t, parts.file(run.rank, run.slot), given);
                t.row(run.rank, run.slot, run.ts, r);
                if (run.next()) {
                    queue.add(run);
                }
            }
            return t;
        } catch (IOException | RuntimeException e) {
            if (t != null) {
                t.abandon();
            }
            throw e;
        } finally {
            for (Run run : open) {
                try {
                    run.in.close();
                } catch (IOException ignored) {
                    // read to the end or abandoned
                }
            }
        }
    }

    /**
     * One row of the table into {@code t}, the published columns in {@link #COLUMNS}' order: the walk's
     * sink and {@code flagtrace tables} both write a row through here.
     */
    static void put(ParquetColumns t, int rank, int slot, String host, Row r, long tsNs, String copyKind) throws IOException {
        t.number(0, rank);
        t.number(1, slot);
        if (host != null) {
            t.string(2, host);
        }
        number(t, 3, r.pid);
        number(t, 4, r.tid);
        string(t, 5, r.ph);
        string(t, 6, r.cat);
        string(t, 7, r.name);
        t.number(8, tsNs);
        number(t, 9, r.dur);
        number(t, 10, device(r.device));
        number(t, 11, r.stream);
        number(t, 12, r.correlation);
        number(t, 13, r.externalId);
        number(t, 14, r.flowId);
        number(t, 15, r.bytes);
        string(t, 16, copyKind);
        number(t, 17, r.totalAllocated);
        number(t, 18, r.totalReserved);
        number(t, 19, device(r.fromDevice));
        number(t, 20, device(r.toDevice));
        number(t, 21, r.fromContext);
        number(t, 22, r.toContext);
        number(t, 23, r.inElems);
        number(t, 24, r.outElems);
        string(t, 25, r.dtype);
        number(t, 26, device(r.groupSize));
        string(t, 27, r.processGroup);
        t.endRow();
    }

    private static void number(ParquetColumns t, int column, long v) {
        if (v != NONE) {
            t.number(column, v);
        }
    }

    private static void string(ParquetColumns t, int column, String s) {
        if (s != null) {
            t.string(column, s);
        }
    }

    /** A device index of an INTEGER column: one that does not fit is null. */
    static long device(long v) {
        return v == NONE || v != (int) v ? NONE : v;
    }

    /** Deletes the scratch files. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (spillOut != null) {
            try {
                spillOut.close();
            } catch (IOException ignored) {
                // deleted next
            }
        }
        try {
            if (spill != null) {
                Files.deleteIfExists(spill);
            }
            for (Path run : runs) {
                Files.deleteIfExists(run);
            }
        } catch (IOException ignored) {
            // best effort: the scratch names start with a dot and say what they are
        }
    }
}
