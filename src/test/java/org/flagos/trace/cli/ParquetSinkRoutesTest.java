package org.flagos.trace.cli;

import static org.flagos.trace.testing.TableRows.metadata;
import static org.flagos.trace.testing.TableRows.q;
import static org.flagos.trace.testing.TableRows.query;
import static org.flagos.trace.testing.TableRows.single;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The walk's Parquet sink and {@code flagtrace tables} of the JSON trace both write the table through
 * flagtrace's own writer (no scratch CSV, no DuckDB). On every bundled capture both routes give the same
 * table, column by column with types, and row by row: the walk's rows in the JSON trace's order, the
 * tables' rows in the order of rank, slot and {@code ts_ns} (ties in the trace's order), compared by
 * position (DuckDB's {@code file_row_number}); and the same file metadata but the source's name.
 */
class ParquetSinkRoutesTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private static String numbered(Path p) {
        return "read_parquet(" + q(p) + ", file_row_number = true)";
    }

    /** The rows of {@code p} with their positions once stably ordered by rank, slot and ts_ns, as {@code tables} orders them. */
    private static String sorted(Path p) {
        return "(SELECT * EXCLUDE (file_row_number), row_number() OVER (ORDER BY rank, slot, ts_ns, file_row_number) - 1 AS"
                + " file_row_number FROM " + numbered(p) + ")";
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
        // with each row's position: the walk's rows, stably sorted by rank, slot and ts_ns, are the tables' in its order
        assertEquals(0, single("SELECT count(*) FROM (SELECT * FROM " + sorted(walked) + " EXCEPT ALL SELECT * FROM "
                + numbered(read) + ")"), "rows of the sink's table not in the tables' at the same place");
        assertEquals(0, single("SELECT count(*) FROM (SELECT * FROM " + numbered(read) + " EXCEPT ALL SELECT * FROM "
                + sorted(walked) + ")"), "rows of the tables' not in the sink's table at the same place");

        Map<String, String> kv = metadata(walked);
        Map<String, String> tables = metadata(read);
        assertEquals("t.json", tables.remove("flagtrace.source"), tables.toString());
        Map<String, String> walkedBut = new LinkedHashMap<>(kv);
        walkedBut.remove("flagtrace.source");
        assertEquals(walkedBut, tables, "the same file metadata but the source's name");
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
