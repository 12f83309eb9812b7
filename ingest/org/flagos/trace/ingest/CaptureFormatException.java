package org.flagos.trace.ingest;

/** A capture or ops file that cannot be read as its format says; the message is one clear line. */
public final class CaptureFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CaptureFormatException(String message) {
        super(message);
    }

    public CaptureFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
