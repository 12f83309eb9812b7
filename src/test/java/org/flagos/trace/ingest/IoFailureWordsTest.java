package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.zip.ZipException;
import org.junit.jupiter.api.Test;

/** The words of a failed read or write, and where the two differ. */
class IoFailureWordsTest {
    @Test
    void readingAndWritingShareTheirWordsButForAMissingPathAndTheSystemsReason() {
        assertEquals("permission denied", IoFailureWords.reading(new AccessDeniedException("f")));
        assertEquals("permission denied", IoFailureWords.writing(new AccessDeniedException("f")));
        assertEquals("no such file", IoFailureWords.reading(new NoSuchFileException("f")));
        assertEquals("no such file or directory", IoFailureWords.writing(new NoSuchFileException("f")));
        assertEquals("a path component is not a directory", IoFailureWords.reading(new NotDirectoryException("f")));
        assertEquals("a path component is not a directory", IoFailureWords.writing(new NotDirectoryException("f")));
        FileSystemException full = new FileSystemException("f", null, "No space left on device");
        assertEquals("no space left on device", IoFailureWords.reading(full));
        assertEquals("No space left on device", IoFailureWords.writing(full));
        assertEquals("an input/output error", IoFailureWords.reading(new IOException()));
        assertEquals("an input/output error", IoFailureWords.writing(new IOException(" ")));
        assertEquals("disk gone", IoFailureWords.writing(new IOException("disk gone")));
    }

    @Test
    void onlyAWriterNamesAFileInTheWayOfADirectory() {
        assertEquals("a file is in the way of a directory it needs",
                IoFailureWords.writing(new FileAlreadyExistsException("d")));
        assertEquals("f", IoFailureWords.reading(new FileAlreadyExistsException("f")));
        assertEquals("f", InputFiles.reason(new FileAlreadyExistsException("f")));
    }

    @Test
    void aFailedReadOfAMaybeGzippedFileIsOneLineNamingTheFile() {
        Path p = Path.of("x.gz");
        assertEquals("x.gz: no such file", CaptureFormatException.reading(p, new NoSuchFileException("x.gz")).getMessage());
        assertEquals("x.gz: not a valid gzip stream (Not in GZIP format)",
                CaptureFormatException.reading(p, new ZipException("Not in GZIP format")).getMessage());
        assertEquals("x.gz: not a valid gzip stream (Unexpected end of ZLIB input stream)",
                CaptureFormatException.reading(p, new EOFException("Unexpected end of ZLIB input stream")).getMessage());
        assertEquals("x.gz: cannot read (permission denied)",
                CaptureFormatException.reading(p, new AccessDeniedException("x.gz")).getMessage());
    }
}
