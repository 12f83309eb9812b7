package org.flagos.trace.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.cli.CliRunner;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;

/**
 * For the recounts of the analyses and the tables' tests (cli and sql): a trace's events table made by
 * {@code flagtrace tables}, its rows read back as stored (no SQL but the read), any query's rows on DuckDB, and an
 * analysis' result as maps of column to value.
 */
public final class TableRows {
    /** One row of the events table, the columns the recounts read. */
    public record Ev(long rank, String ph, String cat, String name, Long ts, Long dur, Long device, Long stream, Long correlation,
            Long bytes, String copyKind) {
        public boolean complete() {
            return "X".equals(ph) && ts != null && dur != null && dur >= 0;
        }

        public Long end() {
            return ts + dur;
        }
    }

    private TableRows() {
    }

    /** The events table of {@code traces} (one merged trace, or several), written to {@code out} by {@code flagtrace tables}. */
    public static Path table(Path out, Path... traces) {
        List<String> args = new ArrayList<>(List.of("tables"));
        for (Path t : traces) {
            args.add(t.toString());
        }
        args.add("-o");
        args.add(out.toString());
        CliRunner cli = new CliRunner();
        int rc = cli.run(args.toArray(String[]::new));
        if (rc != 0) {
            throw new IllegalStateException("tables failed: " + cli.stderr());
        }
        return out;
    }

    /** Every row of an events table, as stored. */
    public static List<Ev> read(Path parquet) throws Exception {
        List<Ev> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT rank, ph, cat, name, ts_ns, dur_ns, device, stream, correlation, bytes, copy_kind"
                        + " FROM read_parquet('" + parquet.toAbsolutePath().toString().replace("'", "''") + "')")) {
            while (rs.next()) {
                out.add(new Ev(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), lng(rs.getObject(5)),
                        lng(rs.getObject(6)), lng(rs.getObject(7)), lng(rs.getObject(8)), lng(rs.getObject(9)),
                        lng(rs.getObject(10)), rs.getString(11)));
            }
        }
        return out;
    }

    /** The rows of {@code sql} on a fresh in-memory DuckDB, each as its columns' values (JDBC's objects). */
    public static List<List<Object>> query(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            List<List<Object>> rows = new ArrayList<>();
            int n = r.getMetaData().getColumnCount();
            while (r.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    row.add(r.getObject(i));
                }
                rows.add(row);
            }
            return rows;
        }
    }

    /** The rows of {@code select} (any query, on a fresh in-memory DuckDB) written as one Parquet file at {@code to}. */
    public static Path copy(String select, Path to) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            s.execute("COPY (" + select + ") TO " + q(to) + " (FORMAT parquet)");
        }
        return to;
    }

    /** A Parquet file's key-value metadata, in the file's order. */
    public static Map<String, String> metadata(Path parquet) throws Exception {
        Map<String, String> kv = new java.util.LinkedHashMap<>();
        for (List<Object> row : query("SELECT decode(key), decode(value) FROM parquet_kv_metadata(" + q(parquet) + ")")) {
            kv.put((String) row.get(0), (String) row.get(1));
        }
        return kv;
    }

    /** The first column of the first row of {@code sql}, a number. */
    public static long single(String sql) throws Exception {
        return ((Number) query(sql).get(0).get(0)).longValue();
    }

    /** A path as an SQL string literal. */
    public static String q(Path p) {
        return "'" + p.toAbsolutePath().toString().replace("'", "''") + "'";
    }

    private static Long lng(Object o) {
        return o == null ? null : ((Number) o).longValue();
    }

    /** Analysis {@code name} on DuckDB over {@code events}. */
    public static ResultTable run(Path events, String name) throws Exception {
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            return duck.run(name);
        }
    }

    /** A result's rows as maps of column to value. */
    public static List<Map<String, Object>> maps(ResultTable t) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (List<Object> r : t.rows()) {
            Map<String, Object> m = new HashMap<>();
            for (int i = 0; i < r.size(); i++) {
                m.put(t.columns().get(i), r.get(i));
            }
            out.add(m);
        }
        return out;
    }
}
