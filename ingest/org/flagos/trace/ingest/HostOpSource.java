package org.flagos.trace.ingest;

import java.util.List;

/**
 * Host ops to replay: the capture window, what reading them found questionable, and the ops
 * themselves, read afresh by each {@link #cursor()} in the order they were recorded (an ops
 * file's line order: an op's line is written when it ends, so a parent follows its children).
 * An in-memory list ({@link HostOps}) or a file streamed line by line ({@link OpsJsonlFile}).
 */
public interface HostOpSource {
    /** The warning for a window that holds no time (its start equals its end). */
    String EMPTY_WINDOW = "the capture window is empty (window_start equals window_end)";

    long windowStartNs();

    long windowEndNs();

    /** Lines for the trace's notes and the CLI; never fatal. */
    List<String> warnings();

    /** The ops from the first, one at a time. */
    HostOpCursor cursor();
}
