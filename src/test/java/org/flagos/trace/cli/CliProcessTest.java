package org.flagos.trace.cli;

import org.flagos.trace.testing.ChildJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI as a user runs it: its own JVM, its real main and exit status (the first reports). */
class CliProcessTest {
    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
    }

    private Run flagtrace(String... args) throws IOException, InterruptedException {
        List<String> command = ChildJvm.command();
        command.addAll(List.of("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                FlagtraceCli.class.getName()));
        command.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the CLI ends");
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void replayHelpExits0AndVersionPrintsIt() throws Exception {
        Run help = flagtrace("replay", "--help");
        assertEquals(0, help.code(), help.err());
        assertTrue(help.out().startsWith("Turn a capture") && help.out().contains("Usage: ./flagtrace replay"), help.out());
        Run version = flagtrace("--version");
        assertEquals(0, version.code());
        assertTrue(version.out().startsWith("flagtrace "), version.out());
    }

    @Test
    void recordWithoutAGpuFailsOnceInOneLineAndWritesNothing() throws Exception {
        Run run = flagtrace("record", "--workload", "parity", "-o", "t.json", "--summary", "s.json");
        assumeFalse(run.out().startsWith("flagtrace record: tracer"), "this machine has a usable GPU: " + run.out());
        assertEquals(1, run.code(), run.err());
        assertEquals("", run.out());
        assertEquals(1, run.err().strip().lines().count(), "one line: " + run.err());
        String line = run.err().strip();
        assertTrue(line.startsWith("flagtrace: error: record runs its workload on a GPU"), line);
        assertTrue(line.contains("./flagtrace demo"), "says what to do instead: " + line);
        assertFalse(line.contains("CPU-side profiling continues"), line);
        int open = line.indexOf("available here (");
        String reason = line.substring(open + "available here (".length(), line.lastIndexOf("); without a GPU"));
        assertEquals(line.indexOf(reason), line.lastIndexOf(reason), "the reason once: " + line);
        assertFalse(Files.exists(dir.resolve("t.json")) || Files.exists(dir.resolve("s.json")));
        Run unknown = flagtrace("record", "--workload", "nope", "-o", "t.json");
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("no workload 'nope'; built in: exchange, kinds, parity;"), unknown.err());
    }
}
