package org.flagos.trace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.flagos.trace.testing.TargetScratch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TraceScan}'s listing and the reader's first look, on inputs that are no trace file: a FIFO with no writer (its
 * open would wait for ever), character devices ({@code /dev/zero}, {@code /dev/urandom}: never ending), and links that
 * lead nowhere (a loop of two links; Hadoop's listing of a folder leaves such a link out without a word). Each is
 * refused naming its path before anything opens it, or with {@code mode DROPMALFORMED} skipped and counted in
 * {@code skippedFiles}. Bounded, so that a regression fails instead of hanging the build; Spark local[2] in this JVM.
 */
@Tag("spark")
class TraceScanTest {
    private static final Duration BOUND = Duration.ofMinutes(2);

    @TempDir
    static Path dir;

    static SparkSession spark;
    static Path good;
    private final List<Path> fifos = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        good = Files.copy(Path.of("src/test/resources/hta/simple_add_trace.json.gz"), dir.resolve("good.json.gz"));
        spark = LocalSpark.start("flagtrace-trace-scan", dir);
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    /** A FIFO of this test's, opened for writing after it (a regression's reader blocked in its open then ends) and removed. */
    private Path fifo(Path path) {
        fifos.add(TargetScratch.fifo(path));
        return path;
    }

    @AfterEach
    void releaseFifos() throws IOException {
        for (Path f : fifos) {
            if (TargetScratch.nodeType(f).equals("FIFO")) {
                // Read and write: Linux opens a FIFO so at once, and a reader waiting in its open gets the end of the file.
                new RandomAccessFile(f.toFile(), "rw").close();
            }
            Files.deleteIfExists(f);
        }
    }

    private static Dataset<Row> load(String mode, Path path) {
        return spark.read().format("flagtrace").option("mode", mode).load(path.toString());
    }

    /** The messages of what counting {@code path}'s rows throws and its causes, in one string; bounded. */
    private static String failure(Path path) {
        Throwable t = assertTimeoutPreemptively(BOUND, () -> assertThrows(Throwable.class, () -> load("FAILFAST", path).count()),
                path.toString());
        StringBuilder s = new StringBuilder();
        for (; t != null; t = t.getCause()) {
            s.append(t.getMessage()).append(" | ");
        }
        return s.toString();
    }

    @Test
    void aFifoOrACharacterDeviceGivenAsATraceIsRefusedNamingIt() {
        Path pipe = fifo(dir.resolve("pipe.json"));
        for (Path special : List.of(pipe, Path.of("/dev/zero"), Path.of("/dev/urandom"))) {
            String why = failure(special);
            assertTrue(why.contains(special + " is a " + (special == pipe ? "FIFO" : "character device")
                    + ", not a regular file: not a trace"), why);
        }
    }

    @Test
    void aLinkLoopGivenAsATraceIsSaidToLeadNowhere() throws IOException {
        Path loop = Files.createDirectories(dir.resolve("loop-given"));
        Files.createSymbolicLink(loop.resolve("a.json"), Path.of("b.json"));
        Files.createSymbolicLink(loop.resolve("b.json"), Path.of("a.json"));
        String why = failure(loop.resolve("a.json"));
        assertTrue(why.contains(loop.resolve("a.json") + " is a link that leads to no file (a dangling link, or a loop of links)"), why);
    }

    /**
     * A folder of a trace, a FIFO and a loop of two links: by default refused naming the first that is no trace, in the
     * order of the names (the FIFO, then, once it is gone, the loop's first link); with DROPMALFORMED the trace's rows,
     * and the three counted.
     */
    @Test
    void aFolderWithAFifoAndALinkLoopFailsNamingThemOrSkipsAndCountsThem() throws IOException {
        Path job = Files.createDirectories(dir.resolve("job"));
        Files.copy(good, job.resolve("rank0.json.gz"));
        fifo(job.resolve("rank1.json"));
        Files.createSymbolicLink(job.resolve("rank2.json"), Path.of("rank3.json"));
        Files.createSymbolicLink(job.resolve("rank3.json"), Path.of("rank2.json"));
        String why = failure(job);
        assertTrue(why.contains(job.resolve("rank1.json") + " is a FIFO, not a regular file: not a trace"), why);

        long rows = load("FAILFAST", good).count();
        assertTrue(rows > 0);
        Dataset<Row> kept = load("DROPMALFORMED", job);
        assertEquals(rows, (long) assertTimeoutPreemptively(BOUND, () -> kept.collectAsList().size()));
        assertEquals(3L, FlagtraceDataSourceTest.skippedFiles(kept));

        Files.delete(job.resolve("rank1.json"));
        why = failure(job);
        assertTrue(why.contains(job.resolve("rank2.json") + " is a link that leads to no file"), why);
    }
}
