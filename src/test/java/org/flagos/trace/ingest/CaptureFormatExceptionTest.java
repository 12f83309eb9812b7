package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CaptureFormatException#reading}: the one line a failed read of a maybe-gzipped file becomes, for
 * the failures reading real files gives (a missing file, a gzipped capture cut short, a corrupt one, a
 * directory), and that the cause is kept where it says more than the line.
 */
class CaptureFormatExceptionTest {
    @TempDir
    Path dir;

    private static IOException readingFails(Path file) {
        return assertThrows(IOException.class, () -> {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
                in.readAllBytes();
            }
        });
    }

    @Test
    void aMissingFileIsSaidInFourWordsWithoutItsCause() {
        Path missing = dir.resolve("gone.fltrbuf.gz");
        CaptureFormatException e = CaptureFormatException.reading(missing, readingFails(missing));
        assertEquals(missing + ": no such file", e.getMessage());
        assertNull(e.getCause());
    }

    @Test
    void aGzippedCaptureCutShortIsNotAValidGzipStream() throws IOException {
        byte[] whole = Files.readAllBytes(Captures.dir().resolve("h200-tiny30k.fltrbuf.gz"));
        Path cut = Files.write(dir.resolve("cut.fltrbuf.gz"), Arrays.copyOf(whole, whole.length / 2));
        IOException failure = readingFails(cut);
        CaptureFormatException e = CaptureFormatException.reading("cut.fltrbuf.gz", failure);
        assertEquals("cut.fltrbuf.gz: not a valid gzip stream (Unexpected end of ZLIB input stream)", e.getMessage());
        assertSame(failure, e.getCause());
    }

    @Test
    void aFileThatIsNoGzipIsNotAValidGzipStream() throws IOException {
        Path names = Captures.names("h200-tiny30k");
        IOException failure = readingFails(names);
        CaptureFormatException e = CaptureFormatException.reading(names.getFileName(), failure);
        assertEquals("h200-tiny30k.names.tsv: not a valid gzip stream (Not in GZIP format)", e.getMessage());
        assertSame(failure, e.getCause());
    }

    @Test
    void anyOtherFailureIsPutInWordsAndKeptAsTheCause() {
        IOException directory = assertThrows(IOException.class, () -> {
            try (InputStream in = Files.newInputStream(dir)) {
                in.read();
            }
        });
        CaptureFormatException e = CaptureFormatException.reading("captures/", directory);
        assertEquals("captures/: cannot read (Is a directory)", e.getMessage());
        assertSame(directory, e.getCause());
        AccessDeniedException denied = new AccessDeniedException("/root/x.fltrbuf");
        assertEquals("x.fltrbuf: cannot read (permission denied)", CaptureFormatException.reading("x.fltrbuf", denied).getMessage());
    }
}
