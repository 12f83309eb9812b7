package org.flagos.trace.cli;

import java.io.PrintStream;

/**
 * Where the commands print, and whether a person is watching: the progress bar is drawn only on a
 * terminal ({@link System#console()} present), never into a pipe, a file or a CI log.
 *
 * @param progressMinBytes the smallest capture a bar is drawn for (a short replay needs none)
 * @param progressWidth    the bar's width in columns, or -1 to ask the terminal
 */
record CliContext(PrintStream out, PrintStream err, boolean terminal, long progressMinBytes, int progressWidth) {
    /** Captures from this size on take a second or more to replay cold. */
    static final long PROGRESS_MIN_BYTES = 32L << 20;

    static CliContext of(PrintStream out, PrintStream err) {
        return new CliContext(out, err, System.console() != null, PROGRESS_MIN_BYTES, -1);
    }
}
