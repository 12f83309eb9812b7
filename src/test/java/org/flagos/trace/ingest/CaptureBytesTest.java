package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CaptureBytes}: a bundled capture is its file's bytes, little-endian, whether plain or gzip-compressed (the
 * 30k-kernel capture is inflated into a temporary file that is gone once mapped), and each way of failing is one line
 * naming the file: missing, a folder, a truncated or a not-gzip {@code .gz}.
 */
class CaptureBytesTest {
    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void aPlainCaptureIsItsFilesBytesLittleEndian() throws Exception {
        Path capture = Captures.capture("h200-app-tiny2k");
        ByteBuffer b = CaptureBytes.load(capture);
        assertEquals(ByteOrder.LITTLE_ENDIAN, b.order());
        assertTrue(b.isReadOnly());
        assertArrayEquals(Files.readAllBytes(capture), bytes(b));
    }

    @Test
    void aGzippedCaptureIsInflatedAndItsTemporaryFileIsGone() throws Exception {
        Path capture = Captures.capture("h200-tiny30k");
        assertTrue(capture.toString().endsWith(".fltrbuf.gz"));
        byte[] inflated;
        try (InputStream in = Captures.open(capture)) {
            inflated = in.readAllBytes();
        }
        List<Path> before = inflatedFiles();
        ByteBuffer b = CaptureBytes.load(capture);
        assertEquals(ByteOrder.LITTLE_ENDIAN, b.order());
        assertEquals(inflated.length, b.remaining());
        assertTrue(Arrays.equals(inflated, bytes(b)));
        assertEquals(before, inflatedFiles(), "the temporary file is deleted once mapped");
    }

    @Test
    void eachFailureIsOneLineNamingTheFile(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("none.fltrbuf");
        assertEquals(missing + ": no such file", assertThrows(CaptureFormatException.class, () -> CaptureBytes.load(missing)).getMessage());
        assertEquals(dir + ": is a directory, not a capture file; give the file itself",
                assertThrows(CaptureFormatException.class, () -> CaptureBytes.load(dir)).getMessage());
        Path notGzip = dir.resolve("plain.fltrbuf.gz");
        Files.write(notGzip, new byte[] {1, 2, 3, 4});
        assertEquals(notGzip + ": not a valid gzip stream (Not in GZIP format)",
                assertThrows(CaptureFormatException.class, () -> CaptureBytes.load(notGzip)).getMessage());
        Path cut = dir.resolve("cut.fltrbuf.gz");
        byte[] whole = Files.readAllBytes(Captures.capture("h200-tiny30k"));
        Files.write(cut, Arrays.copyOf(whole, whole.length / 2));
        assertEquals(cut + ": not a valid gzip stream (Unexpected end of ZLIB input stream)",
                assertThrows(CaptureFormatException.class, () -> CaptureBytes.load(cut)).getMessage());
    }

    private static List<Path> inflatedFiles() throws Exception {
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(p -> p.getFileName().toString().startsWith("flagtrace-inflated-")).sorted().toList();
        }
    }
}
