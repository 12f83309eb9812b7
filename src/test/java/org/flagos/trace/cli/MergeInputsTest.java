package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.flagos.trace.capture.CaptureReplay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MergeInputs}: a trace is merged as it is; the bundled rank-0 H200 capture is replayed into a temporary trace
 * in the scratch folder, byte for byte what its replay writes (its ops and process sidecars found beside it), which
 * {@code close} deletes; a capture cut short is still merged, marked damaged with one warning line.
 */
class MergeInputsTest {
    private static final Path RANKS = Path.of("src/test/resources/captures/h200-ranks");

    @TempDir
    Path dir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final CliContext context = CliContext.of(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    private static List<Path> files(Path d) throws Exception {
        try (Stream<Path> s = Files.list(d)) {
            return s.sorted().toList();
        }
    }

    @Test
    void aTraceAsItIsACaptureReplayedIntoATemporaryTrace() throws Exception {
        Path scratch = Files.createDirectory(dir.resolve("scratch"));
        Path trace = RANKS.resolve("h200-ranks.merged.json.gz");
        Path capture = RANKS.resolve("rank0.fltrbuf");
        ByteArrayOutputStream replay = new ByteArrayOutputStream();
        CaptureReplay.run(CaptureReplay.request(capture, RANKS.resolve("rank0.ops.jsonl"), null, List.of(), Map.of()), replay);
        Path temporary;
        try (MergeInputs in = new MergeInputs(context)) {
            in.add(trace, scratch);
            assertEquals(List.of(trace), in.traces);
            assertEquals(List.of(), files(scratch), "a trace is not copied");
            in.add(capture, scratch);
            assertEquals(List.of(trace.toString(), capture.toString()), in.sources);
            assertEquals(2, in.traces.size());
            temporary = in.traces.get(1);
            assertEquals(List.of(temporary), files(scratch), "the replay goes into the scratch folder");
            assertTrue(temporary.getFileName().toString().endsWith(".json"), temporary.toString());
            assertArrayEquals(replay.toByteArray(), Files.readAllBytes(temporary), "what replay writes, byte for byte");
            assertTrue(new String(replay.toByteArray(), StandardCharsets.UTF_8).contains("\"clock_anchors\""),
                    "the process sidecar's anchors come along");
            assertFalse(in.damaged);
        }
        assertEquals(List.of(), files(scratch), "close deletes the temporary trace");
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aCutCaptureIsMergedAndMarkedDamaged() throws Exception {
        Path cut = dir.resolve("cut.fltrbuf");
        byte[] whole = Files.readAllBytes(RANKS.resolve("rank0.fltrbuf"));
        Files.write(cut, java.util.Arrays.copyOf(whole, whole.length - 100));
        try (MergeInputs in = new MergeInputs(context)) {
            in.add(cut, dir);
            assertTrue(in.damaged);
            assertEquals(1, in.traces.size());
            assertTrue(Files.size(in.traces.get(0)) > 1000, "every whole record before the cut");
        }
        String said = err.toString(StandardCharsets.UTF_8);
        assertTrue(said.startsWith("flagtrace: warning: " + cut + " is cut short ("), said);
        assertTrue(said.endsWith("); merged with every whole record before the cut" + System.lineSeparator()), said);
        assertEquals(1, said.lines().count(), said);
        assertEquals(List.of(cut), files(dir), "the temporary trace is gone");
    }

    @Test
    void aGzippedCaptureIsACaptureToo() throws Exception {
        Path gz = dir.resolve("rank0.fltrbuf.gz");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(Files.readAllBytes(RANKS.resolve("rank0.fltrbuf")));
        }
        try (MergeInputs in = new MergeInputs(context)) {
            in.add(gz, dir);
            assertFalse(in.traces.get(0).equals(gz), "replayed, not taken as a trace");
            assertTrue(Files.readString(in.traces.get(0)).contains("\"traceEvents\""));
        }
    }
}
