package org.flagos.trace.tracefile;

import java.io.IOException;

/** The input is not a readable torch-compatible trace; the message says why in one line. */
public final class TraceFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    public TraceFormatException(String message) {
        super(message);
    }

    public TraceFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
