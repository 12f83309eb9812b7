package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A program {@code run} cannot start, read from the JDK's own failures to start one: the words after
 * the errno, and the exit code the shell gives the same command (127 not found, 126 not executable),
 * checked against {@code sh -c} here; and the run folder removed only when nothing but the injected
 * libraries' copy is in it.
 */
class CommandNotStartedTest {
    @TempDir
    Path dir;

    private static IOException startFailure(String program) {
        return assertThrows(IOException.class, () -> new ProcessBuilder(program).start().destroyForcibly(), program);
    }

    private static int shell(String program) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", "'" + program + "'").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return p.exitValue();
    }

    @Test
    void theExitCodeIsTheShellsForTheSameProgram() throws Exception {
        Path missing = dir.resolve("no-such-program");
        IOException e = startFailure(missing.toString());
        assertEquals(CommandNotStarted.NOT_FOUND, CommandNotStarted.exitCode(e), e.getMessage());
        assertEquals("no such file or directory", CommandNotStarted.why(e));
        assertEquals(shell(missing.toString()), CommandNotStarted.exitCode(e));

        e = startFailure("flagtrace-test-no-such-program-on-path");
        assertEquals(CommandNotStarted.NOT_FOUND, CommandNotStarted.exitCode(e), e.getMessage());

        Path plain = Files.writeString(dir.resolve("not-executable"), "echo hi\n");
        Files.setPosixFilePermissions(plain, PosixFilePermissions.fromString("rw-r--r--"));
        e = startFailure(plain.toString());
        assertEquals(CommandNotStarted.NOT_EXECUTABLE, CommandNotStarted.exitCode(e), e.getMessage());
        assertEquals("permission denied", CommandNotStarted.why(e));
        assertEquals(shell(plain.toString()), CommandNotStarted.exitCode(e));

        Path notADir = plain.resolve("x"); // ENOTDIR: not found, as sh (dash) says
        e = startFailure(notADir.toString());
        assertEquals(CommandNotStarted.NOT_FOUND, CommandNotStarted.exitCode(e), e.getMessage());
        assertEquals("not a directory", CommandNotStarted.why(e));
    }

    @Test
    void aFailureWithoutAnErrnoIsExit1InPlainWords() {
        for (IOException e : List.of(new IOException(), new IOException("Cannot run program \"x\": no reason given"),
                new IOException("error=123456789, Far too large"), new IOException("error=5, Input/output error"))) {
            assertEquals(ExitCodes.FAILED, CommandNotStarted.exitCode(e), String.valueOf(e.getMessage()));
        }
        assertEquals("it could not be started", CommandNotStarted.why(new IOException()));
        assertEquals("it could not be started", CommandNotStarted.why(new IOException("error=123456789, Far too large")));
        assertEquals("input/output error", CommandNotStarted.why(new IOException("Cannot run program \"x\": error=5, Input/output error")));
        assertEquals(CommandNotStarted.NOT_EXECUTABLE,
                CommandNotStarted.exitCode(new IOException("Cannot run program \"x\": error=8, Exec format error")));
    }

    @Test
    void onlyARunFolderHoldingNothingButTheLibrariesIsRemoved() throws IOException {
        Path empty = Files.createDirectory(dir.resolve("empty-run"));
        Path libs = Files.createDirectories(empty.resolve(InjectedRun.LIBRARY_FOLDER).resolve("sub"));
        Files.writeString(libs.resolve("libflagtrace-inject.so"), "x");
        CommandNotStarted.removeEmptyRun(empty);
        assertFalse(Files.exists(empty), "nothing of the run is left");

        Path used = Files.createDirectory(dir.resolve("used-run"));
        Files.createDirectories(used.resolve(InjectedRun.LIBRARY_FOLDER));
        Files.writeString(used.resolve("flagtrace-1-w0.json"), "{}");
        CommandNotStarted.removeEmptyRun(used);
        assertTrue(Files.isRegularFile(used.resolve("flagtrace-1-w0.json")), "a folder with anything else is the user's");
        assertTrue(Files.isDirectory(used.resolve(InjectedRun.LIBRARY_FOLDER)), "and is left whole");

        Path bare = Files.createDirectory(dir.resolve("bare"));
        CommandNotStarted.removeEmptyRun(bare);
        assertFalse(Files.exists(bare), "an empty folder goes too");
    }
}
