package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.capture.CaptureFailedException;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inputs a mutation fuzzer and a new user's mistakes found on the CLI and the replay (issue
 * "Hostile input and safe output"), each kept as a case: no hang, no leaked thread, no raw
 * exception, no invalid JSON, nothing trusted that sizes memory, nothing silent.
 */
class HostileInputTest {
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

    /** A capture of one frame holding only the first kernel record of a real H200 capture. */
    private static byte[] oneKernel() {
        ByteBuffer payload = firstFramePayload("h200-app-tiny2k");
        for (int at = payload.position(); at + 216 <= payload.limit(); at += 8) {
            if (payload.getInt(at) == 10 && payload.getLong(at + 16) > 1_000_000_000_000_000L
                    && payload.getLong(at + 24) >= payload.getLong(at + 16) && payload.getInt(at + 40) == 0
                    && payload.getLong(at + 104) != 0) {
                ByteBuffer file = ByteBuffer.allocate(8 + 16 + 216).order(ByteOrder.LITTLE_ENDIAN);
                file.put("FLTRBUF1".getBytes(StandardCharsets.US_ASCII)).putInt(1).putInt(0).putLong(216);
                for (int i = 0; i < 216; i++) {
                    file.put(payload.get(at + i));
                }
                return file.array();
            }
        }
        throw new AssertionError("no kernel record found");
    }

    private static ByteBuffer firstFramePayload(String capture) {
        ByteBuffer b = CaptureBytes.load(Captures.capture(capture)).order(ByteOrder.LITTLE_ENDIAN);
        long length = b.getLong(b.position() + 16);
        ByteBuffer p = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        p.position(b.position() + 24).limit(b.position() + 24 + (int) length);
        return p;
    }

    private static byte[] withDevice(byte[] capture, int device) {
        byte[] copy = capture.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(24 + 40, device);
        return copy;
    }

    private JsonNode replayed(Path trace) throws IOException {
        return TraceJson.MAPPER.readTree(trace.toFile());
    }

    @Test
    void theRealKernelRecordReplaysAlone() throws IOException {
        Path capture = dir.resolve("k.fltrbuf");
        Files.write(capture, oneKernel());
        assertEquals(0, run("replay", capture.toString(), "-o", dir.resolve("k.json").toString()));
        assertEquals(1, replayed(dir.resolve("k.json")).get("flagtrace").get("decoded").get("kernel").asInt());
    }

    @Test
    void implausibleDeviceIdsAreCountedNotTrusted() throws IOException {
        for (int device : new int[] {0x7ffffff0, -1, 1_000_000_000, Integer.MIN_VALUE, 1024}) {
            Path capture = dir.resolve("d.fltrbuf");
            Files.write(capture, withDevice(oneKernel(), device));
            Path trace = dir.resolve("d.json");
            int code = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> run("replay", capture.toString(), "-o", trace.toString()));
            assertEquals(0, code, stderr());
            JsonNode flagtrace = replayed(trace).get("flagtrace");
            assertEquals(0, flagtrace.get("decoded").get("kernel").asInt(), "device " + device);
            assertEquals(1, flagtrace.get("invalid_records").asInt());
            assertTrue(stdout().contains("is not below 1024"), stdout());
        }
    }

    @Test
    void aRecordWithoutTimestampsIsCountedIncompleteNotInvalid() throws IOException {
        byte[] capture = oneKernel();
        ByteBuffer b = ByteBuffer.wrap(capture).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(24 + 16, 0).putLong(24 + 24, 0); // CUPTI's "timestamp unknown": work still running at a forced flush
        Path file = dir.resolve("i.fltrbuf");
        Files.write(file, capture);
        assertEquals(0, run("replay", file.toString(), "-o", dir.resolve("i.json").toString()));
        JsonNode flagtrace = replayed(dir.resolve("i.json")).get("flagtrace");
        assertEquals(0, flagtrace.get("decoded").get("kernel").asInt());
        assertEquals(1, flagtrace.get("incomplete_records").asInt());
        assertEquals(0, flagtrace.get("invalid_records").asInt());
        assertTrue(stdout().contains("records without timestamps"), stdout());
    }

    @Test
    void aKernelNamePointerAbove2To63KeepsItsRecordUnderAPlaceholder() throws IOException {
        byte[] capture = oneKernel();
        ByteBuffer.wrap(capture).order(ByteOrder.LITTLE_ENDIAN).putLong(24 + 104, 0x8000_0000_0000_1234L);
        Path file = dir.resolve("n.fltrbuf");
        Files.write(file, capture);
        assertEquals(0, run("replay", file.toString(), "-o", dir.resolve("n.json").toString()));
        JsonNode kernel = null;
        for (JsonNode e : replayed(dir.resolve("n.json")).get("traceEvents")) {
            kernel = "kernel".equals(e.path("cat").asText()) ? e : kernel;
        }
        assertTrue(kernel.get("name").asText().contains("8000000000001234"), kernel.toString());
    }

    private Path ops(String... lines) throws IOException {
        Path file = dir.resolve("ops-" + System.nanoTime() + ".ops.jsonl");
        Files.writeString(file, String.join("\n", lines) + "\n");
        return file;
    }

    @Test
    void extremeSpansAndThreadsStillMakeValidJson() throws IOException {
        Path capture = dir.resolve("k.fltrbuf");
        Files.write(capture, oneKernel());
        Path ops = ops("{\"window_start\":0}",
                "{\"name\":\"whole range\",\"external_id\":0,\"thread\":9223372036854775807,\"start\":0,\"end\":9223372036854775807}",
                "{\"name\":\"lone \\ud800 surrogate \\\"quoted\\\" \\\\ back\",\"external_id\":1,\"start\":5,\"end\":6}",
                "{\"window_end\":9223372036854775807}");
        Path trace = dir.resolve("x.json");
        Path summary = dir.resolve("x.summary.json");
        assertEquals(0, run("replay", capture.toString(), "--ops", ops.toString(), "-o", trace.toString(), "--summary", summary.toString()),
                stderr());
        JsonNode t = replayed(trace); // parses: valid JSON
        TraceJson.MAPPER.readTree(summary.toFile());
        List<String> names = new ArrayList<>();
        for (JsonNode e : t.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText())) {
                names.add(e.get("name").asText());
                assertFalse(e.get("dur").asText().startsWith("-"), e.toString());
            }
        }
        assertTrue(names.contains("lone \ud800 surrogate \"quoted\" \\ back"), names.toString());
    }

    @Test
    void badOpsFilesAreOneClearError() throws IOException {
        Path capture = Captures.capture("h200-app-tiny2k");
        Object[][] cases = {
            {ops("{\"window_start\":1}", "{\"name\":\"a\",\"external_id\":7,\"start\":2,\"end\":3}",
                    "{\"name\":\"b\",\"external_id\":7,\"start\":4,\"end\":5}", "{\"window_end\":9}"), "already used on line 2"},
            {ops("{\"window_start\":1}", "{\"name\":\"a\",\"external_id\":1,\"start\":-5,\"end\":3}", "{\"window_end\":9}"), "non-negative"},
            {ops("{\"window_start\":-1}", "{\"window_end\":9}"), "non-negative"},
            {ops("{\"window_start\":1}", "{\"name\":\"a\",\"external_id\":1,\"start\":5,\"end\":3}", "{\"window_end\":9}"), "ends before"},
        };
        for (Object[] c : cases) {
            Path trace = dir.resolve("bad.json");
            assertEquals(1, run("replay", capture.toString(), "--ops", c[0].toString(), "-o", trace.toString()), stderr());
            assertTrue(stderr().contains((String) c[1]), stderr());
            assertEquals(1, stderr().strip().lines().count(), stderr());
            assertFalse(Files.exists(trace));
        }
    }

    @Test
    void overlappingSiblingsAndAnEmptyWindowAreWarnedAboutInTheTrace() throws IOException {
        Path capture = Captures.capture("h200-app-tiny2k");
        Path ops = ops("{\"window_start\":1}",
                "{\"name\":\"a\",\"external_id\":1,\"thread\":1,\"start\":10,\"end\":30}",
                "{\"name\":\"b\",\"external_id\":2,\"thread\":1,\"start\":20,\"end\":40}",
                "{\"window_end\":100}");
        Path trace = dir.resolve("w.json");
        assertEquals(0, run("replay", capture.toString(), "--ops", ops.toString(), "-o", trace.toString()));
        String notes = replayed(trace).get("flagtrace").get("notes").toString();
        assertTrue(notes.contains("overlap an op on their thread without nesting"), notes);
        assertTrue(stdout().contains("without nesting"));
        Path none = ops("{\"window_start\":1}", "{\"name\":\"a\",\"external_id\":1,\"start\":500,\"end\":600}", "{\"window_end\":100}");
        assertEquals(0, run("replay", capture.toString(), "--ops", none.toString(), "-o", trace.toString()));
        assertTrue(replayed(trace).get("flagtrace").get("notes").toString().contains("holds none of the 1 ops"));
    }

    /** An output that fails: with an exception, or with an Error, when the end of the capture is written. */
    private static final class FailingOutput extends OutputStream {
        private final Throwable failure;
        private long written;

        FailingOutput(Throwable failure) {
            this.failure = failure;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            written += len;
        }

        @Override
        public void flush() throws IOException {
            if (failure instanceof IOException) {
                throw (IOException) failure;
            }
        }

        @Override
        public void close() {
            if (failure instanceof Error) {
                throw (Error) failure; // at the very end: the writer handles the end of the capture
            }
        }
    }

    private static CaptureReplay.Request request() {
        return CaptureReplay.Request.of(CaptureBytes.load(Captures.capture("h200-app-tiny2k")), "tiny2k").traceName("t")
                .ringSize(1 << 10).build();
    }

    @Test
    void anErrorAtTheEndOfTheCaptureEndsItInsteadOfHanging() {
        CaptureFailedException e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(CaptureFailedException.class,
                () -> CaptureReplay.run(request(), new FailingOutput(new OutOfMemoryError("simulated")))));
        assertTrue(e.getMessage().contains("simulated"), e.getMessage());
    }

    @Test
    void failedReplaysLeaveNoThreadBehind() throws Exception {
        CaptureReplay.run(request(), OutputStream.nullOutputStream()); // warm up class loading
        Thread.sleep(100);
        int before = Thread.activeCount();
        // Kernel names are resolved on the name stage's thread: a failing name table is a stage failure.
        KernelNames failing = handle -> {
            throw new IllegalStateException("the name stage fails midway");
        };
        CaptureReplay.Request base = request();
        CaptureReplay.Request namingFails = CaptureReplay.Request.of(base.capture(), base.source()).kernelNames(failing)
                .traceName("t").ringSize(1 << 10).build();
        // The producer reads the ops as it publishes: ops that fail after a few fail the producer.
        CaptureReplay.Request producerFails = CaptureReplay.Request.of(base.capture(), base.source())
                .ops(new FailingOps()).kernelNames(base.kernelNames()).traceName("t").ringSize(1 << 10).build();
        for (int i = 0; i < 20; i++) {
            assertThrows(CaptureFailedException.class, () -> CaptureReplay.run(request(), new FailingOutput(new IOException("disk full"))));
            CaptureFailedException named = assertThrows(CaptureFailedException.class,
                    () -> CaptureReplay.run(namingFails, OutputStream.nullOutputStream()));
            assertTrue(named.getMessage().contains("the name stage fails midway"), named.getMessage());
            IllegalStateException produced = assertThrows(IllegalStateException.class,
                    () -> CaptureReplay.run(producerFails, OutputStream.nullOutputStream()));
            assertTrue(produced.getMessage().contains("a producer fails midway"), produced.getMessage());
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (Thread.activeCount() > before && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(Thread.activeCount() <= before, "threads before " + before + ", after " + Thread.activeCount());
    }

    /** Host ops that fail on the producer's thread after three ops. */
    private static final class FailingOps implements org.flagos.trace.ingest.HostOpSource {
        @Override
        public long windowStartNs() {
            return 0;
        }

        @Override
        public long windowEndNs() {
            return Long.MAX_VALUE;
        }

        @Override
        public List<String> warnings() {
            return List.of();
        }

        @Override
        public org.flagos.trace.ingest.HostOpCursor cursor() {
            return new org.flagos.trace.ingest.HostOpCursor() {
                private int given;

                @Override
                public org.flagos.trace.ingest.HostOp next() {
                    if (given++ == 3) {
                        throw new IllegalStateException("a producer fails midway");
                    }
                    return new org.flagos.trace.ingest.HostOp("op", new org.flagos.trace.model.ExternalId(given), 1, given * 1_000L,
                            given * 1_000L + 10);
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
