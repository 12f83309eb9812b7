package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TargetScratch;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files beside a capture (ops, names, device properties, clock: issue 14, "Reliability") are
 * found one way, said on stderr, and never overwritten by an output.
 */
class SidecarsTest {
    private static final String NAME = "h200-app-tiny2k";

    @TempDir
    Path dir; // under target/tmp (junit-platform.properties), removed after each test
    private final CliRunner cli = new CliRunner();

    /** The bundled capture with its ops and names beside it, in the scratch directory. */
    private Path captureWithSidecars() throws IOException {
        Path capture = dir.resolve(NAME + ".fltrbuf");
        Files.copy(Captures.capture(NAME), capture);
        Files.copy(Captures.ops(NAME), dir.resolve(NAME + ".ops.jsonl"));
        Files.copy(Captures.names(NAME), dir.resolve(NAME + ".names.tsv"));
        return capture;
    }

    @Test
    void replayWithoutOpsReadsTheOpsBesideTheCaptureAndSaysWhatItRead() throws IOException {
        Path capture = captureWithSidecars();
        Path trace = dir.resolve("t.json");
        assertEquals(0, cli.run("replay", capture.toString(), "-o", trace.toString()), cli.stderr());
        JsonNode decoded = TraceJson.MAPPER.readTree(trace.toFile()).get("flagtrace").get("decoded");
        assertTrue(decoded.get("host_ops").asLong() > 0, decoded.toString());
        assertTrue(cli.stderr().contains(NAME + ".ops.jsonl (host ops)"), cli.stderr());
        assertTrue(cli.stderr().contains(NAME + ".names.tsv (kernel names)"), cli.stderr());

        // the same trace as with --ops given
        Path given = dir.resolve("given.json");
        assertEquals(0, cli.run("replay", capture.toString(), "--ops", Captures.ops(NAME).toString(), "-o", given.toString()));
        assertEquals(decoded, TraceJson.MAPPER.readTree(given.toFile()).get("flagtrace").get("decoded"));
        assertFalse(cli.stderr().contains("(host ops)"), "given ops are not 'read beside': " + cli.stderr());
    }

    @Test
    void withNoOpsAnywhereStderrSaysWhyTheOpTableIsEmpty() throws IOException {
        Path capture = dir.resolve("alone.fltrbuf");
        Files.copy(Captures.capture(NAME), capture);
        assertEquals(0, cli.run("replay", capture.toString(), "-o", dir.resolve("t.json").toString()));
        assertTrue(cli.stderr().contains("no host ops") && cli.stderr().contains("alone.ops.jsonl"), cli.stderr());
    }

    @Test
    void noOutputMayNameTheCaptureOrAnyFileReadBesideIt() throws IOException {
        Path capture = captureWithSidecars();
        Path clock = dir.resolve(NAME + ".clock.json");
        Files.writeString(clock, "{\"vendor_ns\": 0, \"epoch_ns\": 0, \"rate\": 1.0}");
        Path devices = dir.resolve(NAME + ".devices.json");
        DevicePropertiesFile.write(devices, TestDevices.h200());
        Path[] guarded = {capture, clock, devices, dir.resolve(NAME + ".names.tsv"), dir.resolve(NAME + ".ops.jsonl")};
        byte[][] before = new byte[guarded.length][];
        for (int i = 0; i < guarded.length; i++) {
            before[i] = Files.readAllBytes(guarded[i]);
        }
        for (Path target : guarded) {
            for (String option : new String[] {"-o", "--summary"}) {
                String trace = option.equals("-o") ? target.toString() : dir.resolve("t.json").toString();
                String[] args = option.equals("-o")
                        ? new String[] {"replay", capture.toString(), "-o", trace}
                        : new String[] {"replay", capture.toString(), "-o", trace, "--summary", target.toString()};
                assertEquals(2, cli.run(args), option + " " + target + ": " + cli.stderr());
                assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
                assertTrue(cli.stderr().contains(target.toString()), cli.stderr());
            }
        }
        for (int i = 0; i < guarded.length; i++) {
            assertArrayEquals(before[i], Files.readAllBytes(guarded[i]), guarded[i] + " unchanged");
        }
        assertFalse(Files.exists(dir.resolve("t.json")));
        // where a replay would look for a sidecar that is not there yet is refused too: the next replay would read it
        Files.delete(clock);
        assertEquals(2, cli.run("replay", capture.toString(), "-o", clock.toString()));
        assertTrue(cli.stderr().contains("device clock"), cli.stderr());
        assertFalse(Files.exists(clock));
    }

    @Test
    void aFileBesideTheCaptureThatIsNoRegularFileIsRefusedNotWaitedOn() throws IOException {
        Path capture = captureWithSidecars();
        Files.delete(dir.resolve(NAME + ".names.tsv"));
        TargetScratch.fifo(dir.resolve(NAME + ".names.tsv")); // no writer: opening it would block for ever
        // bounded only so that a regression fails instead of hanging the build; no time is asserted
        assertEquals(1, assertTimeoutPreemptively(Duration.ofMinutes(2),
                () -> cli.run("replay", capture.toString(), "-o", dir.resolve("t.json").toString())));
        assertTrue(cli.stderr().contains(NAME + ".names.tsv: is a FIFO, not a regular file, so it cannot be a kernel name table file"), cli.stderr());
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        assertFalse(Files.exists(dir.resolve("t.json")));
    }
}
