package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
