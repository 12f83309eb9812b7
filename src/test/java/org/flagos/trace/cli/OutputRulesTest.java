package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TargetScratch;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a trace may be written (issue 14, "Reliability"): a character device or a FIFO is written
 * straight to and stays what it was; a name must pick a format; no directory is created; a journal
 * and a trace never share a path.
 */
class OutputRulesTest {
    private static final String CAPTURE = Captures.capture("h200-app-tiny2k").toString();

    @TempDir
    Path dir; // under target/tmp (junit-platform.properties), removed after each test
    private final CliRunner cli = new CliRunner();

    private List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    @Test
    void devNullIsWrittenStraightToAndStaysACharacterDevice() {
        Path devNull = Path.of("/dev/null");
        assertEquals("character device", TargetScratch.nodeType(devNull), "the test needs the system's /dev/null");
        assertEquals(0, cli.run("replay", CAPTURE, "-o", devNull.toString(), "--summary", devNull.toString()), cli.stderr());
        assertEquals("character device", TargetScratch.nodeType(devNull));
        assertTrue(cli.stdout().contains("wrote /dev/null"), cli.stdout());
    }

    @Test
    void aFifoIsWrittenStraightToItsReaderAndStaysAFifo() throws Exception {
        Path fifo = TargetScratch.fifo(dir.resolve("pipe"));
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            try (InputStream in = Files.newInputStream(fifo)) { // blocks until the replay opens it for writing
                in.transferTo(read);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, "fifo-reader");
        reader.setDaemon(true); // a regression that never opens the FIFO must not keep the JVM alive
        reader.start();
        assertEquals(0, cli.run("replay", CAPTURE, "-o", fifo.toString()), cli.stderr());
        assertEquals("FIFO", TargetScratch.nodeType(fifo), "the node was not replaced by a file");
        reader.join(TimeUnit.MINUTES.toMillis(2)); // bounded only so that a regression fails instead of hanging
        assertFalse(reader.isAlive(), "the reader got to the end of the trace");
        JsonNode trace = TraceJson.MAPPER.readTree(read.toByteArray());
        assertTrue(trace.get("traceEvents").size() > 100, "the whole trace came through the pipe");
        assertEquals(List.of(fifo), files(), "no temporary file beside the FIFO");
    }

    @Test
    void aTraceNameThatPicksNoFormatIsRefused() throws IOException {
        Path txt = dir.resolve("x.txt");
        assertEquals(2, cli.run("replay", CAPTURE, "-o", txt.toString()));
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        assertTrue(cli.stderr().contains(txt.toString()) && cli.stderr().contains(".json, .json.gz, .pftrace, .pftrace.gz or .parquet"),
                cli.stderr());
        assertEquals(List.of(), files());
        for (String good : new String[] {"t.json", "t.json.gz", "t.pftrace", "t.pftrace.gz", "t.parquet"}) {
            assertEquals(0, cli.run("replay", CAPTURE, "-o", dir.resolve(good).toString()), good + ": " + cli.stderr());
        }
    }

    @Test
    void aMissingDirectoryIsNamedNotCreated() throws IOException {
        Path missing = dir.resolve("nope").resolve("deeper");
        Path trace = missing.resolve("x.json");
        assertEquals(1, cli.run("replay", CAPTURE, "-o", trace.toString()));
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        assertTrue(cli.stderr().contains("the directory " + missing + " does not exist"), cli.stderr());
        assertEquals(List.of(), files(), "no directory was created");
        assertEquals(1, cli.run("replay", CAPTURE, "-o", dir.resolve("t.json").toString(), "--summary", trace.toString()));
        assertEquals(List.of(), files(), "refused before the trace was written");
    }

    @Test
    void aDirectoryInTheTracesPlaceIsRefusedInWords() throws IOException {
        Files.createDirectory(dir.resolve("d.json"));
        assertEquals(1, cli.run("replay", CAPTURE, "-o", dir.resolve("d.json").toString()));
        assertTrue(cli.stderr().contains(dir.resolve("d.json") + ": it is a directory"), cli.stderr());
        assertFalse(cli.stderr().contains("Exception"), cli.stderr());
    }

    @Test
    void demoIntoAPathUnderAFileSaysThatItIsAFile() throws IOException {
        Path file = dir.resolve("afile");
        Files.writeString(file, "x");
        assertEquals(1, cli.run("demo", "-o", file.resolve("app.json").toString()));
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        assertTrue(cli.stderr().contains(file + " is a file, not a directory"), cli.stderr());
        assertEquals("x", Files.readString(file));
    }

    @Test
    void aJournalAndATraceOnOnePathAreRefusedBeforeAnythingIsWritten() throws IOException {
        Path same = dir.resolve("same.json");
        assertEquals(2, cli.run("replay", CAPTURE, "--journal", same.toString(), "-o", same.toString()));
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        assertTrue(cli.stderr().contains("--journal") && cli.stderr().contains(same.toString()), cli.stderr());
        assertEquals(List.of(), files());
    }
}
