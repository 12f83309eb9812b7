package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TargetScratch;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files that are not what they claim to be, as the issue 14 attack found them: special files as
 * inputs, endless lines, bytes that are not UTF-8, device lists of the wrong shape, captures of empty
 * frames and frames longer than a frame may be. Each is one line and no hang, no heap filled.
 */
class HostileFilesTest {
    private static final String NAME = "h200-app-tiny2k";

    @TempDir
    Path dir; // under target/tmp (junit-platform.properties), removed after each test
    private final CliRunner cli = new CliRunner();

    /** Runs the CLI, bounded only so that a regression (a read that never ends) fails instead of hanging the build. */
    private int run(String... args) {
        return assertTimeoutPreemptively(Duration.ofMinutes(2), () -> cli.run(args), String.join(" ", args));
    }

    private void assertOneLineNaming(String path, String words) {
        String err = cli.stderr();
        assertEquals(1, err.strip().lines().count(), err);
        assertTrue(err.contains(path) && err.contains(words), err);
        assertFalse(err.contains("Exception") || err.contains("java."), "no Java class name: " + err);
    }

    @Test
    void specialFilesAreRefusedAsEveryInputInsteadOfReadForEver() {
        Path fifo = TargetScratch.fifo(dir.resolve("fifo"));
        String capture = Captures.capture(NAME).toString();
        String trace = dir.resolve("t.json").toString();
        for (String special : new String[] {fifo.toString(), "/dev/zero"}) {
            String[][] lines = {
                {"replay", special, "-o", trace},
                {"replay", capture, "--ops", special, "-o", trace},
                {"replay", capture, "--names", special, "-o", trace},
                {"replay", capture, "--device-properties", special, "-o", trace},
            };
            for (String[] line : lines) {
                assertEquals(1, run(line), String.join(" ", line) + ": " + cli.stderr());
                assertOneLineNaming(special, "not a regular file");
                assertFalse(Files.exists(Path.of(trace)));
            }
        }
    }

    /**
     * A FIFO with no writer, {@code /dev/zero}, {@code /dev/urandom} and a loop of two links given as the trace of every
     * command that reads traces (and as {@code analyze}'s events table): one line naming it, exit 1, nothing written.
     * {@code analyze} said "no such file or folder" of the FIFO, the devices and the loop, and the trace readers gave
     * the system's words for the loop ("Too many levels of symbolic links").
     */
    @Test
    void specialFilesAndLinkLoopsAreRefusedAsTheTraceOfEveryCommandThatReadsOne() throws IOException {
        Path fifo = TargetScratch.fifo(dir.resolve("pipe.json"));
        Path loop = Files.createSymbolicLink(dir.resolve("loop.json"), Path.of("loop2.json"));
        Files.createSymbolicLink(dir.resolve("loop2.json"), Path.of("loop.json"));
        String good = Path.of("src/test/resources/hta/simple_add_trace.json.gz").toString();
        Path out = Files.createDirectory(dir.resolve("out")); // there: an output refused comes before the trace is opened
        for (String special : new String[] {fifo.toString(), "/dev/zero", "/dev/urandom", loop.toString()}) {
            String words = special.equals(loop.toString()) ? "a link that leads to no file" : "not a regular file";
            String[][] lines = {
                {"summary", special},
                {"summary", special, "--json", out.resolve("s.json").toString()},
                {"report", special, "-o", out.resolve("r.html").toString()},
                {"tables", special, "-o", out.resolve("t.parquet").toString()},
                {"tables", good, special, "-o", out.resolve("ranks").toString(), "--partition-by-rank"},
                {"merge", good, special, "-o", out.resolve("m.json").toString()},
                {"diff", special, good},
                {"diff", good, special},
                {"analyze", special, "-o", out.toString()},
            };
            for (String[] line : lines) {
                assertEquals(1, run(line), String.join(" ", line) + ": " + cli.stderr());
                assertOneLineNaming(special, words);
                try (var written = Files.list(out)) {
                    assertEquals(List.of(), written.toList(), String.join(" ", line));
                }
            }
        }
    }

    @Test
    void aDirectoryGivenAsAFileIsSaidInWords() throws IOException {
        Path sub = Files.createDirectory(dir.resolve("sub"));
        String capture = Captures.capture(NAME).toString();
        for (String option : new String[] {"--ops", "--names", "--device-properties"}) {
            assertEquals(1, run("replay", capture, option, sub.toString(), "-o", dir.resolve("t.json").toString()), option);
            assertOneLineNaming(sub.toString(), "is a directory");
        }
    }

    private static String longName() {
        return "k".repeat(2 << 20); // 2 MiB: over the 1 MiB line limit
    }

    @Test
    void aLineOverTheLimitFailsAtTheLimitWithItsLineNumber() throws IOException {
        String capture = Captures.capture(NAME).toString();
        Path ops = dir.resolve("long.ops.jsonl");
        Files.writeString(ops, "{\"window_start\":1}\n{\"name\":\"" + longName() + "\",\"external_id\":1,\"start\":2,\"end\":3}\n"
                + "{\"window_end\":9}\n");
        assertEquals(1, run("replay", capture, "--ops", ops.toString(), "-o", dir.resolve("t.json").toString()));
        assertOneLineNaming(ops + ":2:", "longer than 1048576 bytes");
        Path names = dir.resolve("long.names.tsv");
        Files.writeString(names, "0x1\tshort\n0x2\t" + longName() + "\n");
        assertEquals(1, run("replay", capture, "--names", names.toString(), "-o", dir.resolve("t.json").toString()));
        assertOneLineNaming(names + ":2:", "longer than 1048576 bytes");
        assertFalse(Files.exists(dir.resolve("t.json")));
    }

    @Test
    void bytesThatAreNotUtf8AreAnErrorNamingTheFileAndTheLine() throws IOException {
        String capture = Captures.capture(NAME).toString();
        byte[] bad = {(byte) 0xe2, (byte) 0x28, (byte) 0xa1};
        Path names = dir.resolve("bad.names.tsv");
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        table.writeBytes("0x1\tfine\n0x2\tbad ".getBytes(StandardCharsets.US_ASCII));
        table.writeBytes(bad);
        table.writeBytes("\n".getBytes(StandardCharsets.US_ASCII));
        Files.write(names, table.toByteArray());
        assertEquals(1, run("replay", capture, "--names", names.toString(), "-o", dir.resolve("t.json").toString()));
        assertOneLineNaming(names + ":2:", "not UTF-8");

        Path ops = dir.resolve("bad.ops.jsonl");
        ByteArrayOutputStream lines = new ByteArrayOutputStream();
        lines.writeBytes("{\"window_start\":1}\n{\"name\":\"".getBytes(StandardCharsets.US_ASCII));
        lines.writeBytes(bad);
        lines.writeBytes("\",\"external_id\":1,\"start\":2,\"end\":3}\n{\"window_end\":9}\n".getBytes(StandardCharsets.US_ASCII));
        Files.write(ops, lines.toByteArray());
        assertEquals(1, run("replay", capture, "--ops", ops.toString(), "-o", dir.resolve("t.json").toString()));
        assertOneLineNaming(ops + ":2:", "not UTF-8");
    }

    @Test
    void aDeviceListOfArraysIsRefusedNotAcceptedEmpty() throws IOException {
        Path devices = dir.resolve("arrays.json");
        Files.writeString(devices, "{\"deviceProperties\": [[0, \"NVIDIA H200\"], [1, \"NVIDIA H200\"]]}");
        assertEquals(1, run("replay", Captures.capture(NAME).toString(), "--device-properties", devices.toString(),
                "-o", dir.resolve("t.json").toString()));
        assertOneLineNaming(devices.toString(), "device 0 is an array, not a JSON object");
    }

    /** A capture of one frame holding only the first kernel record of a real H200 capture, then {@code tail}. */
    private Path oneKernelThen(String file, byte[] tail) throws IOException {
        ByteBuffer b = CaptureBytes.load(Captures.capture(NAME)).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer payload = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        payload.position(b.position() + 24).limit(b.position() + 24 + (int) b.getLong(b.position() + 16));
        for (int at = payload.position(); at + 216 <= payload.limit(); at += 8) {
            if (payload.getInt(at) == 10 && payload.getLong(at + 16) > 1_000_000_000_000_000L
                    && payload.getLong(at + 24) >= payload.getLong(at + 16) && payload.getInt(at + 40) == 0) {
                ByteBuffer capture = ByteBuffer.allocate(8 + 16 + 216 + tail.length).order(ByteOrder.LITTLE_ENDIAN);
                capture.put("FLTRBUF1".getBytes(StandardCharsets.US_ASCII)).putInt(1).putInt(0).putLong(216);
                for (int i = 0; i < 216; i++) {
                    capture.put(payload.get(at + i));
                }
                capture.put(tail);
                return Files.write(dir.resolve(file), capture.array());
            }
        }
        throw new AssertionError("no kernel record found");
    }

    private List<String> notes(Path trace) throws IOException {
        List<String> notes = new ArrayList<>();
        for (JsonNode note : TraceJson.MAPPER.readTree(trace.toFile()).get("flagtrace").get("notes")) {
            notes.add(note.asText());
        }
        return notes;
    }

    @Test
    void emptyFramesAreCountedOnceNotNotedOneByOne() throws IOException {
        int empty = 100_000; // 16 zero bytes each: a header of vendor 0 declaring no payload
        Path capture = oneKernelThen("zeros.fltrbuf", new byte[16 * empty]);
        Path trace = dir.resolve("t.json");
        assertEquals(0, run("replay", capture.toString(), "-o", trace.toString()), cli.stderr());
        List<String> notes = notes(trace);
        assertTrue(notes.size() <= 2, notes.size() + " notes: " + notes.subList(0, Math.min(5, notes.size())));
        assertTrue(notes.stream().anyMatch(n -> n.contains(empty + " empty frames")), notes.toString());
        assertEquals(1, TraceJson.MAPPER.readTree(trace.toFile()).get("flagtrace").get("decoded").get("kernel").asInt());
        assertTrue(cli.stdout().lines().count() < 40, "a few lines printed, not one per frame");
    }

    @Test
    void framesOfManyOtherVendorsAreCountedInAFewNotes() throws IOException {
        ByteBuffer frames = ByteBuffer.allocate(300 * 24).order(ByteOrder.LITTLE_ENDIAN);
        for (int vendor = 0; vendor < 300; vendor++) {
            frames.putInt(1000 + vendor).putInt(0).putLong(8).putLong(vendor);
        }
        Path capture = oneKernelThen("foreign.fltrbuf", frames.array());
        Path trace = dir.resolve("t.json");
        assertEquals(0, run("replay", capture.toString(), "-o", trace.toString()), cli.stderr());
        List<String> notes = notes(trace);
        assertTrue(notes.size() <= 10, notes.size() + " notes");
        assertTrue(notes.stream().anyMatch(n -> n.contains("292 more frames of other vendors skipped (2336 bytes)")), notes.toString());
    }

    /** A capture whose one frame declares a byte more than a frame may hold, and holds those bytes (a sparse file). */
    private Path oneByteOverTheFrameLimit() throws IOException {
        Path capture = dir.resolve("huge.fltrbuf");
        ByteBuffer header = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        header.put("FLTRBUF1".getBytes(StandardCharsets.US_ASCII)).putInt(1).putInt(0).putLong(FltrbufFrames.MAX_STREAMED_FRAME + 1L);
        Files.write(capture, header.array());
        try (RandomAccessFile file = new RandomAccessFile(capture.toFile(), "rw")) {
            file.setLength(24 + FltrbufFrames.MAX_STREAMED_FRAME + 1L); // sparse: no disk, no memory
        }
        return capture;
    }

    @Test
    void aFrameOverTheLimitIsRefusedAtItsHeaderInMemoryAsWhenStreamed() throws IOException {
        Path capture = oneByteOverTheFrameLimit();
        try (FltrbufFrames mapped = new FltrbufFrames(CaptureBytes.load(capture), "mapped")) {
            assertFalse(mapped.next(), "the frame is not handed out");
            assertTrue(mapped.truncation().contains("more than the 268435456"), mapped.truncation());
        }
    }

    @Test
    void aFrameOverTheLimitIsRefusedInASmallHeapBeforeItsBytesAreRead() throws Exception {
        Path capture = oneByteOverTheFrameLimit();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx48m", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                FlagtraceCli.class.getName(), "replay", capture.toString(), "-o", dir.resolve("t.json").toString()));
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(command).redirectOutput(dir.resolve("out.txt").toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the CLI ends");
        String stderr = Files.readString(err);
        assertEquals(3, p.exitValue(), stderr); // a 256 MiB frame would not even fit in this heap
        assertTrue(stderr.contains("more than the 268435456 (256 MiB) a frame may hold"), stderr);
    }

    @Test
    void anUnexpectedFailureIsWordsNotAJavaClassName() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliFailures.report(new IllegalStateException("the ring was closed twice"), "flagtrace replay",
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String line = err.toString(StandardCharsets.UTF_8);
        assertTrue(line.contains("the ring was closed twice"), line);
        assertFalse(line.contains("java.") || line.contains("Exception"), line);
        err.reset();
        CliFailures.report(new NumberFormatException(), "flagtrace replay", new PrintStream(err, true, StandardCharsets.UTF_8));
        assertFalse(err.toString(StandardCharsets.UTF_8).contains("Exception"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aWorkloadsOwnFailureIsAnErrorNotAnInternalOne() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = CliFailures.report(new org.flagos.trace.model.WorkloadFailedException("exchange: rank 0 waited 60.0 s for rank 1"),
                "flagtrace record", new PrintStream(err, true, StandardCharsets.UTF_8));
        assertTrue(code != 0);
        assertTrue(err.toString(StandardCharsets.UTF_8).equals("flagtrace: error: exchange: rank 0 waited 60.0 s for rank 1"
                + System.lineSeparator()), err.toString(StandardCharsets.UTF_8));
    }
}
