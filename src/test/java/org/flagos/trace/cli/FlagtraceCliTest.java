package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlagtraceCliTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private int run(String... args) {
        return cli.run(args);
    }

    private String stdout() {
        return cli.stdout();
    }

    private String stderr() {
        return cli.stderr();
    }

    private List<Path> files() throws IOException {
        try (var s = Files.list(dir)) {
            return s.toList();
        }
    }

    @Test
    void replayWritesATraceAndASummary() throws IOException {
        Path trace = dir.resolve("t.json");
        Path summary = dir.resolve("s.json");
        int code = run("replay", Captures.capture("h200-app").toString(), "--ops", Captures.ops("h200-app").toString(),
                "--device-properties", "h200", "-o", trace.toString(), "--summary", summary.toString());
        assertEquals(0, code, stderr());
        JsonNode t = TraceJson.MAPPER.readTree(trace.toFile());
        assertTrue(t.get("traceEvents").size() > 0);
        JsonNode file = TraceJson.MAPPER.readTree(summary.toFile()); // summary --json's schema (docs/formats.md)
        JsonNode rows = file.get("rows");
        assertEquals(file.get("rows_total").asInt(), rows.size());
        assertTrue(rows.size() > 0);
        for (JsonNode row : rows) {
            for (String key : List.of("name", "kind", "count", "cpu_time_total_us", "self_cpu_time_total_us",
                    "device_time_total_us", "self_device_time_total_us")) {
                assertTrue(row.has(key), key);
            }
        }
        String printed = stdout();
        assertTrue(printed.contains("app::mm"), printed);
        assertTrue(printed.contains("dropped outside the capture window"), printed);
        assertEquals(2, files().size(), "no temporary files left: " + files());
    }

    @Test
    void gzipOutputAndTheNameTableBesideTheCapture() throws IOException {
        Path trace = dir.resolve("t.json.gz");
        int code = run("replay", Captures.capture("h200-tiny30k").toString(), "--ops", Captures.ops("h200-tiny30k").toString(),
                "-o", trace.toString());
        assertEquals(0, code, stderr());
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            JsonNode t = TraceJson.MAPPER.readTree(in);
            boolean demangled = false;
            for (JsonNode e : t.get("traceEvents")) {
                demangled |= "tiny(float*)".equals(e.path("name").asText());
            }
            assertTrue(demangled, "names came from h200-tiny30k.names.tsv beside the capture");
        }
    }

    /**
     * A .gz output is the plain output compressed (on worker threads, in blocks): for every bundled
     * capture, the JSON trace decompresses to exactly the bytes the plain file holds, as one gzip
     * member that Java, gzip and Python read alike. Two runs are two replays, and two replays differ
     * in how often the producer waited on a full ring ({@code flagtrace.ring_full}: a measurement of
     * the run, 0 to 5 on h200-tiny30k here), so the JSON is compared with that block left out; two
     * runs of a .pftrace differ in a few interned ids (so did they before the parallel gzip): the same
     * length here. The exact bytes of one run through both outputs: ParallelGzipOutputStreamTest.
     */
    @Test
    void gzipOutputsDecompressToExactlyThePlainBytes() throws Exception {
        for (String capture : List.of("h200-app", "h200-app-tiny2k", "h200-mt4", "h200-java-parity", "h200-tiny30k")) {
            for (String format : List.of("json", "pftrace")) {
                Path plain = dir.resolve(capture + "." + format);
                Path gz = dir.resolve(capture + "." + format + ".gz");
                for (Path out : List.of(plain, gz)) {
                    List<String> args = new java.util.ArrayList<>(List.of("replay", Captures.capture(capture).toString(), "-o", out.toString()));
                    if (Files.exists(Captures.ops(capture))) {
                        args.addAll(List.of("--ops", Captures.ops(capture).toString()));
                    }
                    assertEquals(0, run(args.toArray(new String[0])), stderr());
                }
                byte[] expected = Files.readAllBytes(plain);
                try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
                    byte[] inflated = in.readAllBytes();
                    if (format.equals("json")) {
                        assertEquals(withoutRingWaits(expected), withoutRingWaits(inflated), capture + ".json.gz holds the plain trace");
                    } else {
                        assertEquals(expected.length, inflated.length, capture + ".pftrace.gz holds as many bytes as the plain file");
                    }
                }
                assertTrue(Files.size(gz) < expected.length, capture + "." + format);
                if (capture.equals("h200-tiny30k")) { // over a block (256 KiB): several blocks joined in one member
                    assertTrue(expected.length > 4 << 20, "the trace spans many blocks: " + expected.length);
                    if (format.equals("json")) { // Python reads the trace the JSON way; a .pftrace is checked by gzip -t
                        Process p = new ProcessBuilder("python3", "-c", "import gzip,json,sys\n"
                                + "def t(b):\n d = json.loads(b); d['flagtrace'].pop('ring_full'); return d\n"
                                + "sys.exit(0 if t(gzip.open(sys.argv[1]).read()) == t(open(sys.argv[2],'rb').read()) else 1)", gz.toString(), plain.toString()).inheritIO().start();
                        assertEquals(0, p.waitFor(), "Python's gzip reads the same trace");
                    }
                    assertEquals(0, new ProcessBuilder("gzip", "-t", gz.toString()).inheritIO().start().waitFor(), "gzip -t");
                }
            }
        }
        try (var s = Files.list(dir)) {
            assertEquals(20, s.count(), "no temporary files left");
        }
    }

    @Test
    void aCaptureWithoutItsNameTableKeepsKernelsAndSaysSo() throws IOException {
        Path capture = dir.resolve("alone.fltrbuf");
        Files.copy(Captures.capture("h200-app"), capture);
        Path trace = dir.resolve("t.json");
        assertEquals(0, run("replay", capture.toString(), "--ops", Captures.ops("h200-app").toString(), "-o", trace.toString()));
        assertTrue(stdout().contains("kernels without a name: 6 distinct"), stdout());
        JsonNode t = TraceJson.MAPPER.readTree(trace.toFile());
        assertEquals(6, t.get("flagtrace").get("unnamed_kernels").asInt());
        assertEquals(0, t.get("flagtrace").get("invalid_records").asInt());
        long kernels = 0;
        for (JsonNode e : t.get("traceEvents")) {
            if ("kernel".equals(e.path("cat").asText())) {
                kernels++;
                assertTrue(e.get("name").asText().startsWith("<unresolved kernel 0x"));
            }
        }
        assertEquals(21, kernels, "no kernel is dropped for want of a name");
    }

    @Test
    void wrongMagicIsOneLineAndNoOutput() throws IOException {
        Path bogus = dir.resolve("bogus.fltrbuf");
        Files.writeString(bogus, "this is not a capture");
        int code = run("replay", bogus.toString(), "-o", dir.resolve("t.json").toString());
        assertEquals(1, code);
        assertTrue(stderr().contains("wrong magic"), stderr());
        assertEquals(1, stderr().strip().lines().count(), stderr());
        assertEquals(List.of(bogus), files());
    }

    @Test
    void aTruncatedCaptureKeepsWhatPrecedesTheCutAndSaysSo() throws IOException {
        byte[] whole = Files.readAllBytes(Captures.capture("h200-mt4"));
        Path cut = dir.resolve("cut.fltrbuf");
        Files.write(cut, java.util.Arrays.copyOf(whole, whole.length - 1000));
        Path trace = dir.resolve("t.json");
        int code = run("replay", cut.toString(), "--ops", Captures.ops("h200-mt4").toString(),
                "--names", Captures.names("h200-mt4").toString(), "-o", trace.toString());
        assertEquals(3, code);
        assertTrue(stderr().contains("cut short"), stderr());
        JsonNode t = TraceJson.MAPPER.readTree(trace.toFile());
        assertTrue(t.get("traceEvents").size() > 1000, "the four complete buffers are in the trace");
        assertTrue(t.get("flagtrace").get("notes").toString().contains("cut short"));
    }

    @Test
    void aOneFrameCaptureCutByOneByteKeepsEveryWholeRecord() throws IOException {
        byte[] whole = Files.readAllBytes(Captures.capture("h200-app-tiny2k"));
        Path wholeTrace = dir.resolve("whole.json");
        assertEquals(0, run("replay", Captures.capture("h200-app-tiny2k").toString(), "--ops", Captures.ops("h200-app-tiny2k").toString(),
                "--names", Captures.names("h200-app-tiny2k").toString(), "-o", wholeTrace.toString()));
        Path cut = dir.resolve("cut1.fltrbuf");
        Files.write(cut, java.util.Arrays.copyOf(whole, whole.length - 1));
        Path trace = dir.resolve("t1.json");
        int code = run("replay", cut.toString(), "--ops", Captures.ops("h200-app-tiny2k").toString(),
                "--names", Captures.names("h200-app-tiny2k").toString(), "-o", trace.toString());
        assertEquals(3, code);
        JsonNode before = TraceJson.MAPPER.readTree(wholeTrace.toFile()).get("flagtrace").get("decoded");
        JsonNode after = TraceJson.MAPPER.readTree(trace.toFile()).get("flagtrace");
        long wholeRecords = 0;
        long keptRecords = 0;
        for (String kind : List.of("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime")) {
            wholeRecords += before.get(kind).asLong();
            keptRecords += after.get("decoded").get(kind).asLong();
        }
        assertTrue(keptRecords >= wholeRecords - 1, "all but the one record the cut went through: " + keptRecords + " of " + wholeRecords);
        assertTrue(after.get("undecodable_bytes").asLong() > 0, "the cut record's bytes are counted");
        assertTrue(stderr().contains("1 bytes lost"), stderr());
    }

    @Test
    void anOutputThatIsAnInputIsRefusedBeforeAnythingIsRead() throws IOException {
        Path capture = dir.resolve("c.fltrbuf");
        Files.copy(Captures.capture("h200-app-tiny2k"), capture);
        byte[] before = Files.readAllBytes(capture);
        assertEquals(2, run("replay", capture.toString(), "-o", capture.toString()));
        assertTrue(stderr().contains("refusing to overwrite an input"), stderr());
        Path ops = dir.resolve("c.ops.jsonl");
        Files.copy(Captures.ops("h200-app-tiny2k"), ops);
        assertEquals(2, run("replay", capture.toString(), "--ops", ops.toString(), "-o", dir.resolve("t.json").toString(),
                "--summary", dir.resolve("./c.ops.jsonl").toString()));
        assertEquals(2, run("replay", capture.toString(), "-o", dir.resolve("same.json").toString(),
                "--summary", dir.resolve("same.json").toString()));
        assertTrue(stderr().contains("name the same file"), stderr());
        org.junit.jupiter.api.Assertions.assertArrayEquals(before, Files.readAllBytes(capture), "the capture is untouched");
        assertEquals(java.util.Set.of(capture, ops), java.util.Set.copyOf(files()));
    }

    @Test
    void whenTheSummaryCannotBeWrittenNeitherOutputIsLeftAndTheErrorNamesTheUsersPath() throws IOException {
        Path blocker = dir.resolve("afile");
        Files.writeString(blocker, "x");
        Path summary = blocker.resolve("summary.json"); // its directory would have to be a regular file
        int code = run("replay", Captures.capture("h200-app-tiny2k").toString(), "-o", dir.resolve("t.json").toString(),
                "--summary", summary.toString());
        assertEquals(1, code);
        assertEquals(1, stderr().strip().lines().count(), stderr());
        assertTrue(stderr().contains(summary.toString()), stderr());
        assertTrue(!stderr().contains(".partial") && !stderr().contains("Exception"), stderr());
        assertEquals(List.of(blocker), files(), "no trace left behind either");
    }

    @Test
    void aCaptureOfOnlyItsMagicSaysSo() throws IOException {
        Path empty = dir.resolve("magic.fltrbuf");
        Files.writeString(empty, "FLTRBUF1");
        Path trace = dir.resolve("m.json");
        assertEquals(0, run("replay", empty.toString(), "-o", trace.toString()));
        assertTrue(stdout().contains("holds no activity buffer"), stdout());
    }

    @Test
    void garbageOpsFileIsOneLineWithItsLineNumber() throws IOException {
        Path ops = dir.resolve("bad.ops.jsonl");
        Files.writeString(ops, "{\"window_start\":1}\n{oops\n");
        int code = run("replay", Captures.capture("h200-app").toString(), "--ops", ops.toString(),
                "-o", dir.resolve("t.json").toString());
        assertEquals(1, code);
        assertTrue(stderr().contains("bad.ops.jsonl:2"), stderr());
        assertFalse(Files.exists(dir.resolve("t.json")));
    }

    @Test
    void missingFilesAndBadUsage() {
        assertEquals(1, run("replay", dir.resolve("nope.fltrbuf").toString(), "-o", dir.resolve("t.json").toString()));
        assertTrue(stderr().contains("no such file"), stderr());
        assertEquals(2, run("replay"));
        assertEquals(2, run("frobnicate"));
        assertEquals(2, run("replay", "x.fltrbuf", "-o", "t.json", "--metadata", "traceEvents=1"));
    }

    @Test
    void hostileMetadataStillGivesValidJson() throws IOException {
        Path trace = dir.resolve("t.json");
        int code = run("replay", Captures.capture("h200-app").toString(), "-o", trace.toString(),
                "--metadata", "note=N/A", "--metadata", "bw=8e-05", "--metadata", "q=a\"b\\c\n}", "--metadata", "flag=true");
        assertEquals(0, code, stderr());
        JsonNode t = TraceJson.MAPPER.readTree(trace.toFile());
        assertEquals("N/A", t.get("note").asText());
        assertTrue(t.get("bw").isNumber());
        assertEquals("a\"b\\c\n}", t.get("q").asText());
        assertTrue(t.get("flag").isBoolean());
    }

    @Test
    void demoRunsOnTheBundledCapture() throws IOException {
        int code = run("demo", "-o", dir.resolve("demo").toString());
        assertEquals(0, code, stderr());
        JsonNode t = TraceJson.MAPPER.readTree(dir.resolve("demo/trace.json").toFile());
        assertEquals("NVIDIA H200", t.get("deviceProperties").get(0).get("name").asText());
        assertTrue(Files.exists(dir.resolve("demo/summary.json")));
    }

    /** The trace's JSON tree without the run's own ring-full measurement. */
    private static JsonNode withoutRingWaits(byte[] trace) throws IOException {
        JsonNode tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(trace);
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("flagtrace")).remove("ring_full");
        return tree;
    }
}
