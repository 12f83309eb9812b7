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
import java.util.zip.GZIPInputStream;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gzip stream of {@code .gz} outputs: the JDK's at a chosen level, one valid gzip member whatever
 * the sizes and writes, the same bytes whenever the writers flush, read by gzip and Python, and a
 * failure under it ends a replay in one line with no {@code .partial} file (through {@link AtomicOutput}).
 */
class LevelGzipOutputStreamTest {
    @TempDir
    Path dir;

    /** Text like a trace's: repetitive JSON with numbers that change. */
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

    /** {@code data} compressed at {@code level}, written {@code chunk} bytes at a time, flushed after every third write when asked. */
    private static byte[] compress(byte[] data, int level, int chunk, boolean flushes) throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (LevelGzipOutputStream gz = new LevelGzipOutputStream(sink, level)) {
            for (int at = 0; at < data.length; at += chunk) {
                gz.write(data, at, Math.min(chunk, data.length - at));
                if (flushes && at % (3 * chunk) == 0) {
                    gz.flush(); // the trace writers flush after every batch
                }
            }
        }
        return sink.toByteArray();
    }

    private static byte[] compress(byte[] data, int level, int chunk) throws IOException {
        return compress(data, level, chunk, true);
    }

    private static byte[] gunzip(byte[] gz) throws IOException {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            return in.readAllBytes();
        }
    }

    @Test
    void everySizeRoundTripsAsOneGzipMemberThatDoesNotDependOnFlushes() throws IOException {
        for (int length : new int[] {0, 1, 65_535, 65_536, 65_537, 7 * 65_536 + 12_345}) {
            byte[] data = traceLike(length, length);
            byte[] once = compress(data, 1, 1 << 16, false);
            for (int chunk : new int[] {1, 1000, 70_000}) {
                if (chunk == 1 && length > 200_000) {
                    continue; // byte at a time is slow; the small sizes cover it
                }
                byte[] gz = compress(data, 1, chunk);
                assertArrayEquals(data, gunzip(gz), "length " + length + ", chunk " + chunk);
                assertEquals(0x1f, gz[0] & 0xff);
                assertEquals(0x8b, gz[1] & 0xff);
                assertArrayEquals(once, gz, "the same bytes compress to the same file, whatever the writes and flushes");
            }
        }
    }

    /** The level is the one asked for: level 1 as a level-1 deflater makes it, larger than level 9's; 0 and 10 refused. */
    @Test
    void deflatesAtTheLevelAsked() throws IOException {
        byte[] data = traceLike(1 << 20, 7);
        byte[] fast = compress(data, 1, 1 << 16, false);
        java.util.zip.Deflater deflater = new java.util.zip.Deflater(1, true);
        deflater.setInput(data);
        deflater.finish();
        byte[] raw = new byte[data.length];
        int rawLength = deflater.deflate(raw);
        deflater.end();
        assertEquals(10 + rawLength + 8, fast.length, "header, one level-1 deflate stream, CRC and length");
        assertArrayEquals(java.util.Arrays.copyOf(raw, rawLength), java.util.Arrays.copyOfRange(fast, 10, 10 + rawLength));
        byte[] small = compress(data, 9, 1 << 16, false);
        assertTrue(small.length < fast.length, "level 9 " + small.length + " against level 1 " + fast.length);
        assertArrayEquals(data, gunzip(small));
        for (int level : new int[] {0, 10}) {
            assertThrows(IllegalArgumentException.class, () -> new LevelGzipOutputStream(OutputStream.nullOutputStream(), level));
        }
    }

    @Test
    void gzipAndPythonReadIt() throws Exception {
        byte[] data = traceLike(3 * (1 << 18) + 99, 11);
        Path file = dir.resolve("t.json.gz");
        Files.write(file, compress(data, 1, 1 << 16));
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
                    CaptureReplay.run(request(capture), format.stream(new Tee(p.stream(), g.stream())));
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
    }

    private static CaptureReplay.Request request(String name) {
        return CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(name)), name)
                .ops(Files.exists(Captures.ops(name)) ? org.flagos.trace.ingest.OpsJsonlReader.read(Captures.ops(name)) : null)
                .kernelNames(org.flagos.trace.ingest.KernelNameFile.read(Captures.names(name)))
                .devices(org.flagos.trace.cli.TestDevices.h200()).ringSize(1 << 12).build();
    }

    /** Takes {@code room} bytes, then fails every write as a full disk does. */
    private static final class FullAfter extends java.io.FilterOutputStream {
        private long room;

        FullAfter(OutputStream out, long room) {
            super(out);
            this.room = room;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (len > room) {
                throw new IOException("No space left on device");
            }
            room -= len;
            out.write(b, off, len);
        }
    }

    @Test
    void aReplayWhoseCompressedOutputFailsEndsWithOneLineAndNoPartialFile() throws Exception {
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture("h200-app-tiny2k")), "tiny2k")
                .traceName("t").ringSize(1 << 10).build();
        Path target = dir.resolve("t.json.gz");
        for (int i = 0; i < 3; i++) {
            CaptureFailedException e = assertThrows(CaptureFailedException.class, () -> {
                try (AtomicOutput out = new AtomicOutput(target, file -> new LevelGzipOutputStream(new FullAfter(file, 5_000), 1))) {
                    CaptureReplay.run(request, out.stream());
                    out.commit();
                }
            });
            assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
            assertTrue(e.getMessage().contains("No space left on device"), e.getMessage());
        }
        try (var left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "neither the trace nor a .partial file");
        }
    }
}
