package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.flagos.trace.journal.JournalChild;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recorder journaling in a child JVM, killed with SIGKILL: the export of its journal says the
 * capture was interrupted (exit 3), and the trace output it had open leaves no {@code .partial}
 * file once the next run writes that output.
 */
class JournalKillCliTest {
    private final CliRunner cli = new CliRunner();

    @TempDir
    Path tmp;

    @Test
    void theExportOfAKilledRecordersJournalSaysTheCaptureWasInterrupted() throws Exception {
        Path journal = tmp.resolve("journal");
        Process child = JournalChild.start("slow", "h200-app-tiny2k", journal.toString());
        killAfter(child, "appended 300");

        Path out = tmp.resolve("killed.json");
        assertEquals(3, cli.run("replay", journal.toString(), "-o", out.toString()), cli.stdout() + cli.stderr());
        assertTrue(cli.stderr().contains("interrupted"), cli.stderr());
        JournalCliRefusalTest.assertNoJava(cli.stderr());
        assertTrue(Files.readString(out).contains("interrupted"), "the trace's notes say it too");
    }

    @Test
    void aKilledRecordersPartialTraceIsRemovedByTheNextRunThatWritesThatOutput() throws Exception {
        Path trace = Files.createDirectories(tmp.resolve("out")).resolve("trace.json"); // outputs create no directory
        Process child = JournalChild.start("partial", "h200-app", tmp.resolve("journal").toString(), trace.toString());
        killAfter(child, "ready");
        assertEquals(1, partials(trace.getParent()).size(), "the kill left the recorder's temporary behind");

        assertEquals(0, cli.run("replay", Captures.capture("h200-app").toString(), "-o", trace.toString()), cli.stderr());

        assertEquals(List.of(), partials(trace.getParent()), "no .partial survives the next run");
        assertTrue(Files.size(trace) > 0);
    }

    private static List<Path> partials(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".partial")).toList();
        }
    }

    /** Reads the child's output until {@code line}, then SIGKILLs it (no shutdown hook, no close). */
    private static void killAfter(Process child, String line) throws Exception {
        boolean seen = false;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l; (l = lines.readLine()) != null; ) {
                if (l.equals(line)) {
                    seen = true;
                    child.destroyForcibly();
                    break;
                }
            }
        }
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertTrue(seen, "the child got to '" + line + "' before it was killed");
        assertEquals(137, child.exitValue(), "killed by SIGKILL");
    }

}
