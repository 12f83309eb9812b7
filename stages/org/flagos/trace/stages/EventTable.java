package org.flagos.trace.stages;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The {@code events} table of docs/tables.md, written as one Parquet file by DuckDB (embedded, through its
 * JDBC driver): rows are appended to a DuckDB table in a scratch database file, then copied to Parquet
 * with the columns that need the whole trace (rank, host, absolute time, a merged trace's original pids)
 * filled in by SQL. Both the trace walk ({@link ParquetSink}) and {@code flagtrace tables} (any trace file)
 * fill it, so a capture's table is the same whichever way it was made.
 *
 * <p>Memory is bounded: DuckDB keeps at most {@link #MEMORY_LIMIT} and spills the rest to the scratch
 * database and its temporary folder, all beside each other in the scratch directory and deleted by
 * {@link #close()}. Not thread-safe: one writer.
 */
public final class EventTable implements AutoCloseable {
    /** A null column among the longs of {@link Row}. */
    public static final long NONE = Long.MIN_VALUE;
    /**
     * DuckDB's memory limit: the appender's chunks, the Parquet writer's row groups and the buffer pool
     * of the scratch database together; past it DuckDB writes blocks to disk.
     */
    static final String MEMORY_LIMIT = "256MB";
    /** DuckDB's worker threads for the copy to Parquet (the appender runs on the caller's thread). */
    static final int THREADS = 2;

    /** The published columns, in order, with their SQL types (docs/tables.md; other tools read them by these names). */
    public static final List<String[]> COLUMNS = List.of(
            new String[] {"rank", "INTEGER"}, new String[] {"slot", "INTEGER"}, new String[] {"host", "VARCHAR"},
            new String[] {"pid", "BIGINT"}, new String[] {"tid", "BIGINT"}, new String[] {"ph", "VARCHAR"},
            new String[] {"cat", "VARCHAR"}, new String[] {"name", "VARCHAR"}, new String[] {"ts_ns", "BIGINT"},
            new String[] {"dur_ns", "BIGINT"}, new String[] {"device", "INTEGER"}, new String[] {"stream", "BIGINT"},
            new String[] {"correlation", "BIGINT"}, new String[] {"external_id", "BIGINT"}, new String[] {"flow_id", "BIGINT"},
            new String[] {"bytes", "BIGINT"}, new String[] {"copy_kind", "VARCHAR"},
            new String[] {"total_allocated", "BIGINT"}, new String[] {"total_reserved", "BIGINT"});

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

        /** Clears every column but the source. */
        public Row reset() {
            pid = tid = dur = device = stream = correlation = externalId = flowId = bytes = totalAllocated = totalReserved = NONE;
            ph = cat = name = null;
            ts = 0;
            return this;
        }
    }

    private final Path database;
    private final Path spill;
    private final DuckDBConnection connection;
    private final DuckDBAppender appender;
    private final List<long[]> pids = new ArrayList<>();
    private final StringBuilder sources = new StringBuilder();
    private final StringBuilder slots = new StringBuilder();
    private long rows;

    /**
     * Opens a scratch database in {@code scratchDir} (an existing, writable directory: the output's own
     * folder, so that the scratch shares its disk).
     */
    public EventTable(Path scratchDir) throws IOException {
        String stem = ".flagtrace-events." + ProcessHandle.current().pid() + "-" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong());
        this.database = scratchDir.toAbsolutePath().resolve(stem + ".duckdb");
        this.spill = scratchDir.toAbsolutePath().resolve(stem + ".tmp");
        database.toFile().deleteOnExit();
        database.resolveSibling(database.getFileName() + ".wal").toFile().deleteOnExit();
        DuckDBConnection c = null;
        try {
            c = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + database);
            try (Statement s = c.createStatement()) {
                s.execute("SET memory_limit = '" + MEMORY_LIMIT + "'");
                s.execute("SET threads = " + THREADS);
                s.execute("SET temp_directory = '" + sqlString(spill.toString()) + "'");
                s.execute("SET preserve_insertion_order = true");
                s.execute("CREATE TABLE staged (source INTEGER, pid BIGINT, tid BIGINT, ph VARCHAR, cat VARCHAR, name VARCHAR,"
                        + " ts BIGINT, dur BIGINT, device INTEGER, stream BIGINT, correlation BIGINT, external_id BIGINT,"
                        + " flow_id BIGINT, bytes BIGINT, total_allocated BIGINT, total_reserved BIGINT)");
            }
            this.appender = c.createAppender(DuckDBConnection.DEFAULT_SCHEMA, "staged");
            this.connection = c;
        } catch (SQLException | RuntimeException e) {
            closeQuietly(c);
            deleteScratch();
            throw new IOException("cannot open the table's scratch database in " + scratchDir + ": " + firstLine(e.getMessage()), e);
        } catch (LinkageError e) { // the jar's native engine does not load on this platform
            deleteScratch();
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
    public void source(int source, long baseNs, long pidStride) {
        sources.append(sources.length() == 0 ? "" : ", ").append('(').append(source).append(", ").append(baseNs)
                .append(", ").append(pidStride).append(')');
    }

    /**
     * What a slot's rows share: its rank (null when its trace names none: the rows get {@code -1 - slot})
     * and its host (null when unknown).
     */
    public void slot(int slot, Integer rank, String host) {
        slots.append(slots.length() == 0 ? "" : ", ").append('(').append(slot).append(", ")
                .append(rank == null ? "NULL" : rank.toString()).append(", ")
                .append(host == null ? "NULL" : "'" + sqlString(host) + "'").append(')');
    }

    /**
     * A merged trace's pid {@code tracePid} of slot {@code slot} stands for {@code originalPid} in that
     * process's own trace ({@link #NONE}: a pid that was no number there, such as torch's {@code Spans}).
     */
    public void pid(int slot, long tracePid, long originalPid) {
        pids.add(new long[] {slot, tracePid, originalPid});
    }

    /** Appends one event. */
    public void add(Row r) throws IOException {
        try {
            appender.beginRow().append(r.source);
            nullable(r.pid);
            nullable(r.tid);
            string(r.ph);
            string(r.cat);
            string(r.name);
            appender.append(r.ts);
            nullable(r.dur);
            if (r.device == NONE) {
                appender.appendNull();
            } else {
                appender.append((int) r.device);
            }
            nullable(r.stream);
            nullable(r.correlation);
            nullable(r.externalId);
            nullable(r.flowId);
            nullable(r.bytes);
            nullable(r.totalAllocated);
            nullable(r.totalReserved);
            appender.endRow();
            rows++;
        } catch (SQLException e) {
            throw new IOException("cannot append to the events table: " + firstLine(e.getMessage()), e);
        }
    }

    private void nullable(long v) throws SQLException {
        if (v == NONE) {
            appender.appendNull();
        } else {
            appender.append(v);
        }
    }

    private void string(String s) throws SQLException {
        if (s == null) {
            appender.appendNull();
        } else {
            appender.append(s);
        }
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
        try (Statement s = connection.createStatement()) {
            appender.flush();
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
            Files.deleteIfExists(parquet);
            s.execute("COPY (" + SELECT + ") TO '" + sqlString(parquet.toAbsolutePath().toString())
                    + "' (FORMAT parquet, COMPRESSION zstd)");
            return rows;
        } catch (SQLException e) {
            throw new IOException("cannot write the events table: " + firstLine(e.getMessage()), e);
        }
    }

    /**
     * The published table from the staged rows: a merged trace's row's slot from its pid; a slot without a
     * rank gets {@code -1 - slot}; times move from the source's base to epoch ns; a merged trace's pids go
     * back to the process's own; a copy's kind comes from torch's name for it
     * ({@code Memcpy HtoD (Pageable -> Device)}).
     */
    private static final String SELECT = "SELECT COALESCE(s.rank, -1 - e.slot)::INTEGER AS rank, e.slot, s.host,"
            + " CASE WHEN p.trace_pid IS NULL THEN e.pid ELSE p.pid END AS pid, e.tid, e.ph, e.cat, e.name, e.ts + e.base AS ts_ns,"
            + " e.dur AS dur_ns, e.device, e.stream, e.correlation, e.external_id, e.flow_id, e.bytes,"
            + " CASE WHEN e.cat = 'gpu_memcpy' OR e.cat = 'Memcpy'"
            + " THEN NULLIF(regexp_extract(e.name, '^Memcpy ([A-Za-z]+to[A-Za-z]+)', 1), '') END AS copy_kind,"
            + " e.total_allocated, e.total_reserved"
            + " FROM (SELECT r.*, COALESCE(src.base, 0) AS base, CASE WHEN src.stride > 0 AND r.pid >= src.stride"
            + " THEN (r.pid // src.stride - 1)::INTEGER ELSE r.source END AS slot"
            + " FROM staged r LEFT JOIN sources src ON src.source = r.source) e"
            + " LEFT JOIN slots s ON s.slot = e.slot LEFT JOIN pids p ON p.slot = e.slot AND p.trace_pid = e.pid";

    /** Closes DuckDB and deletes the scratch database and its spill folder. */
    @Override
    public void close() {
        try {
            appender.close();
        } catch (SQLException | RuntimeException ignored) {
            // closing the connection below releases it too
        }
        closeQuietly(connection);
        deleteScratch();
    }

    private void deleteScratch() {
        try {
            Files.deleteIfExists(database);
            Files.deleteIfExists(database.resolveSibling(database.getFileName() + ".wal"));
            if (Files.isDirectory(spill)) {
                try (var files = Files.list(spill)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(spill);
            }
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
