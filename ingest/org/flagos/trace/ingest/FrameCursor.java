package org.flagos.trace.ingest;

import java.nio.ByteBuffer;

/**
 * A capture's frames one at a time, in the order they were captured: a {@code .fltrbuf} file ({@link FltrbufFrames}) or a
 * capture still arriving ({@code flagtrace run}'s stream, replayed as it comes). A payload is valid until the next
 * {@link #next()}.
 */
public interface FrameCursor {
    /** Moves to the next frame; false after the last. */
    boolean next();

    /** The current frame's vendor id (1 = CUPTI, ...). */
    int vendor();

    /** The current frame's payload. */
    ByteBuffer payload();

    /** Bytes of the capture walked so far, magic and frame headers included. */
    long bytesRead();

    /** Why the frames stopped early, or null when they reached their end cleanly. */
    String truncation();
}
