package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.zip.CRC32;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parallel gzip stream: one valid gzip member whatever the sizes and the number of workers, the
 * same bytes every time, and a failure in a worker ends the output in words with no worker left and
 * (through {@link AtomicOutput}) no {@code .partial} file.
 */
class ParallelGzipOutputStreamTest {
    @TempDir
    Path dir;

    private static final int SMALL_BLOCK = 1 << 15;

    /** Text like a trace's: repetitive JSON with numbers that change, so blocks compress and refer back. */
    private static byte[] traceLike(int length, long seed) {
        Random random = new Random(seed);
        StringBuilder s = new StringBuilder(length + 200);
        while (s.length() < length) {
            s.append("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k").append(random.nextInt(50)).append("\",\"ts\":")
                    .append(random.nextLong() & 0xffffffffL).append(",\"dur\":").append(random.nextInt(1000)).append("},\n");
        }
        byte[] all = s.toString().getBytes(StandardCharsets.UTF_8);
        return java.util.Arrays.copyOf(all, length);
    }

    private static byte[] compress(byte[] data, int blockSize, int workers, int level, int chunk) throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (ParallelGzipOutputStream gz = new ParallelGzipOutputStream(sink, Path.of("t.json.gz"), level, blockSize, workers,
                ParallelGzipOutputStream.DEFLATE)) {
            for (int at = 0; at < data.length; at += chunk) {
                gz.write(data, at, Math.min(chunk, data.length - at));
                if (at % (3 * chunk) == 0) {
                    gz.flush(); // the trace writers flush after every batch: no block is cut by it
                }
            }
        }
        return sink.toByteArray();
    }

    private static byte[] gunzip(byte[] gz) throws IOException {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            return in.readAllBytes();
        }
    }

    private static Set<Thread> compressors() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("flagtrace-gzip-")).collect(Collectors.toSet());
    }

    @Test
    void everySizeRoundTripsAsOneGzipMemberThatDoesNotDependOnTiming() throws IOException {
        for (int length : new int[] {0, 1, SMALL_BLOCK - 1, SMALL_BLOCK, SMALL_BLOCK + 1, 7 * SMALL_BLOCK + 12_345}) {
            byte[] data = traceLike(length, length);
            byte[] once = null;
            for (int workers : new int[] {1, 2, 3}) {
                for (int chunk : new int[] {1, 1000, 70_000}) {
                    if (chunk == 1 && length > 2 * SMALL_BLOCK) {
                        continue; // byte at a time is slow; the small sizes cover it
                    }
                    byte[] gz = compress(data, SMALL_BLOCK, workers, 1, chunk);
                    assertArrayEquals(data, gunzip(gz), "length " + length + ", workers " + workers + ", chunk " + chunk);
                    assertEquals(0x1f, gz[0] & 0xff);
                    assertEquals(0x8b, gz[1] & 0xff);
                    if (once == null) {
                        once = gz;
                    } else {
                        assertArrayEquals(once, gz, "the same bytes compress to the same file, whatever the threads and writes");
                    }
                }
            }
        }
        assertTrue(compressors().isEmpty(), "no compressing thread outlives its stream: " + compressors());
    }

    @Test
    void theBlocksShareTheirWindowSoTheRatioStaysNearOneDeflateStream() throws IOException {
        byte[] data = traceLike(4 << 20, 7);
        byte[] parallel = compress(data, ParallelGzipOutputStream.BLOCK, 2, 1, 1 << 16);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (var gz = new java.util.zip.GZIPOutputStream(sink) {
            {
                def.setLevel(1);
            }
        }) {
            gz.write(data);
        }
        int single = sink.size();
        assertTrue(parallel.length < single * 1.01, "parallel " + parallel.length + " against one stream's " + single);
    }

    @Test
    void theCrcOfAWholeIsCombinedFromItsParts() {
        byte[] data = traceLike(100_000, 3);
        for (int cut : new int[] {0, 1, 4_096, 65_537, 99_999, 100_000}) {
            CRC32 a = new CRC32();
            a.update(data, 0, cut);
            CRC32 b = new CRC32();
            b.update(data, cut, data.length - cut);
            CRC32 whole = new CRC32();
            whole.update(data);
            assertEquals(whole.getValue(), ParallelGzipOutputStream.crc32Combine(a.getValue(), b.getValue(), data.length - cut), "cut " + cut);
        }
    }

    @Test
    void gzipAndPythonReadIt() throws Exception {
        byte[] data = traceLike(3 * ParallelGzipOutputStream.BLOCK + 99, 11);
        Path file = dir.resolve("t.json.gz");
        Files.write(file, compress(data, ParallelGzipOutputStream.BLOCK, 2, 1, 1 << 16));
        Path plain = dir.resolve("t.json");
        Files.write(plain, data);
        assertEquals(0, run("gzip", "-t", file.toString()), "gzip -t");
        assertEquals(0, run("python3", "-c", "import gzip,sys; sys.exit(0 if gzip.open(sys.argv[1]).read() == open(sys.argv[2],'rb').read() else 1)",
                file.toString(), plain.toString()), "python's gzip module reads the same bytes");
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            org.junit.jupiter.api.Assumptions.abort(command[0] + " is not installed");
            throw e;
        }
        return p.waitFor();
    }

    /** Writes every byte to both streams. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int v) throws IOException {
            a.write(v);
            b.write(v);
        }

        @Override
        public void write(byte[] bytes, int off, int len) throws IOException {
            a.write(bytes, off, len);
            b.write(bytes, off, len);
        }

        @Override
        public void flush() throws IOException {
            a.flush();
            b.flush();
        }
    }

    /** One replay of every bundled capture, in both formats, into a plain file and a .gz at once: the same bytes. */
    @Test
    void theGzipOfEveryBundledTraceHoldsExactlyItsPlainBytes() throws Exception {
        for (String capture : List.of("h200-app", "h200-app-tiny2k", "h200-mt4", "h200-java-parity", "h200-tiny30k")) {
            for (TraceFormat format : List.of(TraceFormat.JSON, TraceFormat.PERFETTO)) { // Parquet compresses itself: no .parquet.gz
                String ext = format == TraceFormat.JSON ? ".json" : ".pftrace";
                Path plain = dir.resolve(capture + ext);
                Path gz = dir.resolve(capture + ext + ".gz");
                try (AtomicOutput p = new AtomicOutput(plain); AtomicOutput g = new AtomicOutput(gz)) {
                    CaptureReplay.run(request(capture).withFormat(format), new Tee(p.stream(), g.stream()));
                    p.commit();
                    g.commit();
                }
                byte[] expected = Files.readAllBytes(plain);
                try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
                    assertTrue(java.util.Arrays.equals(expected, in.readAllBytes()), capture + ext + ".gz");
                }
                assertTrue(Files.size(gz) < expected.length / 2, capture + ext + ": " + Files.size(gz) + " of " + expected.length);
            }
        }
        assertTrue(compressors().isEmpty(), "compressing threads left: " + compressors());
    }

    private static CaptureReplay.Request request(String name) {
        return CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(name)), name)
                .ops(Files.exists(Captures.ops(name)) ? org.flagos.trace.ingest.OpsJsonlReader.read(Captures.ops(name)) : null)
                .kernelNames(org.flagos.trace.ingest.KernelNameFile.read(Captures.names(name)))
                .devices(org.flagos.trace.cli.TestDevices.h200()).ringSize(1 << 12).build();
    }

    /** Fails in a worker on its {@code at}th block. */
    private static ParallelGzipOutputStream.Compressor failingAt(int at, Throwable failure) {
        AtomicInteger blocks = new AtomicInteger();
        return (block, deflater) -> {
            if (blocks.incrementAndGet() == at) {
                if (failure instanceof RuntimeException) {
                    throw (RuntimeException) failure;
                }
                throw (Error) failure;
            }
            ParallelGzipOutputStream.DEFLATE.compress(block, deflater);
        };
    }

    @Test
    void aFailureInAWorkerReachesTheWriterInWordsAndNoWorkerIsLeft() {
        for (Throwable failure : List.of(new IllegalStateException("injected in the compressor"), new OutOfMemoryError("Java heap space"))) {
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            ParallelGzipOutputStream gz = new ParallelGzipOutputStream(sink, Path.of("/x/t.json.gz"), 1, SMALL_BLOCK, 2, failingAt(3, failure));
            byte[] data = traceLike(20 * SMALL_BLOCK, 5);
            IOException e = assertThrows(IOException.class, () -> {
                try (gz) {
                    gz.write(data);
                }
            });
            assertTrue(e.getMessage().startsWith("cannot compress /x/t.json.gz: "), e.getMessage());
            assertTrue(e.getMessage().contains(failure.getMessage()), e.getMessage());
            assertFalse(e.getMessage().contains("Exception") || e.getMessage().contains("Error"), "words, not a class name: " + e.getMessage());
            assertThrows(IOException.class, () -> gz.write(1), "the stream stays broken");
            assertTrue(compressors().isEmpty(), "no compressing thread outlives the failure: " + compressors());
        }
    }

    @Test
    void aReplayWhoseCompressorFailsEndsWithOneLineNoThreadAndNoPartialFile() throws Exception {
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture("h200-app-tiny2k")), "tiny2k")
                .traceName("t").ringSize(1 << 10).build();
        CaptureReplay.run(request, OutputStream.nullOutputStream()); // class loading out of the thread count
        Thread.sleep(100);
        int before = Thread.activeCount();
        Path target = dir.resolve("t.json.gz");
        for (int i = 0; i < 5; i++) {
            CaptureFailedException e = assertThrows(CaptureFailedException.class, () -> {
                try (AtomicOutput out = new AtomicOutput(target, (file, named) ->
                        new ParallelGzipOutputStream(file, named, 1, SMALL_BLOCK, 2, failingAt(2, new IllegalStateException("injected"))))) {
                    CaptureReplay.run(request, out.stream());
                    out.commit();
                }
            });
            assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
            assertTrue(e.getMessage().contains("cannot compress " + target.toAbsolutePath() + ": injected"), e.getMessage());
        }
        try (var left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "neither the trace nor a .partial file");
        }
        assertTrue(compressors().isEmpty(), "compressing threads left: " + compressors());
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (Thread.activeCount() > before && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(Thread.activeCount() <= before, "threads before " + before + ", after " + Thread.activeCount());
    }
}
