package org.flagos.trace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.apache.spark.sql.SparkSession;
import org.flagos.trace.testing.TargetScratch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spark-submit entry point as a user meets it ({@link SparkAnalyses#run}: {@link SparkAnalyses#main} but the exit):
 * the status and the one line on standard error, and the output folder, for traces that fail. A folder of one good
 * trace (HTA's simple_add, rank 0) and one bad file (a rank-1 trace cut in the middle, or lines of text) with each
 * {@code --mode} of the data source; a FIFO given as a trace; a failed run whose table folder cannot be removed. Each
 * call starts and stops its own Spark local[2] session (as spark-submit does), bounded so that a hang fails.
 */
@Tag("spark")
class SparkAnalysesMainTest {
    private static final Duration BOUND = Duration.ofMinutes(3);

    @TempDir
    static Path dir;

    static Path good;
    static byte[] goodJson;

    @BeforeAll
    static void traces() throws IOException {
        good = Path.of("src/test/resources/hta/simple_add_trace.json.gz");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(good))) {
            goodJson = in.readAllBytes();
        }
    }

    /** What one call gave: its status and its standard error. */
    record Exit(int status, String err) {
        /** The one line, after asserting there is exactly one. */
        String line() {
            assertEquals(1, err.lines().count(), err);
            return err.strip();
        }
    }

    private static Exit run(SparkSession.Builder session, String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = assertTimeoutPreemptively(BOUND, () -> SparkAnalyses.run(args, session,
                new PrintStream(err, true, StandardCharsets.UTF_8)), String.join(" ", args));
        return new Exit(status, err.toString(StandardCharsets.UTF_8));
    }

    private static Exit run(String... args) {
        return run(LocalSpark.builder("flagtrace-analyses-main", dir).master("local[2]"), args);
    }

    /**
     * Waits, bounded, for the local executor's task threads to end: a task of a failed job that outlived the call
     * would write its part after the output was checked.
     */
    private static void awaitExecutorThreads() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("Executor task launch worker")) {
                assertTimeoutPreemptively(BOUND, () -> t.join(), t.getName());
            }
        }
    }

    /** The folder's entries, sub-folders as {@code NAME/}, sorted; "(none)" where it is not there. */
    private static List<String> listing(Path folder) throws IOException {
        if (!Files.exists(folder)) {
            return List.of("(none)");
        }
        try (Stream<Path> all = Files.walk(folder)) {
            return all.filter(p -> !p.equals(folder)).map(p -> folder.relativize(p) + (Files.isDirectory(p) ? "/" : ""))
                    .filter(p -> !p.contains("/.") && !p.startsWith(".") && !p.contains(".crc")).sorted().toList();
        }
    }

    /** A job folder of the good trace as rank 0 and {@code bad} as rank1.json. */
    private static Path job(String name, byte[] bad) throws IOException {
        Path job = Files.createDirectories(dir.resolve(name));
        Files.copy(good, job.resolve("rank0.json.gz"));
        Files.write(job.resolve("rank1.json"), bad);
        return job;
    }

    /** The good trace as rank 1, cut in the middle of its events. */
    private static byte[] truncated() {
        String json = new String(goodJson, StandardCharsets.UTF_8).replace("\"distributedInfo\": {\"rank\": 0}", "\"distributedInfo\": {\"rank\": 1}");
        assertTrue(json.contains("{\"rank\": 1}"), "the trace's rank was renamed");
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return Arrays.copyOf(b, b.length / 2);
    }

    private static byte[] garbage() {
        return "this is not a trace\nnor is this line { [\n".getBytes(StandardCharsets.UTF_8);
    }

    /**
     * FAILFAST (the default): exit 1, one line naming the bad file, and the output folder as it was: not made where it
     * was not there, only the user's file where it was. DROPMALFORMED: exit 0, the good rank's table only, and a warning
     * naming the file left out.
     */
    @Test
    void aFolderWithOneBadFileFailsInOneLineLeavingTheOutputAsItWasOrSkipsIt() throws IOException {
        for (String kind : List.of("truncated", "garbage")) {
            Path job = job("job-" + kind, kind.equals("truncated") ? truncated() : garbage());
            String bad = job.resolve("rank1.json").toString();

            Path fresh = dir.resolve("out-" + kind + "-fresh");
            Exit failed = run("--traces", "--clock", "trace", "--only", "rank_device", job.toString(), fresh.toString());
            assertEquals(1, failed.status(), failed.err());
            String line = failed.line();
            assertTrue(line.startsWith("flagtrace: ") && line.contains(bad) && (kind.equals("truncated")
                    ? line.contains(bad + " ends in the middle of its JSON") : line.contains(bad + " is not valid JSON")), line);
            assertEquals(List.of("(none)"), listing(fresh));
            awaitExecutorThreads();
            assertEquals(List.of("(none)"), listing(fresh), "a task of the failed job wrote after it returned");

            Path kept = Files.createDirectories(dir.resolve("out-" + kind + "-kept"));
            Files.writeString(kept.resolve("mine.txt"), "keep");
            failed = run("--traces", "--mode", "FAILFAST", "--only", "rank_device", job.toString(), kept.toString());
            assertEquals(1, failed.status(), failed.err());
            assertTrue(failed.line().contains(bad), failed.err());
            assertEquals(List.of("mine.txt"), listing(kept));
            assertEquals("keep", Files.readString(kept.resolve("mine.txt")));

            Path skipped = dir.resolve("out-" + kind + "-skipped");
            Exit done = run("--traces", "--mode", "DROPMALFORMED", "--only", "rank_device", job.toString(), skipped.toString());
            assertEquals(0, done.status(), done.err());
            assertEquals("flagtrace: warning: left out 1 of 2 trace files (--mode DROPMALFORMED: malformed, each said in a WARN line"
                    + " of its executor, or with no event): file:" + bad, done.line());
            List<String> ranks = listing(skipped.resolve("events")).stream().filter(p -> p.matches("rank=\\d+/")).toList();
            assertEquals(List.of("rank=0/"), ranks, "the bad rank 1 left out");
            List<String> rows = new ArrayList<>();
            for (String part : listing(skipped.resolve("rank_device"))) {
                if (part.endsWith(".csv")) {
                    List<String> lines = Files.readAllLines(skipped.resolve("rank_device").resolve(part));
                    rows.addAll(lines.subList(1, lines.size()));
                }
            }
            assertEquals(1, rows.size(), rows.toString());
            assertTrue(rows.get(0).startsWith("0,"), rows.toString());
        }
    }

    @Test
    void aFifoGivenAsATraceIsRefusedInOneLineAndNoOutputIsMade() throws IOException {
        Path fifo = TargetScratch.fifo(dir.resolve("pipe.json"));
        Path out = dir.resolve("out-fifo");
        try {
            Exit e = run("--traces", fifo.toString(), out.toString());
            assertEquals(1, e.status(), e.err());
            assertEquals("flagtrace: " + fifo + " is a FIFO, not a regular file: not a trace", e.line());
            assertEquals(List.of("(none)"), listing(out));
        } finally {
            new RandomAccessFile(fifo.toFile(), "rw").close(); // read and write: opened at once, and a regression's reader ends
            Files.delete(fifo);
        }
    }

    @Test
    void aWrongCallExits2BeforeSparkStarts() {
        Exit e = run((SparkSession.Builder) null, "--mode", "DROPMALFORMED", dir.toString(), dir.resolve("out-wrong").toString());
        assertEquals(2, e.status());
        assertEquals("flagtrace: --job-id, --rank-from-path, --clock and --mode are the data source's: with --traces only", e.line());
    }

    /** A failed run whose events folder cannot be removed says so in its one line, naming the folder. */
    @Test
    void aFailedRunSaysWhichFolderItLeftBehind() throws IOException {
        Path job = job("job-left", truncated());
        Path out = dir.resolve("out-left");
        Exit e = run(LocalSpark.builder("flagtrace-analyses-main", dir).master("local[2]")
                .config("spark.hadoop.fs.file.impl", OutputTablesTest.RefusingFileSystem.class.getName())
                .config("spark.hadoop.fs.file.impl.disable.cache", "true"),
                "--traces", "--clock", "trace", "--only", "rank_device", job.toString(), out.toString());
        assertEquals(1, e.status(), e.err());
        String line = e.line();
        assertTrue(line.contains(job.resolve("rank1.json") + " ends in the middle of its JSON"), line);
        assertTrue(line.endsWith("; could not remove " + out + "/events, made by this failed run; remove it by hand before running again"), line);
        assertTrue(Files.isDirectory(out.resolve("events")), listing(out).toString());
    }
}
