package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TablesCommand}: its one line of counts against a recount of torch's own H200 trace (every event but the
 * metadata ones is a row: 205 of 263, 58 metadata), the Parquet file holding those rows; two traces say so; an event
 * without a usable ts is counted as left out; an older table is replaced whole, no scratch left beside it; a name that
 * is not .parquet is a usage error before anything is read.
 */
class TablesCommandTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private static Path torch() {
        return Path.of("src/test/resources/torch-reference/torch_trace.json");
    }

    private static long rows(Path parquet) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM read_parquet('" + parquet.toString().replace("'", "''") + "')")) {
            r.next();
            return r.getLong(1);
        }
    }

    @Test
    void itsCountsAreARecountOfTheTrace() throws Exception {
        JsonNode events = TraceJson.MAPPER.readTree(torch().toFile()).get("traceEvents");
        long metadata = 0;
        long timed = 0;
        for (JsonNode e : events) {
            if (e.path("ph").asText().equals("M")) {
                metadata++;
            } else if (e.path("ts").isNumber()) {
                timed++;
            }
        }
        assertEquals(263, events.size());
        assertEquals(58, metadata);
        assertEquals(205, timed);
        Path out = dir.resolve("events.parquet");
        Files.writeString(out, "an older table"); // replaced whole
        assertEquals(0, cli.run("tables", torch().toString(), "-o", out.toString()), cli.stderr());
        assertEquals("wrote " + out + " (205 rows from 1 trace; left out: 58 metadata events)" + System.lineSeparator(), cli.stdout());
        assertEquals("", cli.stderr());
        assertEquals(205, rows(out));
        assertEquals(List.of(out), files(), "no scratch table or database left beside it");

        Path two = dir.resolve("two.parquet");
        Path copy = Files.copy(torch(), dir.resolve("again.json"));
        assertEquals(0, cli.run("tables", torch().toString(), copy.toString(), "-o", two.toString()), cli.stderr());
        assertEquals("wrote " + two + " (410 rows from 2 traces; left out: 116 metadata events)" + System.lineSeparator(), cli.stdout());
        assertEquals(410, rows(two));
    }

    @Test
    void anEventWithoutAUsableTsIsCountedAsLeftOut() throws Exception {
        Path trace = Files.writeString(dir.resolve("t.json"), "{\"traceEvents\":["
                + "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"p\"}},"
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},"
                + "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"s\":\"t\"}]}");
        Path out = dir.resolve("t.parquet");
        assertEquals(0, cli.run("tables", trace.toString(), "-o", out.toString()), cli.stderr());
        assertEquals("wrote " + out + " (1 rows from 1 trace; left out: 1 metadata events, 1 without a usable ts)" + System.lineSeparator(),
                cli.stdout());
        assertEquals(1, rows(out));
    }

    @Test
    void aTableNotNamedParquetIsAUsageErrorBeforeReading() throws Exception {
        Path missing = dir.resolve("missing.json"); // not read: the name is refused first
        assertEquals(2, cli.run("tables", missing.toString(), "-o", dir.resolve("out.json").toString()));
        String err = cli.stderr();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.contains("-o") && err.contains(".parquet"), err);
        assertFalse(err.contains("missing.json"), err);
        assertEquals(List.of(), files());
    }

    /**
     * {@code --partition-by-rank}: a trace naming no rank (torch's reference trace names none) is refused in one
     * line before any file is written, never put under rank=-1; {@code --rank N} gives it one, and its rows
     * carry it; a second run that would write the same file is refused and leaves the first file as it was;
     * {@code --rank} of a trace that names another rank, or with two traces, is refused.
     */
    @Test
    void aTablePartitionedByRankNeedsARankAndNeverReplacesAFile() throws Exception {
        Path parts = dir.resolve("parts");
        assertEquals(ExitCodes.USAGE, cli.run("tables", torch().toString(), "-o", parts.toString(), "--partition-by-rank"));
        String err = cli.stderr();
        assertEquals(1, err.strip().lines().count(), err);
        assertTrue(err.contains("names no rank") && err.contains("--rank N"), err);
        assertEquals(List.of(), tree(parts), "no file written, no rank=-1 folder");

        assertEquals(0, cli.run("tables", torch().toString(), "-o", parts.toString(), "--partition-by-rank", "--rank", "5"), cli.stderr());
        Path file = parts.resolve("events/rank=5/part-torch_trace.parquet");
        assertEquals("wrote " + file + " (205 rows from 1 trace; left out: 58 metadata events)" + System.lineSeparator(), cli.stdout());
        assertEquals(List.of(file), tree(parts), "one file, no scratch or temporary left");
        assertEquals(205, rows(file));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT min(rank), max(rank) FROM read_parquet('" + file.toString().replace("'", "''") + "')")) {
            r.next();
            assertEquals(5, r.getInt(1));
            assertEquals(5, r.getInt(2));
        }
        byte[] first = Files.readAllBytes(file);

        assertEquals(ExitCodes.USAGE, cli.run("tables", torch().toString(), "-o", parts.toString(), "--partition-by-rank", "--rank", "5"));
        err = cli.stderr();
        assertEquals(1, err.strip().lines().count(), err);
        assertTrue(err.contains(file.toString()) && err.contains("exists"), err);
        assertEquals("", cli.stdout());
        assertTrue(java.util.Arrays.equals(first, Files.readAllBytes(file)), "the first run's file is untouched");
        assertEquals(List.of(file), tree(parts));

        // A trace that names its rank (torch's distributedInfo) given another one is refused; alone it goes under its own.
        Path ranked = Files.writeString(dir.resolve("ranked.json"), "{\"distributedInfo\":{\"rank\":1,\"world_size\":2},\"traceEvents\":["
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]}");
        assertEquals(ExitCodes.FAILED, cli.run("tables", ranked.toString(), "-o", parts.toString(), "--partition-by-rank", "--rank", "2"));
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        assertTrue(cli.stderr().contains("names rank 1"), cli.stderr());
        assertEquals(0, cli.run("tables", ranked.toString(), "-o", parts.toString(), "--partition-by-rank"), cli.stderr());
        assertTrue(Files.isRegularFile(parts.resolve("events/rank=1/part-ranked.parquet")));
        assertEquals(ExitCodes.USAGE, cli.run("tables", torch().toString(), ranked.toString(), "-o", parts.toString(), "--rank", "1"));
        assertEquals(ExitCodes.USAGE, cli.run("tables", torch().toString(), "-o", parts.toString(), "--rank", "-1"));
        assertEquals(2, tree(parts).size());
    }

    /** Every file under {@code root}, hidden ones included, sorted. */
    private static List<Path> tree(Path root) throws Exception {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).sorted().toList();
        }
    }

    private List<Path> files() throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> !p.getFileName().toString().endsWith(".json")).sorted().toList();
        }
    }
}
