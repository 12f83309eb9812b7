package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The walk's Parquet sink writes the table itself (no scratch CSV, no DuckDB); {@code flagtrace tables}
 * still stages its rows as CSV for DuckDB. On every bundled capture both routes give the same table,
 * compared row by row in file order (DuckDB's {@code file_row_number}) and column by column with types.
 */
class ParquetSinkRoutesTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private static List<List<Object>> query(String sql) throws Exception {
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

    private static long single(String sql) throws Exception {
        return ((Number) query(sql).get(0).get(0)).longValue();
    }

    private static String q(Path p) {
        return "'" + p.toAbsolutePath().toString().replace("'", "''") + "'";
    }

    private static String numbered(Path p) {
        return "read_parquet(" + q(p) + ", file_row_number = true)";
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200-app", "h200-app-tiny2k", "h200-mt4", "h200-tiny30k", "h200-java-parity", "h200-java-parity-wide-tid",
            "h200-java-kinds/h200-java-kinds", "h200-java-steps/h200-java-steps", "h200-kinds/h200-kinds", "h200-managed/h200-managed",
            "h200-java-managed/h200-java-managed", "h200-ranks/rank1"})
    void theSinksTableIsTheCsvRoutesRowByRow(String capture) throws Exception {
        Path fltrbuf = Captures.capture(capture);
        Path json = dir.resolve("t.json");
        Path walked = dir.resolve("walked.parquet");
        Path read = dir.resolve("read.parquet");
        assertEquals(0, cli.run("replay", fltrbuf.toString(), "-o", json.toString()), cli.stderr());
        assertEquals(0, cli.run("replay", fltrbuf.toString(), "-o", walked.toString()), cli.stderr());
        assertEquals(0, cli.run("tables", json.toString(), "-o", read.toString()), cli.stderr());

        assertEquals(query("DESCRIBE SELECT * FROM " + q(read)), query("DESCRIBE SELECT * FROM " + q(walked)), "columns and types");
        long rows = single("SELECT count(*) FROM " + q(read));
        assertTrue(rows > 0, capture + " has rows");
        assertEquals(rows, single("SELECT count(*) FROM " + q(walked)), "rows");
        // with each row's position in its file: the same rows in the same order
        assertEquals(0, single("SELECT count(*) FROM (SELECT * FROM " + numbered(walked) + " EXCEPT ALL SELECT * FROM "
                + numbered(read) + ")"), "rows of the sink's table not in the CSV route's at the same place");
        assertEquals(0, single("SELECT count(*) FROM (SELECT * FROM " + numbered(read) + " EXCEPT ALL SELECT * FROM "
                + numbered(walked) + ")"), "rows of the CSV route's table not in the sink's at the same place");

        Map<String, String> kv = new LinkedHashMap<>();
        for (List<Object> row : query("SELECT decode(key), decode(value) FROM parquet_kv_metadata(" + q(walked) + ")")) {
            kv.put((String) row.get(0), (String) row.get(1));
        }
        assertEquals("1", kv.get("flagtrace.schema_version"), kv.toString());
        long base = single("SELECT min(ts_ns) FROM " + q(walked)); // the base is at or before the first event
        assertTrue(Long.parseLong(kv.get("flagtrace.base_time_ns")) <= base, kv.toString());
        assertEquals(String.valueOf(single("SELECT min(rank) FROM " + q(walked))), kv.get("flagtrace.rank"), kv.toString());
        assertTrue(kv.get("flagtrace.clock").startsWith("ts_ns: nanoseconds since the epoch"), kv.toString());
        assertTrue(kv.containsKey("flagtrace.source"), kv.toString());
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of("read.parquet", "t.json", "walked.parquet"), left.map(p -> p.getFileName().toString()).sorted().toList(),
                    "nothing beside the outputs");
        }
    }
}
