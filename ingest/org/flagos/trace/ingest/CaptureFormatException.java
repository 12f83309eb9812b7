package org.flagos.trace.ingest;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.zip.ZipException;

/** A capture or ops file that cannot be read as its format says; the message is one clear line. */
public final class CaptureFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CaptureFormatException(String message) {
        super(message);
    }

    public CaptureFormatException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The one-line error for a failed read of a file that may be gzipped: {@code source} is
     * missing, its gzip stream is corrupt or cut short, or reading failed for a reason
     * {@link InputFiles#reason} puts in words.
     */
    public static CaptureFormatException reading(Object source, IOException e) {
        if (e instanceof NoSuchFileException) {
            return new CaptureFormatException(source + ": no such file");
        }
        if (e instanceof ZipException || e instanceof EOFException) {
            return new CaptureFormatException(source + ": not a valid gzip stream (" + e.getMessage() + ")", e);
        }
        return new CaptureFormatException(source + ": cannot read (" + InputFiles.reason(e) + ")", e);
    }
}
