package org.flagos.trace.encoders;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * A Parquet file written as its rows come, straight to a stream: flat, every column optional, of
 * three kinds (INTEGER as INT32, BIGINT as INT64, VARCHAR as a UTF-8 BYTE_ARRAY), the kinds the
 * {@code events} table has (docs/tables.md). No scratch file and no engine: each column's values
 * gather in a page of {@link #PAGE_ROWS} rows, which is encoded and compressed as soon as it is full
 * and kept (compressed) until its row group of {@link #ROW_GROUP_ROWS} rows is written out; the
 * footer follows the last row group.
 *
 * <p>Encodings: numbers DELTA_BINARY_PACKED (ids, pids and tids differ little from row to row: on the
 * 13.4M-row capture correlation takes 91 KB against 8.1 MB PLAIN, both compressed; ts_ns and dur_ns, which jump
 * between host and device rows, stay near their PLAIN size), strings a dictionary per column chunk (RLE_DICTIONARY, the dictionary
 * page PLAIN), null flags as RLE/bit-packed definition levels; data pages of version 1, each page's
 * body compressed with GZIP (Deflater at level 1: no dependency; DuckDB, Spark, Arrow and pandas read it).
 * Each column chunk has its statistics (null count, min and max), so engines skip row groups by them.
 * The Parquet format's own specification (parquet-format's {@code parquet.thrift}) defines every
 * structure written here; the footer is Thrift's compact protocol.
 *
 * <p>Memory is bounded by a page per column and a row group's compressed pages, and a row group ends
 * early when its strings' dictionaries pass {@link #DICTIONARY_BYTES}. Not thread-safe: one writer.
 */
final class ParquetColumns {
    /** Rows of one data page. */
    static final int PAGE_ROWS = 1 << 16;
    /**
     * Rows of one row group: 1,048,576 (DuckDB's default is 122,880), a few MB compressed, so a scan
     * reads few, large column chunks.
     */
    static final int ROW_GROUP_ROWS = 1 << 20;
    /** A string column chunk's min and max are written when both are at most this long (bytes). */
    static final int STATISTICS_BYTES = 64;
    /** A row group ends early once its string dictionaries hold this many bytes. */
    static final long DICTIONARY_BYTES = 16L << 20;

    /** A column's physical kind. */
    enum Kind {
        INT32(1, 4), INT64(2, 8), STRING(6, 0);

        final int parquetType;
        final int width;

        Kind(int parquetType, int width) {
            this.parquetType = parquetType;
            this.width = width;
        }

        /** The kind of a column of the SQL type {@code sqlType} (INTEGER, BIGINT, VARCHAR). */
        static Kind of(String sqlType) {
            return switch (sqlType) {
                case "INTEGER" -> INT32;
                case "BIGINT" -> INT64;
                case "VARCHAR" -> STRING;
                default -> throw new IllegalArgumentException("no Parquet kind for " + sqlType);
            };
        }
    }

    // parquet.thrift's numbers
    private static final int ENCODING_PLAIN = 0;
    private static final int ENCODING_RLE = 3;
    private static final int ENCODING_DELTA_BINARY_PACKED = 5;
    private static final int ENCODING_RLE_DICTIONARY = 8;
    private static final int PAGE_DATA = 0;
    private static final int PAGE_DICTIONARY = 2;
    private static final int CODEC_GZIP = 2;
    private static final int OPTIONAL = 1;
    private static final int CONVERTED_UTF8 = 0;
    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    private final CountingOut out;
    private final Column[] columns;
    private final Map<String, String> keyValues;
    private final List<RowGroup> groups = new ArrayList<>();
    private final Bytes scratch = new Bytes(1 << 20);
    private final Bytes compressed = new Bytes(1 << 18);
    private final Bytes header = new Bytes(256);
    private final Deflater deflater = new Deflater(1, true);
    private final CRC32 crc = new CRC32();
    private int pageRows;
    private int groupRows;
    private long totalRows;
    private boolean finished;

    /**
     * @param columns   name and SQL type of each column, in order
     * @param keyValues the file's key-value metadata, in order
     */
    ParquetColumns(OutputStream out, List<String[]> columns, Map<String, String> keyValues) throws IOException {
        this.out = new CountingOut(out);
        this.columns = new Column[columns.size()];
        for (int i = 0; i < this.columns.length; i++) {
            this.columns[i] = new Column(columns.get(i)[0], Kind.of(columns.get(i)[1]));
        }
        this.keyValues = keyValues;
        this.out.write(MAGIC, 0, MAGIC.length);
    }

    /** The current row's value of INT32 or INT64 column {@code c}. */
    void number(int c, long v) {
        Column col = columns[c];
        col.defined[pageRows] = 1;
        col.longs[col.count++] = v;
        if (v < col.min) {
            col.min = v;
        }
        if (v > col.max) {
            col.max = v;
        }
    }

    /** The current row's value of VARCHAR column {@code c}. */
    void string(int c, String s) {
        Column col = columns[c];
        col.defined[pageRows] = 1;
        col.ids[col.count++] = col.id(s);
    }

    /** Ends the current row: the columns not given a value in it are null. */
    void endRow() throws IOException {
        pageRows++;
        if (pageRows == PAGE_ROWS) {
            endPage();
            if (groupRows == ROW_GROUP_ROWS || dictionaryBytes() > DICTIONARY_BYTES) {
                endRowGroup();
            }
        }
    }

    private long dictionaryBytes() {
        long n = 0;
        for (Column c : columns) {
            n += c.dictionaryBytes;
        }
        return n;
    }

    /** Rows ended so far. */
    long rows() {
        return totalRows + groupRows + pageRows;
    }

    /** Writes the last row group and the footer; the stream stays open. */
    void finish() throws IOException {
        if (finished) {
            throw new IllegalStateException("finished already");
        }
        finished = true;
        endRowGroup();
        Bytes f = scratch;
        f.length = 0;
        Thrift t = new Thrift(f);
        t.i32(1, 1); // version
        t.list(2, Thrift.STRUCT, columns.length + 1);
        t.beginElement();
        t.string(4, "schema");
        t.i32(5, columns.length);
        t.endStruct();
        for (Column c : columns) {
            t.beginElement();
            t.i32(1, c.kind.parquetType);
            t.i32(3, OPTIONAL);
            t.string(4, c.name);
            if (c.kind == Kind.STRING) {
                t.i32(6, CONVERTED_UTF8);
                t.beginStruct(10); // logicalType: STRING
                t.beginStruct(1);
                t.endStruct();
                t.endStruct();
            }
            t.endStruct();
        }
        t.i64(3, totalRows);
        t.list(4, Thrift.STRUCT, groups.size());
        for (RowGroup g : groups) {
            t.beginElement();
            t.list(1, Thrift.STRUCT, g.chunks.length);
            long uncompressed = 0;
            long compressedSize = 0;
            for (Chunk ch : g.chunks) {
                uncompressed += ch.uncompressed;
                compressedSize += ch.compressed;
                t.beginElement();
                t.i64(2, ch.offset);
                t.beginStruct(3);
                t.i32(1, ch.kind.parquetType);
                int[] encodings = ch.kind == Kind.STRING ? new int[] {ENCODING_PLAIN, ENCODING_RLE, ENCODING_RLE_DICTIONARY}
                        : new int[] {ENCODING_RLE, ENCODING_DELTA_BINARY_PACKED};
                t.list(2, Thrift.I32, encodings.length);
                for (int e : encodings) {
                    t.i32Element(e);
                }
                t.list(3, Thrift.BINARY, 1);
                t.stringElement(ch.name);
                t.i32(4, CODEC_GZIP);
                t.i64(5, ch.values);
                t.i64(6, ch.uncompressed);
                t.i64(7, ch.compressed);
                t.i64(9, ch.dataOffset);
                if (ch.dictionaryOffset >= 0) {
                    t.i64(11, ch.dictionaryOffset);
                }
                t.beginStruct(12); // statistics
                t.i64(3, ch.nulls);
                if (ch.max != null) {
                    t.binary(5, ch.max);
                    t.binary(6, ch.min);
                }
                t.endStruct();
                t.endStruct();
                t.endStruct();
            }
            t.i64(2, uncompressed);
            t.i64(3, g.rows);
            t.i64(5, g.chunks.length == 0 ? 0 : g.chunks[0].offset);
            t.i64(6, compressedSize);
            t.endStruct();
        }
        if (!keyValues.isEmpty()) {
            t.list(5, Thrift.STRUCT, keyValues.size());
            for (Map.Entry<String, String> kv : keyValues.entrySet()) {
                t.beginElement();
                t.string(1, kv.getKey());
                if (kv.getValue() != null) {
                    t.string(2, kv.getValue());
                }
                t.endStruct();
            }
        }
        t.string(6, "flagtrace");
        t.list(7, Thrift.STRUCT, columns.length); // column_orders: each column's type-defined order (signed numbers, unsigned bytes)
        for (int i = 0; i < columns.length; i++) {
            t.beginElement();
            t.beginStruct(1);
            t.endStruct();
            t.endStruct();
        }
        t.stop();
        out.write(f.bytes, 0, f.length);
        byte[] len = new byte[4];
        putInt(len, 0, f.length);
        out.write(len, 0, 4);
        out.write(MAGIC, 0, MAGIC.length);
        out.flush();
        deflater.end();
    }

    /** Frees the compressor when the file will not be finished. */
    void abandon() {
        finished = true;
        deflater.end();
    }

    private void endPage() throws IOException {
        if (pageRows == 0) {
            return;
        }
        for (Column c : columns) {
            encodePage(c);
        }
        groupRows += pageRows;
        pageRows = 0;
    }

    private void endRowGroup() throws IOException {
        endPage();
        if (groupRows == 0) {
            return;
        }
        Chunk[] chunks = new Chunk[columns.length];
        for (int i = 0; i < columns.length; i++) {
            chunks[i] = writeChunk(columns[i]);
        }
        groups.add(new RowGroup(groupRows, chunks));
        totalRows += groupRows;
        groupRows = 0;
    }

    /** Encodes and compresses column {@code c}'s page into its chunk's pages; clears the page. */
    private void encodePage(Column c) throws IOException {
        Bytes b = scratch;
        b.length = 4;
        int rows = pageRows;
        Hybrid.encode(c.defined, rows, 1, b);
        putInt(b.bytes, 0, b.length - 4);
        int n = c.count;
        if (c.kind == Kind.STRING) {
            int maxId = 0;
            for (int i = 0; i < n; i++) {
                maxId = Math.max(maxId, c.ids[i]);
            }
            int width = Math.max(1, 32 - Integer.numberOfLeadingZeros(maxId));
            b.put((byte) width);
            Hybrid.encode(c.ids, n, width, b);
        } else {
            Delta.encode(c.longs, n, c.kind == Kind.INT32, b);
        }
        c.nulls += rows - n;
        c.values += rows;
        page(c.pages, PAGE_DATA, rows, c.kind == Kind.STRING ? ENCODING_RLE_DICTIONARY : ENCODING_DELTA_BINARY_PACKED, b);
        Arrays.fill(c.defined, 0, rows, 0);
        c.count = 0;
    }

    /** Compresses {@code body} and appends its page header and bytes to {@code into}; returns the uncompressed size. */
    private void page(Bytes into, int type, int values, int encoding, Bytes body) {
        gzip(body);
        Bytes h = header;
        h.length = 0;
        Thrift t = new Thrift(h);
        t.i32(1, type);
        t.i32(2, body.length);
        t.i32(3, compressed.length);
        if (type == PAGE_DATA) {
            t.beginStruct(5);
            t.i32(1, values);
            t.i32(2, encoding);
            t.i32(3, ENCODING_RLE);
            t.i32(4, ENCODING_RLE);
            t.endStruct();
        } else {
            t.beginStruct(7);
            t.i32(1, values);
            t.i32(2, ENCODING_PLAIN);
            t.endStruct();
        }
        t.stop();
        into.put(h.bytes, 0, h.length);
        into.put(compressed.bytes, 0, compressed.length);
        into.uncompressed += h.length + body.length;
    }

    /** A GZIP member of {@code body} in {@link #compressed}. */
    private void gzip(Bytes body) {
        Bytes z = compressed;
        z.length = 0;
        z.ensure(body.length + body.length / 100 + 64);
        z.put((byte) 0x1f);
        z.put((byte) 0x8b);
        z.put((byte) 8);
        for (int i = 0; i < 6; i++) {
            z.put((byte) 0);
        }
        z.put((byte) 0xff); // OS unknown
        deflater.reset();
        deflater.setInput(body.bytes, 0, body.length);
        deflater.finish();
        while (!deflater.finished()) {
            z.ensure(1 << 16);
            z.length += deflater.deflate(z.bytes, z.length, z.bytes.length - z.length);
        }
        crc.reset();
        crc.update(body.bytes, 0, body.length);
        z.ensure(8);
        putInt(z.bytes, z.length, (int) crc.getValue());
        putInt(z.bytes, z.length + 4, body.length);
        z.length += 8;
    }

    /** Writes column {@code c}'s chunk of the row group (its dictionary page first) and starts its next. */
    private Chunk writeChunk(Column c) throws IOException {
        long offset = out.count;
        long dictionaryOffset = -1;
        long uncompressed = 0;
        byte[] min = null;
        byte[] max = null;
        if (c.kind == Kind.STRING) {
            Bytes d = scratch;
            d.length = 0;
            for (byte[] e : c.entries) {
                d.ensure(4 + e.length);
                putInt(d.bytes, d.length, e.length);
                d.length += 4;
                d.put(e, 0, e.length);
                if (min == null || Arrays.compareUnsigned(e, min) < 0) {
                    min = e;
                }
                if (max == null || Arrays.compareUnsigned(e, max) > 0) {
                    max = e;
                }
            }
            if (min != null && (min.length > STATISTICS_BYTES || max.length > STATISTICS_BYTES)) {
                min = null; // no long strings in the footer (kernel names run to kilobytes): the chunk has its null count only
                max = null;
            }
            { // a chunk of nulls only still has its (empty) dictionary: its pages say RLE_DICTIONARY, and parquet-mr
              // (Spark) refuses such a page without a dictionary page, where DuckDB reads it
                Bytes dict = new Bytes(256);
                page(dict, PAGE_DICTIONARY, c.entries.size(), ENCODING_PLAIN, d);
                dictionaryOffset = offset;
                out.write(dict.bytes, 0, dict.length);
                uncompressed += dict.uncompressed;
            }
            c.entries.clear();
            c.dictionary.clear();
            c.dictionaryBytes = 0;
            c.lastString = null; // its id was of this chunk's dictionary
        } else if (c.min <= c.max) {
            min = new byte[c.kind.width];
            max = new byte[c.kind.width];
            if (c.kind == Kind.INT64) {
                putLong(min, 0, c.min);
                putLong(max, 0, c.max);
            } else {
                putInt(min, 0, (int) c.min);
                putInt(max, 0, (int) c.max);
            }
        }
        long dataOffset = out.count;
        out.write(c.pages.bytes, 0, c.pages.length);
        uncompressed += c.pages.uncompressed;
        Chunk chunk = new Chunk(c.name, c.kind, offset, dictionaryOffset < 0 ? -1 : dictionaryOffset, dataOffset, c.values,
                c.nulls, uncompressed, out.count - offset, min, max);
        c.pages.length = 0;
        c.pages.uncompressed = 0;
        c.values = 0;
        c.nulls = 0;
        c.min = Long.MAX_VALUE;
        c.max = Long.MIN_VALUE;
        return chunk;
    }

    /** One column's current page and its row group's encoded pages. */
    private static final class Column {
        final String name;
        final Kind kind;
        final int[] defined = new int[PAGE_ROWS];
        final long[] longs;
        final int[] ids;
        int count;
        final Map<String, Integer> dictionary;
        final List<byte[]> entries;
        long dictionaryBytes;
        String lastString;
        int lastId;
        final Bytes pages = new Bytes(1 << 12);
        long values;
        long nulls;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;

        Column(String name, Kind kind) {
            this.name = name;
            this.kind = kind;
            this.longs = kind == Kind.STRING ? null : new long[PAGE_ROWS];
            this.ids = kind == Kind.STRING ? new int[PAGE_ROWS] : null;
            this.dictionary = kind == Kind.STRING ? new HashMap<>() : null;
            this.entries = kind == Kind.STRING ? new ArrayList<>() : null;
        }

        /** The string's index in this chunk's dictionary, added when new. */
        int id(String s) {
            if (s == lastString) { // the same instance again (names come from one table): no hash
                return lastId;
            }
            Integer id = dictionary.get(s);
            if (id == null) {
                id = entries.size();
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                entries.add(utf8);
                dictionary.put(s, id);
                dictionaryBytes += utf8.length + 48L;
            }
            lastString = s;
            lastId = id;
            return id;
        }
    }

    private record Chunk(String name, Kind kind, long offset, long dictionaryOffset, long dataOffset, long values, long nulls,
                         long uncompressed, long compressed, byte[] min, byte[] max) { }

    private record RowGroup(long rows, Chunk[] chunks) { }

    /** The RLE / bit-packing hybrid of parquet-format's Encodings.md (definition levels, dictionary indices). */
    static final class Hybrid {
        private Hybrid() { }

        /** Encodes {@code n} values of {@code width} bits: runs of 8 or more equal values as runs, the rest bit-packed. */
        static void encode(int[] v, int n, int width, Bytes out) {
            int start = 0;
            int i = 0;
            while (i < n) {
                if (((i - start) & 7) == 0) {
                    int j = i + 1;
                    int x = v[i];
                    while (j < n && v[j] == x) {
                        j++;
                    }
                    if (j - i >= 8) {
                        packed(v, start, i, width, out);
                        run(j - i, x, width, out);
                        i = j;
                        start = j;
                        continue;
                    }
                    i = j; // j - i < 8 values, all inside this group
                    continue;
                }
                i++;
            }
            packed(v, start, n, width, out);
        }

        private static void run(int count, int value, int width, Bytes out) {
            out.varint((long) count << 1);
            for (int b = 0; b < (width + 7) / 8; b++) {
                out.put((byte) (value >>> (8 * b)));
            }
        }

        /** Values {@code from} to {@code to} bit-packed in groups of 8 (the last padded with zeros). */
        private static void packed(int[] v, int from, int to, int width, Bytes out) {
            if (from >= to) {
                return;
            }
            int groups = (to - from + 7) / 8;
            out.varint(((long) groups << 1) | 1);
            out.ensure(groups * width);
            byte[] b = out.bytes;
            int at = out.length;
            long acc = 0;
            int bits = 0;
            int end = from + groups * 8;
            for (int i = from; i < end; i++) {
                acc |= (long) (i < to ? v[i] : 0) << bits;
                bits += width;
                while (bits >= 8) {
                    b[at++] = (byte) acc;
                    acc >>>= 8;
                    bits -= 8;
                }
            }
            out.length = at;
        }
    }

    /**
     * DELTA_BINARY_PACKED of parquet-format's Encodings.md: blocks of 128 values in 4 miniblocks of 32, each
     * block's deltas less its least delta, bit-packed at the width its miniblock needs. INT32 columns take
     * their deltas in 32-bit arithmetic (wrapping), as readers of INT32 do.
     */
    static final class Delta {
        private static final int BLOCK = 128;
        private static final int MINIBLOCKS = 4;
        private static final int MINI = BLOCK / MINIBLOCKS;

        private Delta() { }

        static void encode(long[] v, int n, boolean int32, Bytes out) {
            out.varint(BLOCK);
            out.varint(MINIBLOCKS);
            out.varint(n);
            out.varint(n == 0 ? 0 : zigzag(v[0]));
            long[] d = new long[BLOCK];
            for (int from = 1; from < n; from += BLOCK) {
                int count = Math.min(BLOCK, n - from);
                long min = Long.MAX_VALUE;
                for (int i = 0; i < count; i++) {
                    long delta = int32 ? (long) ((int) v[from + i] - (int) v[from + i - 1]) : v[from + i] - v[from + i - 1];
                    d[i] = delta;
                    min = Math.min(min, delta);
                }
                out.varint(zigzag(min));
                int widthsAt = out.length;
                out.ensure(MINIBLOCKS);
                out.length += MINIBLOCKS;
                int miniblocks = (count + MINI - 1) / MINI;
                for (int m = 0; m < MINIBLOCKS; m++) {
                    int width = 0;
                    if (m < miniblocks) {
                        long or = 0;
                        for (int i = m * MINI; i < Math.min(count, (m + 1) * MINI); i++) {
                            d[i] = int32 ? (d[i] - min) & 0xffffffffL : d[i] - min;
                            or |= d[i];
                        }
                        width = 64 - Long.numberOfLeadingZeros(or);
                        pack(d, m * MINI, Math.min(count, (m + 1) * MINI), width, out);
                    }
                    out.bytes[widthsAt + m] = (byte) width;
                }
            }
        }

        /** 32 values of {@code width} bits, least significant first; past {@code to}, zeros. */
        private static void pack(long[] d, int from, int to, int width, Bytes out) {
            if (width == 0) {
                return;
            }
            out.ensure(4 * width);
            byte[] b = out.bytes;
            int at = out.length;
            long acc = 0;
            int bits = 0;
            for (int i = from; i < from + MINI; i++) {
                long x = i < to ? d[i] : 0;
                acc |= x << bits;
                int total = bits + width;
                if (total > 64) { // the top bits of x did not fit in acc
                    for (int k = 0; k < 8; k++) {
                        b[at++] = (byte) acc;
                        acc >>>= 8;
                    }
                    acc = x >>> (64 - bits);
                    total -= 64;
                }
                while (total >= 8) {
                    b[at++] = (byte) acc;
                    acc >>>= 8;
                    total -= 8;
                }
                bits = total;
            }
            out.length = at;
        }

        private static long zigzag(long v) {
            return (v << 1) ^ (v >> 63);
        }
    }

    /** Thrift's compact protocol, the few types a Parquet footer and page header use. */
    static final class Thrift {
        static final int I32 = 5;
        static final int I64 = 6;
        static final int BINARY = 8;
        static final int LIST = 9;
        static final int STRUCT = 12;

        private final Bytes out;
        private final int[] stack = new int[16];
        private int depth;
        private int last;

        Thrift(Bytes out) {
            this.out = out;
        }

        private void field(int id, int type) {
            int delta = id - last;
            if (delta > 0 && delta <= 15) {
                out.put((byte) (delta << 4 | type));
            } else {
                out.put((byte) type);
                out.varint(zigzag(id));
            }
            last = id;
        }

        void i32(int id, int v) {
            field(id, I32);
            out.varint(zigzag(v));
        }

        void i64(int id, long v) {
            field(id, I64);
            out.varint(zigzag(v));
        }

        void binary(int id, byte[] b) {
            field(id, BINARY);
            out.varint(b.length);
            out.put(b, 0, b.length);
        }

        void string(int id, String s) {
            binary(id, s.getBytes(StandardCharsets.UTF_8));
        }

        void list(int id, int elementType, int size) {
            field(id, LIST);
            if (size < 15) {
                out.put((byte) (size << 4 | elementType));
            } else {
                out.put((byte) (0xf0 | elementType));
                out.varint(size);
            }
        }

        void i32Element(int v) {
            out.varint(zigzag(v));
        }

        void stringElement(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.varint(b.length);
            out.put(b, 0, b.length);
        }

        void beginStruct(int id) {
            field(id, STRUCT);
            beginElement();
        }

        /** A struct that is a list's element. */
        void beginElement() {
            stack[depth++] = last;
            last = 0;
        }

        void endStruct() {
            out.put((byte) 0);
            last = stack[--depth];
        }

        /** Ends the top-level struct. */
        void stop() {
            out.put((byte) 0);
        }

        private static long zigzag(long v) {
            return (v << 1) ^ (v >> 63);
        }
    }

    /** A growable byte array. */
    static final class Bytes {
        byte[] bytes;
        int length;
        long uncompressed;

        Bytes(int capacity) {
            bytes = new byte[capacity];
        }

        void ensure(int more) {
            if (length + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(length + more, bytes.length * 2));
            }
        }

        void put(byte b) {
            ensure(1);
            bytes[length++] = b;
        }

        void put(byte[] b, int from, int n) {
            ensure(n);
            System.arraycopy(b, from, bytes, length, n);
            length += n;
        }

        void varint(long v) {
            ensure(10);
            while ((v & ~0x7fL) != 0) {
                bytes[length++] = (byte) ((v & 0x7f) | 0x80);
                v >>>= 7;
            }
            bytes[length++] = (byte) v;
        }
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    private static void putLong(byte[] b, int at, long v) {
        putInt(b, at, (int) v);
        putInt(b, at + 4, (int) (v >>> 32));
    }

    /** The stream, counting the bytes written (the footer gives offsets). */
    private static final class CountingOut {
        final OutputStream out;
        long count;

        CountingOut(OutputStream out) {
            this.out = out;
        }

        void write(byte[] b, int from, int n) throws IOException {
            out.write(b, from, n);
            count += n;
        }

        void flush() throws IOException {
            out.flush();
        }
    }
}
