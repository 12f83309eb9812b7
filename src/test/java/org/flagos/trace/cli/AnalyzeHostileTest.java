package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.flagos.trace.testing.TargetScratch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, item 6: {@code analyze} gives DuckDB literal paths only, says which column of a table has
 * which type and what is expected, and never leaves a file it says it did not leave.
 */
class AnalyzeHostileTest {
    @TempDir
    static Path dir;

    static Path four;
    static Path two;

    private final CliRunner cli = new CliRunner();

    @BeforeAll
    static void build() throws Exception {
        four = SyntheticRanks.events(Files.createDirectories(dir.resolve("four")), 4, 2);
        two = SyntheticRanks.events(Files.createDirectories(dir.resolve("two")), 2, 1);
    }

    private static long rankRows(String stdout) {
        String line = stdout.lines().filter(l -> l.startsWith("rank_device: ")).findFirst().orElseThrow();
        return Long.parseLong(line.replaceAll(".*\\((\\d+) rows\\)$", "$1"));
    }

    @Test
    void aPathWithGlobCharactersIsReadAsItIsNamed() throws Exception {
        Path literal = dir.resolve("ev[1].parquet");
        Files.copy(four, literal);
        Files.copy(two, dir.resolve("ev1.parquet")); // what the name matches as a glob
        assertEquals(0, cli.run("analyze", literal.toString(), "--only", "rank_device"), cli.stderr());
        assertEquals(4, rankRows(cli.stdout()), "read " + literal + ", not ev1.parquet: " + cli.stdout());

        Path folder = Files.createDirectories(dir.resolve("f*"));
        Files.copy(four, folder.resolve("a?.parquet"));
        Path other = Files.createDirectories(dir.resolve("fx"));
        Files.copy(two, other.resolve("ab.parquet"));
        assertEquals(0, cli.run("analyze", folder.toString(), "--only", "rank_device"), cli.stderr());
        assertEquals(4, rankRows(cli.stdout()), cli.stdout());
    }

    private Path retyped(String name, String column, String expression) throws Exception {
        Path out = dir.resolve(name);
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            s.execute("COPY (SELECT * REPLACE (" + expression + " AS " + column + ") FROM read_parquet('" + four + "')) TO '"
                    + out + "' (FORMAT PARQUET)");
        }
        return out;
    }

    @Test
    void aColumnOfAnotherTypeIsNamedWithItsTypeAndTheExpectedOne() throws Exception {
        List<String[]> cases = List.of(
                new String[] {"rank-double.parquet", "rank", "rank::DOUBLE", "DOUBLE"},
                new String[] {"rank-list.parquet", "rank", "[rank]", "INTEGER[]"},
                new String[] {"ts-decimal.parquet", "ts_ns", "ts_ns::DECIMAL(38,0)", "DECIMAL(38,0)"},
                new String[] {"name-int.parquet", "name", "42", "INTEGER"});
        for (String[] c : cases) {
            Path table = retyped(c[0], c[1], c[2]);
            assertEquals(ExitCodes.FAILED, cli.run("analyze", table.toString()), c[0] + ": " + cli.stdout());
            String err = cli.stderr();
            assertEquals(1, err.strip().lines().count(), err);
            assertTrue(err.contains("column " + c[1] + " is " + c[3]), err);
            assertTrue(err.contains("docs/tables.md"), err);
            for (String word : List.of("java.", "Exception", "Conversion Error", "INT32", "internal error")) {
                assertFalse(err.contains(word), word + " in " + err);
            }
        }
    }

    @Test
    void damagedParquetIsSaidInWordsNotDuckDbs() throws Exception {
        byte[] bytes = Files.readAllBytes(four);
        for (int i = bytes.length - 200; i < bytes.length - 8; i++) {
            bytes[i] = (byte) 0x7f; // the footer's metadata
        }
        Path damaged = Files.write(dir.resolve("damaged.parquet"), bytes);
        assertEquals(ExitCodes.FAILED, cli.run("analyze", damaged.toString()));
        String err = cli.stderr();
        assertEquals(1, err.strip().lines().count(), err);
        for (String word : List.of("TProtocolException", "Exception", "Error:", "java.")) {
            assertFalse(err.contains(word), word + " in " + err);
        }
    }

    @Test
    void aTableThatCannotBeWrittenLeavesNoneOfTheOthers() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        Files.createDirectories(out.resolve("rank_device.csv")); // the third table's place holds a folder
        assertEquals(ExitCodes.FAILED, cli.run("analyze", four.toString(), "-o", out.toString()), cli.stdout());
        assertTrue(cli.stderr().contains("rank_device.csv"), cli.stderr());
        assertEquals(List.of("rank_device.csv"), Files.list(out).map(p -> p.getFileName().toString()).toList(),
                "nothing written beside what was in the way");
    }

    /**
     * A table folder's {@code .parquet} entry that is no regular file (a FIFO, a link that leads nowhere) is refused by
     * its path, never opened (a FIFO would wait for a writer) and never skipped: skipped, its ranks were silently
     * missing from every analysis.
     */
    @Test
    @Timeout(120)
    void aTableFoldersEntryThatIsNoRegularFileIsRefusedNotSkipped() throws Exception {
        Path fifoFolder = Files.createDirectories(dir.resolve("with-fifo"));
        Files.copy(four, fifoFolder.resolve("a.parquet"));
        Path fifo = TargetScratch.fifo(fifoFolder.resolve("b.parquet"));
        Path linkFolder = Files.createDirectories(dir.resolve("with-link"));
        Files.copy(four, linkFolder.resolve("a.parquet"));
        Path link = Files.createSymbolicLink(linkFolder.resolve("b.parquet"), Path.of("nowhere.parquet"));
        Map<Path, String> words = Map.of(fifo, " is a FIFO, not a regular file: an events table's files are Parquet files",
                link, " is a link that leads to no file (a dangling link, or a loop of links): an events table's files are Parquet files");
        for (Path[] c : new Path[][] {{fifoFolder, fifo}, {linkFolder, link}}) {
            assertEquals(ExitCodes.FAILED, cli.run("analyze", c[0].toString(), "--only", "rank_device"), cli.stdout());
            assertEquals(1, cli.stderr().lines().count(), cli.stderr());
            assertTrue(cli.stderr().contains(c[1] + words.get(c[1])), cli.stderr());
        }
    }

    /**
     * A table partitioned by rank without a rank column in its files (the form read through links, one scan): a damaged
     * file among them, or a FIFO, ends the run in one line naming it, and leaves no scratch folder behind.
     */
    @Test
    @Timeout(120)
    void aRankPartitionedFolderWithADamagedFileOrAFifoIsRefusedInOneLine() throws Exception {
        Path table = dir.resolve("by-rank");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            s.execute("COPY (SELECT * FROM read_parquet('" + four + "')) TO '" + table + "' (FORMAT PARQUET, PARTITION_BY (rank))");
        }
        Path damaged = Files.writeString(Files.createDirectories(table.resolve("rank=7")).resolve("d.parquet"), "PAR1 not parquet PAR1");
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        java.util.function.Supplier<Long> scratch = () -> {
            try (var list = Files.list(tmp)) {
                return list.filter(p -> p.getFileName().toString().startsWith("flagtrace-analyze-")).count();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        long before = scratch.get();
        assertEquals(ExitCodes.FAILED, cli.run("analyze", table.toString(), "--only", "rank_device"), cli.stdout());
        assertEquals(1, cli.stderr().lines().count(), cli.stderr());
        assertTrue(cli.stderr().contains(table + " is not a Parquet events table"), cli.stderr());
        assertEquals(before, scratch.get(), "no links or spill folder left");
        Files.delete(damaged);
        assertEquals(0, cli.run("analyze", table.toString(), "--only", "rank_device"), cli.stderr());
        assertEquals(4, rankRows(cli.stdout()), cli.stdout());
        Path fifo = TargetScratch.fifo(table.resolve("rank=7").resolve("f.parquet"));
        assertEquals(ExitCodes.FAILED, cli.run("analyze", table.toString(), "--only", "rank_device"), cli.stdout());
        assertEquals(1, cli.stderr().lines().count(), cli.stderr());
        assertTrue(cli.stderr().contains(fifo + " is a FIFO, not a regular file"), cli.stderr());
    }
}
