package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.TraceHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Parquet writer read back by DuckDB, value by value: numbers at their extremes and in every
 * delta width, nulls, empty and non-ASCII strings, wide dictionaries, pages and row groups that end
 * mid-block; and an output that fails mid-write leaves no file.
 */
class ParquetColumnsTest {
    @TempDir
    Path dir;

    private static final List<String[]> COLUMNS = List.of(new String[] {"i", "INTEGER"}, new String[] {"l", "BIGINT"},
            new String[] {"s", "VARCHAR"}, new String[] {"n", "BIGINT"}, new String[] {"t", "VARCHAR"});

    private static String q(Path p) {
        return "'" + p.toAbsolutePath().toString().replace("'", "''") + "'";
    }

    /** One row of the generated table; null for a null. */
    private record Row(Integer i, Long l, String s, Long n, String t) { }

    private static List<Row> generate(int rows, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        long[] extremes = {Long.MAX_VALUE, Long.MIN_VALUE + 1, 0, -1, 1, Long.MAX_VALUE - 1};
        int[] intExtremes = {Integer.MAX_VALUE, Integer.MIN_VALUE, 0, -1, 1};
        String[] strings = {"", "X", "ac2g", "Memcpy HtoD (Pageable -> Device)", "名前 ✓", "a\"b,c\nd", "\uD83D\uDE00"};
        List<Row> out = new ArrayList<>(rows);
        long ts = 1_795_982_695_668_500_514L;
        for (int k = 0; k < rows; k++) {
            int mode = (k / 1000) % 4; // stretches of each kind of values, so every delta width appears
            Integer i = r.nextInt(10) == 0 ? null : mode == 0 ? intExtremes[r.nextInt(intExtremes.length)] : r.nextInt(1 << (k % 30 + 1));
            ts += r.nextInt(1 << (k % 20));
            Long l = mode == 1 ? Long.valueOf(extremes[r.nextInt(extremes.length)]) : mode == 2 ? Long.valueOf(r.nextLong()) : Long.valueOf(ts);
            String s = r.nextInt(7) == 0 ? null : mode == 3 ? "name-" + k : strings[r.nextInt(strings.length)];
            out.add(new Row(i, l, s, null, k % 5000 == 0 ? "t" + k : null));
        }
        return out;
    }

    private static void write(ParquetColumns p, List<Row> rows) throws IOException {
        for (Row row : rows) {
            if (row.i() != null) {
                p.number(0, row.i());
            }
            if (row.l() != null) {
                p.number(1, row.l());
            }
            if (row.s() != null) {
                p.string(2, row.s());
            }
            if (row.t() != null) {
                p.string(4, row.t());
            }
            p.endRow();
        }
    }

    private static List<Row> readBack(Path file) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT i, l, s, n, t FROM read_parquet(" + q(file) + ", file_row_number = true) ORDER BY file_row_number")) {
            while (r.next()) {
                rows.add(new Row((Integer) r.getObject(1), (Long) r.getObject(2), r.getString(3), (Long) r.getObject(4), r.getString(5)));
            }
        }
        return rows;
    }

    @Test
    void everyValueReadsBackAsWritten() throws Exception {
        // more than a row group (two full, one part), a last page and a last delta block cut short
        int rows = 2 * ParquetColumns.ROW_GROUP_ROWS + 3 * ParquetColumns.PAGE_ROWS + 77;
        List<Row> want = generate(rows, 42);
        Path file = dir.resolve("t.parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            ParquetColumns p = new ParquetColumns(out, COLUMNS, Map.of("k", "v ✓"));
            write(p, want);
            assertEquals(rows, p.rows());
            p.finish();
        }
        List<Row> got = readBack(file);
        assertEquals(want.size(), got.size());
        for (int k = 0; k < want.size(); k++) {
            if (!Objects.equals(want.get(k), got.get(k))) {
                assertEquals(want.get(k), got.get(k), "row " + k);
            }
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM " + q(file) + ")")) {
                List<String> types = new ArrayList<>();
                while (r.next()) {
                    types.add(r.getString(1) + " " + r.getString(2));
                }
                assertEquals(List.of("i INTEGER", "l BIGINT", "s VARCHAR", "n BIGINT", "t VARCHAR"), types);
            }
            try (ResultSet r = s.executeQuery("SELECT decode(value) FROM parquet_kv_metadata(" + q(file) + ") WHERE decode(key) = 'k'")) {
                assertTrue(r.next());
                assertEquals("v ✓", r.getString(1));
            }
            try (ResultSet r = s.executeQuery("SELECT count(DISTINCT row_group_id), max(row_group_num_rows) FROM parquet_metadata(" + q(file) + ")")) {
                assertTrue(r.next());
                assertEquals(3, r.getInt(1));
                assertEquals(ParquetColumns.ROW_GROUP_ROWS, r.getInt(2));
            }
            // the statistics let DuckDB skip row groups; they must agree with the values
            long wantMax = want.stream().filter(x -> x.l() != null).mapToLong(Row::l).max().orElseThrow();
            try (ResultSet r = s.executeQuery("SELECT max(stats_max_value::BIGINT), sum(stats_null_count) FROM parquet_metadata(" + q(file)
                    + ") WHERE path_in_schema = 'l'")) {
                assertTrue(r.next());
                assertEquals(wantMax, r.getLong(1));
                assertEquals(0, r.getLong(2));
            }
        }
    }

    @Test
    void aTableWithoutRowsHasItsColumns() throws Exception {
        Path file = dir.resolve("empty.parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            ParquetColumns p = new ParquetColumns(out, COLUMNS, Map.of());
            p.finish();
        }
        assertEquals(List.of(), readBack(file));
    }

    private static NameTable names() {
        NameTable names = new NameTable();
        names.intern("cudaLaunchKernel");
        return names;
    }

    private static TraceRecord api(long i) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.ACTIVITY;
        r.kind = EventKind.RUNTIME;
        r.nameId = 0;
        r.processId = 7;
        r.threadId = 8;
        r.startNs = 1_000_000_000L + i * 10;
        r.endNs = r.startNs + 5;
        return r;
    }

    /** A walk that fails after row groups went to the file: the temporary name goes, and nothing appears. */
    @Test
    void aFailureMidWriteLeavesNoFile() throws Exception {
        Path target = dir.resolve("events.parquet");
        AtomicOutput output = new AtomicOutput(target);
        ParquetSink sink = new ParquetSink(output.stream(), names(), new TraceHeader("t", List.of(), 0L, Map.of(), "p", 7),
                k -> "cuda_runtime");
        sink.header(0);
        for (long i = 0; i < ParquetColumns.ROW_GROUP_ROWS + 10; i++) {
            sink.apiSlice(api(i));
        }
        output.stream().flush();
        long written;
        try (Stream<Path> made = Files.list(dir)) {
            List<Path> files = made.toList();
            assertEquals(1, files.size(), files.toString());
            assertFalse(files.get(0).equals(target), "a temporary name while the walk runs");
            written = Files.size(files.get(0));
        }
        assertTrue(written > 1000, "a row group is on disk before the footer: " + written + " bytes");
        sink.abandon(); // the walk failed
        output.close(); // never committed
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "no output and no temporary file");
        }
    }

    /** An output that fails (a full disk) fails the sink with that error, at the row group that met it. */
    @Test
    void aFailingStreamFailsTheWalk() throws Exception {
        OutputStream full = new OutputStream() {
            long n;

            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                n += len;
                if (n > 100) {
                    throw new IOException("No space left on device");
                }
            }
        };
        ParquetSink sink = new ParquetSink(full, names(), new TraceHeader("t", List.of(), 0L, Map.of(), "p", 7), k -> "cuda_runtime");
        sink.header(0);
        IOException e = assertThrows(IOException.class, () -> {
            for (long i = 0; i < 2L * ParquetColumns.ROW_GROUP_ROWS; i++) {
                sink.apiSlice(api(i));
            }
        });
        assertEquals("No space left on device", e.getMessage());
        sink.abandon();
    }
}
