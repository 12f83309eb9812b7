package org.flagos.trace.cli;

import static org.flagos.trace.testing.TableRows.q;
import static org.flagos.trace.testing.TableRows.query;
import static org.flagos.trace.testing.TableRows.single;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.flagos.trace.encoders.CsvDuckDbTable;
import org.flagos.trace.encoders.EventRows;
import org.flagos.trace.encoders.EventTable;
import org.flagos.trace.report.TraceTables;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code flagtrace tables} before and after it wrote Parquet itself: the same traces read into the route it
 * took before (rows staged as CSV, DuckDB filling in the slots' facts by SQL: {@link CsvDuckDbTable}, kept in
 * the tests as the reference) and into {@link EventTable} (flagtrace's own writer, rows sorted), both files
 * read by DuckDB. The columns and their types are the same, and row by row the values: the new file's row at
 * position i is the old file's rows, stably ordered by rank, slot and ts_ns, at position i (the one
 * difference, by design: the old kept the trace's order). The new file written with tiny in-memory blocks
 * (every block sorted into a run in a scratch file, the runs merged) is byte for byte the one written in
 * memory, and no scratch file is left; the file metadata names the traces, and a base time and a rank
 * only where the file has one. On every trace the tables tests read: JSON of bundled captures,
 * torch's own traces, HTA's, a merged trace and several traces in one table.
 */
class TablesRouteIdentityTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private static Path resource(String path) {
        return Path.of("src/test/resources").resolve(path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"capture:h200-app-tiny2k", "capture:h200-mt4", "capture:h200-tiny30k", "capture:h200-java-kinds/h200-java-kinds",
            "capture:h200-managed/h200-managed", "capture:h200-ranks/rank0",
            "captures/h200-ranks/h200-ranks.merged.json.gz", "captures/h200-kinds/h200-kinds.torch.pt.trace.json.gz",
            "torch-reference/torch_trace.json", "hta/nccl_data.json.gz", "hta/simple_add_trace.json.gz", "hta/cpu_only_rank-34.json.gz",
            "hta/sampled_rank-0.json.gz+hta/sampled_rank-1.json.gz", "hta/sampled_rank-1.json.gz+torch-reference/torch_trace.json"})
    void theDirectWritersRowsAreTheCsvRoutesSortedByRankSlotAndTime(String input) throws Exception {
        List<Path> traces = new ArrayList<>();
        for (String one : input.split("\\+")) {
            if (one.startsWith("capture:")) {
                Path json = dir.resolve("t.json");
                assertEquals(0, cli.run("replay", Captures.capture(one.substring("capture:".length())).toString(), "-o", json.toString()),
                        cli.stderr());
                traces.add(json);
            } else {
                traces.add(resource(one));
            }
        }
        Path scratch = Files.createDirectories(dir.resolve("scratch"));
        Path before = dir.resolve("before.parquet");
        try (CsvDuckDbTable old = new CsvDuckDbTable(scratch)) {
            read(old, traces);
            old.writeParquet(before);
        }
        Path after = dir.resolve("after.parquet");
        try (EventTable now = new EventTable(scratch)) {
            read(now, traces);
            now.writeParquet(after);
        }
        Path spilled = dir.resolve("spilled.parquet");
        try (EventTable now = new EventTable(scratch, 1_000)) {
            read(now, traces);
            now.writeParquet(spilled);
            try (Stream<Path> left = Files.list(scratch)) {
                assertTrue(left.findAny().isPresent() || single("SELECT count(*) FROM " + q(after)) <= 1_000,
                        "more than a block: runs in the scratch folder while the table is open");
            }
        }

        assertEquals(query("DESCRIBE SELECT * FROM " + q(before)), query("DESCRIBE SELECT * FROM " + q(after)), "columns and types");
        long rows = single("SELECT count(*) FROM " + q(before));
        assertTrue(rows > 0, input + " has rows");
        assertEquals(rows, single("SELECT count(*) FROM " + q(after)), "rows");
        String old = "(SELECT * EXCLUDE (file_row_number), row_number() OVER (ORDER BY rank, slot, ts_ns, file_row_number) - 1 AS"
                + " file_row_number FROM read_parquet(" + q(before) + ", file_row_number = true))";
        String now = "read_parquet(" + q(after) + ", file_row_number = true)";
        assertEquals(0, single("SELECT count(*) FROM (SELECT * FROM " + old + " EXCEPT ALL SELECT * FROM " + now + ")"),
                "rows of the old route not in the new file at their place");
        assertEquals(0, single("SELECT count(*) FROM (SELECT * FROM " + now + " EXCEPT ALL SELECT * FROM " + old + ")"),
                "rows of the new file not in the old route's at their place");
        assertEquals(-1, Files.mismatch(after, spilled), "the file written through scratch runs is the one written in memory");
        try (Stream<Path> left = Files.list(scratch)) {
            assertEquals(List.of(), left.toList(), "scratch left");
        }

        // the file metadata (docs/tables.md): the traces' names, one base time and one rank only where the file has one
        Map<String, String> kv = new HashMap<>();
        for (List<Object> row : query("SELECT decode(key), decode(value) FROM parquet_kv_metadata(" + q(after) + ")")) {
            kv.put((String) row.get(0), (String) row.get(1));
        }
        assertEquals(String.valueOf(EventTable.SCHEMA_VERSION), kv.get("flagtrace.schema_version"), kv.toString());
        for (Path t : traces) {
            assertTrue(kv.get("flagtrace.source").contains(t.getFileName().toString()), kv.toString());
        }
        assertTrue(kv.get("flagtrace.clock").startsWith("ts_ns: nanoseconds since the epoch"), kv.toString());
        assertEquals(traces.size() == 1, kv.containsKey("flagtrace.base_time_ns"), kv.toString());
        long ranks = single("SELECT count(DISTINCT rank) FROM " + q(after));
        assertEquals(ranks == 1 ? String.valueOf(single("SELECT min(rank) FROM " + q(after))) : null, kv.get("flagtrace.rank"), kv.toString());
        if (input.contains("merged")) {
            assertTrue(kv.get("flagtrace.clock").contains("merge's reference"), kv.toString());
        }
    }

    private static void read(EventRows rows, List<Path> traces) throws Exception {
        TraceTables read = new TraceTables(rows);
        for (Path t : traces) {
            read.read(t);
        }
    }
}
