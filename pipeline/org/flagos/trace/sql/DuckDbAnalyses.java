package org.flagos.trace.sql;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Runs {@link Analyses} on DuckDB, embedded through its JDBC driver (an in-memory database: nothing
 * to install, nothing written), over a Parquet events table: one {@code .parquet} file, or a folder
 * of them (read as one table).
 */
public final class DuckDbAnalyses implements AutoCloseable {
    private final Connection db;

    private DuckDbAnalyses(Connection db) {
        this.db = db;
    }

    /** Opens DuckDB with {@code events} as a view of the Parquet file or folder {@code events}. */
    public static DuckDbAnalyses open(Path events) throws IOException {
        String source;
        if (Files.isDirectory(events)) {
            source = events.resolve("*.parquet").toString();
        } else if (Files.isRegularFile(events)) {
            source = events.toString();
        } else {
            throw new IOException(events + ": no such file or folder");
        }
        Properties props = new Properties();
        // Parquet is built into the driver; nothing is fetched (the CLI never touches the network).
        props.setProperty("autoinstall_known_extensions", "false");
        props.setProperty("autoload_known_extensions", "false");
        try {
            Connection c = DriverManager.getConnection("jdbc:duckdb:", props);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE VIEW " + Analyses.INPUT_TABLE + " AS SELECT * FROM read_parquet(" + literal(source) + ")");
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            return new DuckDbAnalyses(c);
        } catch (SQLException e) {
            throw new IOException(events + " is not a Parquet events table: " + firstLine(e), e);
        }
    }

    /** Runs every analysis, in {@link Analyses#NAMES}'s order. */
    public List<ResultTable> runAll() throws IOException {
        List<ResultTable> out = new ArrayList<>();
        for (String name : Analyses.NAMES) {
            out.add(run(name));
        }
        return out;
    }

    /** Runs analysis {@code name}. */
    public ResultTable run(String name) throws IOException {
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery(Analyses.sql(name))) {
            ResultSetMetaData meta = rs.getMetaData();
            List<String> columns = new ArrayList<>();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                columns.add(meta.getColumnLabel(i));
            }
            List<List<Object>> rows = new ArrayList<>();
            while (rs.next()) {
                List<Object> row = new ArrayList<>(columns.size());
                for (int i = 1; i <= columns.size(); i++) {
                    row.add(value(rs.getObject(i), name, columns.get(i - 1)));
                }
                rows.add(row);
            }
            return new ResultTable(name, columns, rows);
        } catch (SQLException e) {
            throw new IOException("analysis " + name + " failed on DuckDB: " + firstLine(e), e);
        }
    }

    /** A value as the analyses promise them: a whole number as a Long, text as a String, or null. */
    public static Object value(Object v, String table, String column) {
        if (v == null || v instanceof String || v instanceof Long) {
            return v;
        }
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof BigInteger b) {
            return b.longValueExact();
        }
        throw new IllegalStateException(table + "." + column + " holds a " + v.getClass().getSimpleName()
                + " (" + v + "); the analyses give whole numbers and text only");
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static String firstLine(SQLException e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        return m.lines().findFirst().orElse(m);
    }

    @Override
    public void close() throws IOException {
        try {
            db.close();
        } catch (SQLException e) {
            throw new IOException(e);
        }
    }
}
