package org.flagos.trace.capture;

/** A capture could not be turned into a trace; the message is one clear line. */
public final class CaptureFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CaptureFailedException(String message, Throwable cause) {
        super(message, cause);
    }

    public CaptureFailedException(String message) {
        super(message);
    }
}
