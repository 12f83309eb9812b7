package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flagtrace report}: writes the page, refuses bad input with one line and no file. */
class ReportCommandTest {
    @TempDir
    Path dir;
    final CliRunner cli = new CliRunner();

    @Test
    void writesThePage() throws IOException {
        Path html = dir.resolve("r.html");
        assertEquals(0, cli.run("report", SummaryCommandTest.torchTrace().toString(), "-o", html.toString()));
        String page = Files.readString(html);
        assertTrue(page.startsWith("<!DOCTYPE html>"));
        assertTrue(page.contains("aten::mm"));
        assertTrue(cli.stdout().contains("wrote " + html));
    }

    @Test
    void badInputLeavesNoPage() throws IOException {
        Path html = dir.resolve("r.html");
        Path bad = Files.writeString(dir.resolve("x.json"), "{\"traceEvents\": 3}");
        assertEquals(1, cli.run("report", bad.toString(), "-o", html.toString()));
        assertEquals(1, cli.stderr().strip().split("\n").length, cli.stderr());
        assertFalse(Files.exists(html));
        assertEquals(2, cli.run("report", SummaryCommandTest.torchTrace().toString()));
        assertTrue(cli.stderr().contains("-o REPORT.html"));
    }

    /**
     * An output that cannot be written is refused before the trace is opened: the trace here is a FIFO
     * nobody writes to, so opening it first would block for ever (it did, before the outputs were
     * checked up front).
     */
    @Test
    void anUnwritableOutputIsRefusedBeforeTheTraceIsRead() throws Exception {
        Path fifo = dir.resolve("trace.json");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mk.waitFor());
        Path missing = dir.resolve("no-such-dir");
        try {
            for (String[] args : new String[][] {
                    {"report", fifo.toString(), "-o", missing.resolve("r.html").toString()},
                    {"summary", fifo.toString(), "--json", missing.resolve("s.json").toString()}}) {
                int code = Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60), () -> cli.run(args));
                assertEquals(1, code, cli.stderr());
                assertTrue(cli.stderr().contains(missing.toString()) && cli.stderr().contains("does not exist"), cli.stderr());
                assertEquals(1, cli.stderr().strip().split("\n").length, cli.stderr());
                assertFalse(Files.exists(missing));
            }
        } finally {
            Files.deleteIfExists(fifo);
        }
    }
}
