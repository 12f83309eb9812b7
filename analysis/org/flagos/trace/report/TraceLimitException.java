package org.flagos.trace.report;

import java.io.IOException;

/** The trace goes past one of the summary's bounds; the message completes "PATH ...". */
final class TraceLimitException extends IOException {
    private static final long serialVersionUID = 1L;

    TraceLimitException(String message) {
        super(message);
    }
}
