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

    /**
     * {@code --rows N}: each table printed as its header and first N rows (as printed without it), then a line saying how
     * many were left out and where they all are; the -o files hold every row; 0 prints the header only; -1 is refused.
     */
    @Test
    void rowsPrintsEachTablesHeadAndTheFilesHoldEveryRow() throws Exception {
        Path out = dir.resolve("rows");
        assertEquals(0, cli.run("analyze", events.toString(), "--only", "kernel_stats,kernel_launches", "-o", out.toString()), cli.stderr());
        String all = cli.stdout();
        assertEquals(0, cli.run("analyze", events.toString(), "--only", "kernel_stats,kernel_launches", "--rows", "2",
                "-o", out.toString() + "-2"), cli.stderr());
        String head = cli.stdout();
        for (String name : List.of("kernel_stats", "kernel_launches")) {
            List<String> full = Files.readAllLines(out.resolve(name + ".csv"));
            assertEquals(full, Files.readAllLines(Path.of(out + "-2").resolve(name + ".csv")), name + ": the file holds every row");
            long n = full.size() - 1;
            assertTrue(n > 2, name + " has more rows than printed");
            List<String> printed = table(all, name);
            List<String> cut = table(head, name);
            assertEquals(2 + 2 + 1, cut.size(), String.join("\n", cut)); // title, header, 2 rows, the note
            assertEquals(printed.get(0), cut.get(0), "the same title, with the table's whole count");
            assertTrue(cut.get(0).endsWith("(" + n + " rows)"), cut.get(0));
            assertEquals("(" + (n - 2) + " more rows not printed: --rows 2; every row is in " + Path.of(out + "-2").resolve(name + ".csv") + ")",
                    cut.get(4));
            // the first rows' cells as printed whole (their padding is the printed rows' widths)
            for (int i = 1; i <= 3; i++) {
                assertEquals(List.of(printed.get(i).strip().split(" +")), List.of(cut.get(i).strip().split(" +")), name + " line " + i);
            }
        }
        assertEquals(0, cli.run("analyze", events.toString(), "--only", "kernel_stats", "--rows", "0"), cli.stderr());
        List<String> none = table(cli.stdout(), "kernel_stats");
        assertEquals(3, none.size(), cli.stdout());
        assertTrue(none.get(2).endsWith("more rows not printed: --rows 0; -o DIR writes every row)"), none.get(2));
        assertEquals(ExitCodes.USAGE, cli.run("analyze", events.toString(), "--rows", "-1"));
        assertTrue(cli.stderr().contains("--rows -1: a number of rows, 0 or more"), cli.stderr());
    }

    /** The lines of table {@code name} in analyze's output: its title line to the blank line after it. */
    private static List<String> table(String stdout, String name) {
        List<String> lines = stdout.lines().toList();
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(name + ": ")) {
                start = i;
                break;
            }
        }
        assertTrue(start >= 0, stdout);
        int end = start;
        while (end < lines.size() && !lines.get(end).isEmpty()) {
            end++;
        }
        return lines.subList(start, end);
    }

    /**
     * Four separate {@code tables --partition-by-rank} runs, one per rank trace of the merge, into one folder give
     * the same analyses as the four traces' table written side by side in one run; read from the folder, from its
     * events/ folder, and as Spark writes a partitioned table (no rank column in the files: the folder's rank is
     * the rows'); hidden files ({@code .name}, {@code _SUCCESS}) are not read.
     */
    @Test
    void aFolderPartitionedByRankFromSeparateRunsIsTheSameTable() throws Exception {
        List<String> sideBySide = new java.util.ArrayList<>(List.of("tables"));
        Path parts = dir.resolve("parts");
        for (int r = 0; r < 4; r++) {
            Path trace = dir.resolve("rank" + r + ".json");
            sideBySide.add(trace.toString());
            assertEquals(0, cli.run("tables", trace.toString(), "-o", parts.toString(), "--partition-by-rank"), cli.stderr());
            assertTrue(cli.stdout().startsWith("wrote " + parts.resolve("events/rank=" + r + "/part-rank" + r + ".parquet") + " ("),
                    cli.stdout());
        }
        Path side = dir.resolve("side.parquet");
        sideBySide.addAll(List.of("-o", side.toString()));
        assertEquals(0, cli.run(sideBySide.toArray(String[]::new)), cli.stderr());
        assertEquals(0, cli.run("analyze", side.toString()), cli.stderr());
        String want = cli.stdout();
        assertTrue(want.contains("step_stragglers: "), want);
        Files.writeString(parts.resolve("_SUCCESS"), "");
        Files.writeString(parts.resolve("events/rank=0/.part-x.parquet.123.partial"), "a writer's temporary");
        Files.writeString(parts.resolve("events/rank=0/.hidden.parquet"), "not Parquet: read, it would fail the run");
        for (Path folder : List.of(parts, parts.resolve("events"))) {
            assertEquals(0, cli.run("analyze", folder.toString()), cli.stderr());
            assertEquals(want, cli.stdout(), folder.toString());
        }

        // The merged trace partitioned in one run: a file per rank, the merged table's analyses.
        Path merged = dir.resolve("merged-parts");
        assertEquals(0, cli.run("tables", dir.resolve("merged.json").toString(), "-o", merged.toString(), "--partition-by-rank"),
                cli.stderr());
        assertTrue(cli.stdout().startsWith("wrote 4 files under " + merged.resolve("events") + " (rank=0 to rank=3) ("), cli.stdout());
        for (int r = 0; r < 4; r++) {
            assertTrue(Files.isRegularFile(merged.resolve("events/rank=" + r + "/part-merged.parquet")), "rank " + r);
        }
        assertEquals(0, cli.run("analyze", events.toString()), cli.stderr());
        String whole = cli.stdout();
        assertEquals(0, cli.run("analyze", merged.toString()), cli.stderr());
        assertEquals(whole, cli.stdout());

        // As Spark's partitionBy("rank") writes it: the rank only in the folder names.
        Path hive = dir.resolve("hive");
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:"); java.sql.Statement s = c.createStatement()) {
            for (int r = 0; r < 4; r++) {
                Path folder = Files.createDirectories(hive.resolve("rank=" + r));
                s.execute("COPY (SELECT * EXCLUDE (rank) FROM read_parquet('" + parts.resolve("events/rank=" + r + "/part-rank" + r + ".parquet")
                        + "')) TO '" + folder.resolve("part-00000.parquet") + "' (FORMAT parquet)");
            }
        }
        assertEquals(0, cli.run("analyze", hive.toString()), cli.stderr());
        assertEquals(want, cli.stdout());
    }

    /** Folders that name no rank, or another one than the rows', are refused in one line. */
    @Test
    void aRankFolderThatIsNoRankOrNotTheRowsRankIsRefused() throws Exception {
        for (String name : List.of("rank=x", "rank=99999999999999999999", "rank=", "rank=1.5")) {
            Path bad = Files.createDirectories(dir.resolve("bad-" + name.replace('=', '_').replace('.', '_')).resolve(name));
            Files.copy(events, bad.resolve("part-0.parquet"));
            assertEquals(ExitCodes.FAILED, cli.run("analyze", bad.getParent().toString()), name);
            String err = cli.stderr();
            assertEquals(1, err.strip().lines().count(), err);
            assertTrue(err.contains("its folder " + name + " is no rank"), err);
            assertEquals("", cli.stdout());
        }
        // The merge's table holds ranks 0 to 3: under rank=1 three quarters of its rows are another rank's.
        Path wrong = Files.createDirectories(dir.resolve("wrong").resolve("rank=1"));
        Files.copy(events, wrong.resolve("part-0.parquet"));
        assertEquals(ExitCodes.FAILED, cli.run("analyze", wrong.getParent().toString()));
        String err = cli.stderr();
        assertEquals(1, err.strip().lines().count(), err);
        assertTrue(err.contains("have rank 0 to 3, not the rank of its folder rank=1"), err);
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
