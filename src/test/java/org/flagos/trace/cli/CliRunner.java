package org.flagos.trace.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the CLI in-process and keeps what its last run printed. */
public final class CliRunner {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private RecordCommand.Live live;

    /** This runner, {@code record} taking its tracer and workloads from {@code live} (tests without a GPU). */
    CliRunner withLive(RecordCommand.Live live) {
        this.live = live;
        return this;
    }

    /** Runs {@code flagtrace args...}; returns the exit code. Output of earlier runs is dropped. */
    public int run(String... args) {
        out.reset();
        err.reset();
        FlagtraceCli cli = new FlagtraceCli(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return (live == null ? cli : cli.withLive(live)).run(args);
    }

    public String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    public String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
