package org.flagos.trace.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the CLI in-process and keeps what its last run printed. */
public final class CliRunner {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** Runs {@code flagtrace args...}; returns the exit code. Output of earlier runs is dropped. */
    public int run(String... args) {
        out.reset();
        err.reset();
        return new FlagtraceCli(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
    }

    public String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    public String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
