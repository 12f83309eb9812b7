package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The progress bar: drawn on a terminal for a long replay, never into a pipe or a log, and its thread ends with it. */
class ReplayProgressTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int replay(boolean terminal, long minBytes) {
        CliContext context = new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), terminal, minBytes, 100);
        return new FlagtraceCli(context).run("replay", Captures.capture("h200-mt4").toString(),
                "--ops", Captures.ops("h200-mt4").toString(), "-o", dir.resolve("t.json").toString());
    }

    private static Set<Thread> threads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).collect(Collectors.toSet());
    }

    @Test
    void onlyOnATerminalAndOnlyForLongCaptures() {
        assertFalse(ReplayProgress.wanted(false, Long.MAX_VALUE, 0), "a pipe, a file, CI: never");
        assertFalse(ReplayProgress.wanted(true, CliContext.PROGRESS_MIN_BYTES - 1, CliContext.PROGRESS_MIN_BYTES));
        assertTrue(ReplayProgress.wanted(true, CliContext.PROGRESS_MIN_BYTES, CliContext.PROGRESS_MIN_BYTES));
    }

    @Test
    void withoutATerminalNothingButTheResultIsPrinted() {
        assertEquals(0, replay(false, 0));
        // stderr holds only the line naming the files read beside the capture: no bar
        assertEquals("flagtrace: read beside the capture: h200-mt4.names.tsv (kernel names)",
                err.toString(StandardCharsets.UTF_8).strip());
        assertFalse(out.toString(StandardCharsets.UTF_8).contains("replay "), "no bar on stdout either");
    }

    @Test
    void onATerminalTheBarIsDrawnOnStderrAndItsThreadEnds() throws InterruptedException {
        Set<Thread> before = threads();
        assertEquals(0, replay(true, 0));
        String bar = err.toString(StandardCharsets.UTF_8);
        assertTrue(bar.contains("replay") && bar.contains("MiB"), bar);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("wrote "), "the result still goes to stdout");
        long deadline = System.nanoTime() + 5_000_000_000L;
        Set<Thread> left = threads();
        while (System.nanoTime() < deadline) {
            left = threads();
            left.removeAll(before);
            if (left.isEmpty()) {
                break;
            }
            Thread.sleep(20);
        }
        assertTrue(left.isEmpty(), "threads left behind: " + left);
    }
}
