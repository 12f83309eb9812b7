package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Frames streamed from a file (plain or gzip) are the frames read from the same bytes in memory. */
class StreamedFramesTest {
    @TempDir
    Path dir;

    /** Every frame's vendor and payload, then the truncation and lost bytes, as one list. */
    private static List<Object> walk(FltrbufFrames frames) {
        List<Object> out = new ArrayList<>();
        try (frames) {
            while (frames.next()) {
                ByteBuffer p = frames.payload().duplicate();
                byte[] bytes = new byte[p.remaining()];
                p.get(bytes);
                out.add(frames.vendor());
                out.add(java.util.Arrays.toString(bytes));
            }
            out.add(frames.truncation());
            out.add(frames.lostBytes());
        }
        return out;
    }

    private Path plain(byte[] bytes) throws IOException {
        Path p = Files.createTempFile(dir, "c", ".fltrbuf");
        Files.write(p, bytes);
        return p;
    }

    private Path gzip(byte[] bytes) throws IOException {
        Path p = Files.createTempFile(dir, "c", ".fltrbuf.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(p))) {
            out.write(bytes);
        }
        return p;
    }

    /** Hostile shapes: cut payloads, cut headers, reserved words, impossible lengths, random tails. */
    private static List<byte[]> shapes() {
        List<byte[]> shapes = new ArrayList<>();
        Random random = new Random(3);
        for (int i = 0; i < 200; i++) {
            ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
            b.put("FLTRBUF1".getBytes(StandardCharsets.US_ASCII));
            int frames = random.nextInt(4);
            for (int f = 0; f < frames && b.remaining() > 200; f++) {
                int length = random.nextInt(100);
                b.putInt(1 + random.nextInt(2)).putInt(random.nextInt(20) == 0 ? 9 : 0);
                long declared = switch (random.nextInt(8)) {
                    case 0 -> -1L;
                    case 1 -> length + 1 + random.nextInt(1000);
                    default -> length;
                };
                b.putLong(declared);
                byte[] payload = new byte[length];
                random.nextBytes(payload);
                b.put(payload);
            }
            int cut = b.position() - (random.nextInt(3) == 0 ? random.nextInt(Math.max(1, b.position() - 8)) : 0);
            byte[] bytes = new byte[Math.max(8, cut)];
            b.flip();
            b.get(bytes);
            shapes.add(bytes);
        }
        return shapes;
    }

    @Test
    void aStreamedFileGivesTheSameFramesAndTheSameTruncationAsBytesInMemory() throws IOException {
        for (byte[] shape : shapes()) {
            List<Object> inMemory = walk(new FltrbufFrames(ByteBuffer.wrap(shape), "x"));
            assertEquals(inMemory, walk(FltrbufFrames.open(plain(shape))), "plain file");
            List<Object> gz = walk(FltrbufFrames.open(gzip(shape)));
            assertEquals(inMemory.subList(0, inMemory.size() - 2), gz.subList(0, gz.size() - 2), "gzip: the same frames");
            assertEquals(inMemory.get(inMemory.size() - 2) == null, gz.get(gz.size() - 2) == null, "gzip: cut short alike");
        }
    }

    @Test
    void aGzipCaptureIsStreamedNotInflatedToATemporaryFile() throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        long before;
        try (var s = Files.list(tmp)) {
            before = s.filter(p -> p.getFileName().toString().startsWith("flagtrace-inflated-")).count();
        }
        List<Object> streamed = walk(FltrbufFrames.open(Captures.capture("h200-tiny30k")));
        try (var s = Files.list(tmp)) {
            assertEquals(before, s.filter(p -> p.getFileName().toString().startsWith("flagtrace-inflated-")).count());
        }
        assertEquals(walk(new FltrbufFrames(CaptureBytes.load(Captures.capture("h200-tiny30k")), "x")), streamed);
    }

    @Test
    void aCorruptGzipStreamIsOneClearError() throws IOException {
        byte[] gz = Files.readAllBytes(Captures.capture("h200-tiny30k"));
        Path cut = dir.resolve("cut.fltrbuf.gz");
        Files.write(cut, java.util.Arrays.copyOf(gz, gz.length / 2));
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> walk(FltrbufFrames.open(cut)));
        assertTrue(e.getMessage().contains("not a valid gzip stream"), e.getMessage());
        Path notGzip = dir.resolve("plain.fltrbuf.gz");
        Files.write(notGzip, "FLTRBUF1".getBytes(StandardCharsets.US_ASCII));
        e = assertThrows(CaptureFormatException.class, () -> FltrbufFrames.open(notGzip));
        assertTrue(e.getMessage().contains("not a valid gzip stream"), e.getMessage());
    }

    @Test
    void aStreamedPayloadIsReusedSoCallersCopyWhatTheyKeep() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 + 2 * (16 + 8)).order(ByteOrder.LITTLE_ENDIAN);
        b.put("FLTRBUF1".getBytes(StandardCharsets.US_ASCII));
        b.putInt(1).putInt(0).putLong(8).putLong(11).putInt(1).putInt(0).putLong(8).putLong(22).flip();
        try (FltrbufFrames frames = FltrbufFrames.open(plain(java.util.Arrays.copyOf(b.array(), b.limit())))) {
            assertTrue(frames.next());
            ByteBuffer first = frames.payload();
            assertEquals(11, first.getLong(first.position()));
            assertTrue(frames.next());
            assertEquals(22, frames.payload().getLong(frames.payload().position()));
            assertArrayEquals(new long[] {56}, new long[] {frames.bytesRead()});
        }
    }
}
