package org.flagos.trace.encoders;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The route {@code flagtrace tables} took before it wrote its Parquet file itself ({@link EventTable}), kept
 * in the tests only as the reference the direct writer is checked against (TablesRouteIdentityTest): rows
 * staged as CSV in a scratch file, which DuckDB reads and copies to Parquet with the columns that need the
 * whole trace filled in by SQL, the rank rule {@code COALESCE(rank, -1 - slot)} among them. Rows stay in the
 * trace's order. Not used by flagtrace itself.
 */
public final class CsvDuckDbTable implements EventRows, AutoCloseable {
    private static final long NONE = EventTable.NONE;
    /** DuckDB's memory limit while copying (the CSV reader's buffers, the join, the Parquet writer's row groups). */
    static final String MEMORY_LIMIT = "256MB";
    /**
     * DuckDB's worker threads for the copy to Parquet: one. The rows keep the trace's order, and on the
     * 13.4M-event CSV one thread cost 18.5 s user + 5.6 s sys against 55.5 + 20.1 s for two threads keeping
     * the order (which then buffer and spill) and 20.0 + 8.0 s for two in any order
     * (benchmarks/results/2026-12-02-vm/tables-export.txt).
     */
    static final int THREADS = 1;

    private final EventTable.CopyKinds copyKinds = new EventTable.CopyKinds();
    private final Path csv;
    private final Path spill;
    private final Writer out;
    private Connection connection;
    private final List<long[]> pids = new ArrayList<>();
    private final StringBuilder sources = new StringBuilder();
    private final StringBuilder slots = new StringBuilder();
    private long rows;


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

    /** The staged rows' columns, as DuckDB reads the CSV. */
    private static final String STAGED_COLUMNS = "{'source': 'INTEGER', 'pid': 'BIGINT', 'tid': 'BIGINT', 'ph': 'VARCHAR',"
            + " 'cat': 'VARCHAR', 'name': 'VARCHAR', 'ts': 'BIGINT', 'dur': 'BIGINT', 'device': 'INTEGER', 'stream': 'BIGINT',"
            + " 'correlation': 'BIGINT', 'external_id': 'BIGINT', 'flow_id': 'BIGINT', 'bytes': 'BIGINT', 'copy_kind': 'VARCHAR',"
            + " 'total_allocated': 'BIGINT', 'total_reserved': 'BIGINT', 'from_device': 'INTEGER', 'to_device': 'INTEGER',"
            + " 'from_context': 'BIGINT', 'to_context': 'BIGINT', 'in_elems': 'BIGINT', 'out_elems': 'BIGINT',"
            + " 'dtype': 'VARCHAR', 'group_size': 'INTEGER', 'process_group': 'VARCHAR'}";

    /**
     * Opens a scratch file in {@code scratchDir} (an existing, writable directory: the output's own
     * folder, so that the scratch shares its disk).
     */
    public CsvDuckDbTable(Path scratchDir) throws IOException {
        String stem = EventTable.SCRATCH_PREFIX + ProcessHandle.current().pid() + "-" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong());
        this.csv = scratchDir.toAbsolutePath().resolve(stem + ".csv");
        this.spill = scratchDir.toAbsolutePath().resolve(stem + ".tmp");
        csv.toFile().deleteOnExit();
        try {
            this.out = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(csv), StandardCharsets.UTF_8), 1 << 20);
        } catch (IOException e) {
            throw new IOException("cannot make the table's scratch file in " + scratchDir + ": " + e.getMessage(), e);
        }
    }

    private Connection connect() throws IOException {
        Connection c = null;
        try {
            c = DriverManager.getConnection("jdbc:duckdb:");
            try (Statement s = c.createStatement()) {
                s.execute("SET memory_limit = '" + MEMORY_LIMIT + "'");
                s.execute("SET threads = " + THREADS);
                s.execute("SET temp_directory = '" + sqlString(spill.toString()) + "'");
                s.execute("SET preserve_insertion_order = true");
            }
            return c;
        } catch (SQLException | RuntimeException e) {
            closeQuietly(c);
            if (c == null && String.valueOf(e.getMessage()).startsWith("No suitable driver")) {
                throw new IOException("DuckDB, which writes the table, is not on the class path: add org.duckdb:duckdb_jdbc"
                        + " (an optional dependency of flagtrace; the CLI has it)", e);
            }
            throw new IOException("cannot start DuckDB: " + firstLine(e.getMessage()), e);
        } catch (LinkageError e) { // the jar's native engine does not load on this platform
            throw new IOException("DuckDB, which writes the table, cannot run here (" + firstLine(e.getMessage())
                    + "); write a JSON trace instead and make its table where DuckDB runs (flagtrace tables)", e);
        }
    }

    /**
     * One input: the base time its rows' {@link Row#ts} count from (epoch ns), and for a merged trace
     * ({@code flagtrace merge}) its pid stride, by which each row's pid names its merge slot
     * ({@code (slot + 1) * stride + n}); 0 for any other trace, whose rows are all of slot {@code source}.
     * Any number of times before {@link #writeParquet}, in any order with the rows.
     */
    @Override
    public void source(int source, String name, long baseNs, long pidStride) {
        sources.append(sources.length() == 0 ? "" : ", ").append('(').append(source).append(", ").append(baseNs)
                .append(", ").append(pidStride).append(')');
    }

    /**
     * What a slot's rows share: its rank (null when its trace names none: the rows get {@code -1 - slot})
     * and its host (null when unknown).
     */
    @Override
    public void slot(int slot, Integer rank, String host) {
        slots.append(slots.length() == 0 ? "" : ", ").append('(').append(slot).append(", ")
                .append(rank == null ? "NULL" : rank.toString()).append(", ")
                .append(host == null ? "NULL" : "'" + sqlString(host) + "'").append(')');
    }

    /**
     * A merged trace's pid {@code tracePid} of slot {@code slot} stands for {@code originalPid} in that
     * process's own trace ({@link #NONE}: a pid that was no number there, such as torch's {@code Spans}).
     */
    @Override
    public void pid(int slot, long tracePid, long originalPid) {
        pids.add(new long[] {slot, tracePid, originalPid});
    }

    /** Appends one event. */
    @Override
    public void add(EventTable.Row r) throws IOException {
        Writer w = out;
        w.write(Integer.toString(r.source));
        nullable(w, r.pid);
        nullable(w, r.tid);
        string(w, r.ph);
        string(w, r.cat);
        string(w, r.name);
        w.write(',');
        w.write(Long.toString(r.ts));
        nullable(w, r.dur);
        nullable(w, device(r.device));
        nullable(w, r.stream);
        nullable(w, r.correlation);
        nullable(w, r.externalId);
        nullable(w, r.flowId);
        nullable(w, r.bytes);
        string(w, copyKinds.of(r.cat, r.name));
        nullable(w, r.totalAllocated);
        nullable(w, r.totalReserved);
        nullable(w, device(r.fromDevice));
        nullable(w, device(r.toDevice));
        nullable(w, r.fromContext);
        nullable(w, r.toContext);
        nullable(w, r.inElems);
        nullable(w, r.outElems);
        string(w, r.dtype);
        nullable(w, device(r.groupSize));
        string(w, r.processGroup);
        w.write('\n');
        rows++;
    }

    private static long device(long v) {
        return v == NONE || v != (int) v ? NONE : v;
    }

    /** A number, or nothing for null. */
    private static void nullable(Writer w, long v) throws IOException {
        w.write(',');
        if (v != NONE) {
            w.write(Long.toString(v));
        }
    }

    /** A string always quoted (its quotes doubled), so that an empty one is not null; nothing for null. */
    private static void string(Writer w, String s) throws IOException {
        w.write(',');
        if (s == null) {
            return;
        }
        w.write('"');
        int from = 0;
        for (int q = s.indexOf('"'); q >= 0; q = s.indexOf('"', from)) {
            w.write(s, from, q + 1 - from);
            w.write('"');
            from = q + 1;
        }
        w.write(s, from, s.length() - from);
        w.write('"');
    }

    /** Rows appended so far. */
    public long rows() {
        return rows;
    }

    /**
     * Writes the table to {@code parquet} (a new file, replaced if there: the caller renames it into place),
     * the slots' facts and pids filled in; returns the rows written.
     */
    public long writeParquet(Path parquet) throws IOException {
        stage();
        copy(parquet, "");
        return rows;
    }

    /**
     * The table's parts by rank: each distinct (rank, slot) of its rows with their count, ordered by rank
     * then slot (the slots' facts filled in as {@link #writeParquet(Path)} does).
     */
    public List<long[]> partitions() throws IOException {
        stage();
        List<long[]> parts = new ArrayList<>();
        try (Statement s = connection.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SELECT rank, slot, count(*) FROM (" + SELECT + ") GROUP BY rank, slot ORDER BY rank, slot")) {
            while (rs.next()) {
                parts.add(new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)});
            }
            return parts;
        } catch (SQLException e) {
            throw new IOException("cannot write the events table: " + firstLine(e.getMessage()), e);
        }
    }

    /**
     * Writes the rows of rank {@code rank} (and of slot {@code slot}, unless it is negative) to {@code parquet},
     * in the table's order; as {@link #writeParquet(Path)} otherwise.
     */
    public void writeParquet(Path parquet, int rank, int slot) throws IOException {
        stage();
        copy(parquet, " WHERE rank = " + rank + (slot >= 0 ? " AND slot = " + slot : ""));
    }

    private boolean staged;

    /** Reads the scratch rows into DuckDB, once, with the slots' facts and pids beside them. */
    private void stage() throws IOException {
        if (staged) {
            return;
        }
        out.close();
        connection = connect();
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE VIEW staged AS SELECT * FROM read_csv('" + sqlString(csv.toString()) + "', header = false,"
                    + " delim = ',', quote = '\"', escape = '\"', nullstr = '', allow_quoted_nulls = false,"
                    + " strict_mode = true, columns = " + STAGED_COLUMNS
                    // DuckDB's dialect sniffer refuses an empty file though every column is given: a trace
                    // without timed events makes a table with its columns and no row.
                    + (rows == 0 ? ", auto_detect = false" : "") + ")");
            s.execute("CREATE TABLE sources (source INTEGER, base BIGINT, stride BIGINT)");
            if (sources.length() > 0) {
                s.execute("INSERT INTO sources VALUES " + sources);
            }
            s.execute("CREATE TABLE slots (slot INTEGER, rank INTEGER, host VARCHAR)");
            if (slots.length() > 0) {
                s.execute("INSERT INTO slots VALUES " + slots);
            }
            s.execute("CREATE TABLE pids (slot INTEGER, trace_pid BIGINT, pid BIGINT)");
            if (!pids.isEmpty()) {
                try (var insert = connection.prepareStatement("INSERT INTO pids VALUES (?, ?, ?)")) {
                    for (long[] p : pids) {
                        insert.setInt(1, (int) p[0]);
                        insert.setLong(2, p[1]);
                        if (p[2] == NONE) {
                            insert.setNull(3, java.sql.Types.BIGINT);
                        } else {
                            insert.setLong(3, p[2]);
                        }
                        insert.addBatch();
                    }
                    insert.executeBatch();
                }
            }
            staged = true;
        } catch (SQLException e) {
            throw new IOException("cannot write the events table: " + firstLine(e.getMessage()), e);
        }
    }

    private void copy(Path parquet, String where) throws IOException {
        try (Statement s = connection.createStatement()) {
            Files.deleteIfExists(parquet);
            s.execute("COPY (" + (where.isEmpty() ? SELECT : "SELECT * FROM (" + SELECT + ")" + where) + ") TO '" + sqlString(parquet.toAbsolutePath().toString())
                    + "' (FORMAT parquet, COMPRESSION zstd)");
        } catch (SQLException e) {
            throw new IOException("cannot write the events table: " + firstLine(e.getMessage()), e);
        }
    }

    /**
     * The published table from the staged rows: a merged trace's row's slot from its pid; a slot without a
     * rank gets {@code -1 - slot} ({@link #rank}); times move from the source's base to epoch ns; a merged
     * trace's pids go back to the process's own. A copy's kind is staged with the row ({@link CopyKinds}).
     */
    private static final String SELECT = "SELECT COALESCE(s.rank, -1 - e.slot)::INTEGER AS rank, e.slot, s.host,"
            + " CASE WHEN p.trace_pid IS NULL THEN e.pid ELSE p.pid END AS pid, e.tid, e.ph, e.cat, e.name, e.ts + e.base AS ts_ns,"
            + " e.dur AS dur_ns, e.device, e.stream, e.correlation, e.external_id, e.flow_id, e.bytes,"
            + " e.copy_kind,"
            + " e.total_allocated, e.total_reserved, e.from_device, e.to_device, e.from_context, e.to_context,"
            + " e.in_elems, e.out_elems, e.dtype, e.group_size, e.process_group"
            + " FROM (SELECT r.*, COALESCE(src.base, 0) AS base, CASE WHEN src.stride > 0 AND r.pid >= src.stride"
            + " THEN (r.pid // src.stride - 1)::INTEGER ELSE r.source END AS slot"
            + " FROM staged r LEFT JOIN sources src ON src.source = r.source) e"
            + " LEFT JOIN slots s ON s.slot = e.slot LEFT JOIN pids p ON p.slot = e.slot AND p.trace_pid = e.pid";

    /** Closes DuckDB and deletes the scratch file and DuckDB's spill folder. */
    @Override
    public void close() {
        try {
            out.close();
        } catch (IOException | RuntimeException ignored) {
            // deleted next
        }
        closeQuietly(connection);
        connection = null;
        deleteScratch();
    }

    private void deleteScratch() {
        try {
            Files.deleteIfExists(csv);
            deleteTree(spill);
        } catch (IOException ignored) {
            // best effort: the scratch names start with a dot and say what they are
        }
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException | RuntimeException ignored) {
                // nothing left to save
            }
        }
    }

    private static String sqlString(String s) {
        return s.replace("'", "''");
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
