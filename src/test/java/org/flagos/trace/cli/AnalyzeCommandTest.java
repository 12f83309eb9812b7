package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.sql.Analyses;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flagtrace analyze} over the events table of a 4-rank merge, and what it refuses. */
class AnalyzeCommandTest {
    @TempDir
    static Path dir;

    static Path events;

    private final CliRunner cli = new CliRunner();

    @BeforeAll
    static void build() throws Exception {
        events = SyntheticRanks.events(dir, 4, 2);
    }

    @Test
    void printsEveryTableAndWritesThemAsCsvOrJson() throws Exception {
        Path out = dir.resolve("csv");
        assertEquals(0, cli.run("analyze", events.toString(), "-o", out.toString()), cli.stderr());
        String text = cli.stdout();
        for (String name : Analyses.NAMES) {
            assertTrue(text.contains(name + ": "), text);
            List<String> lines = Files.readAllLines(out.resolve(name + ".csv"));
            assertTrue(lines.size() > 1, name);
            assertTrue(text.contains("wrote " + out.resolve(name + ".csv")), text);
        }
        List<String> steps = Files.readAllLines(out.resolve("step_stragglers.csv"));
        assertEquals("step,ranks,median_ns,fastest_ns,slowest_ns,slowest_rank,over_median_ns", steps.get(0));
        assertEquals(6, steps.size(), "five steps");
        assertTrue(steps.get(SyntheticRanks.STRAGGLER_STEP).startsWith(SyntheticRanks.STRAGGLER_STEP + ",4,"), steps.toString());
        assertEquals("2", steps.get(SyntheticRanks.STRAGGLER_STEP).split(",")[5], "rank 2 is the straggler");

        Path json = dir.resolve("json");
        assertEquals(0, cli.run("analyze", events.toString(), "-o", json.toString(), "--format", "json", "--only", "rank_device"), cli.stderr());
        JsonNode ranks = TraceJson.MAPPER.readTree(json.resolve("rank_device.json").toFile());
        assertEquals(4, ranks.size());
        for (JsonNode r : ranks) {
            assertEquals(r.get("device_span_ns").asLong(), r.get("computation_ns").asLong() + r.get("communication_ns").asLong()
                    + r.get("memory_ns").asLong() + r.get("idle_ns").asLong(), r.toString());
        }
        assertFalse(Files.exists(json.resolve("rank_ops.json")), "--only");

        // A folder of Parquet files is read as one table.
        Path folder = Files.createDirectories(dir.resolve("folder"));
        Files.copy(events, folder.resolve("part-0.parquet"));
        assertEquals(0, cli.run("analyze", folder.toString()), cli.stderr());
        assertEquals(text.substring(0, text.indexOf("wrote ")), cli.stdout(), "the same tables from the folder");
    }

    @Test
    void badInputIsOneLineAndNoFile() throws Exception {
        Path out = dir.resolve("none");
        assertEquals(ExitCodes.USAGE, cli.run("analyze", events.toString(), "--only", "frob"));
        assertTrue(cli.stderr().contains("no such analysis"), cli.stderr());
        assertEquals(ExitCodes.USAGE, cli.run("analyze", events.toString(), "--format", "xml"));
        assertEquals(ExitCodes.FAILED, cli.run("analyze", dir.resolve("missing.parquet").toString(), "-o", out.toString()));
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        Path notParquet = Files.writeString(dir.resolve("not.parquet"), "{\"traceEvents\":[]}");
        assertEquals(ExitCodes.FAILED, cli.run("analyze", notParquet.toString(), "-o", out.toString()));
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        assertTrue(cli.stderr().contains("not a Parquet events table"), cli.stderr());
        assertFalse(Files.exists(out), "nothing written");
    }
}
