package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flagtrace start} and {@code stop}'s side of the control socket, against a real Unix socket
 * standing in for the run: the socket found in DIR, through DIR's pointer file, or through a traced
 * process's environment; the one line sent; the run's answer printed without its "ok"/"error" word,
 * on stdout with exit 0 or on stderr with exit 1; and one clear error for every way to miss the run.
 */
class RunControlTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final CliContext context = new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), false, CliContext.PROGRESS_MIN_BYTES, -1);
    private ServerSocketChannel server;
    private Process traced;

    @AfterEach
    void close() throws Exception {
        if (server != null) {
            server.close();
        }
        if (traced != null) {
            traced.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A run listening at {@code socket} that reads one line and answers {@code answer}; the line it read. */
    private CompletableFuture<String> run(Path socket, String answer) throws IOException {
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        return FakeRunSocket.answerOnce(server, answer);
    }

    @Test
    void anOkAnswerGoesToStdoutWithoutItsWord() throws Exception {
        CompletableFuture<String> sent = run(dir.resolve(InjectedRun.CONTROL_SOCKET), "ok armed 2 processes");
        assertEquals(ExitCodes.OK, RunControl.send("start", dir, null, context));
        assertEquals("start", sent.get(10, TimeUnit.SECONDS));
        assertEquals("flagtrace start: armed 2 processes\n", out.toString(StandardCharsets.UTF_8));
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anErrorOrAnyOtherAnswerGoesToStderrWithExit1() throws Exception {
        CompletableFuture<String> sent = run(dir.resolve(InjectedRun.CONTROL_SOCKET), "error process 4242 is not traced by this run");
        assertEquals(ExitCodes.FAILED, RunControl.send("stop", dir, 4242L, context));
        assertEquals("stop 4242", sent.get(10, TimeUnit.SECONDS), "the PID goes with the verb");
        assertEquals("flagtrace stop: process 4242 is not traced by this run\n", err.toString(StandardCharsets.UTF_8));
        assertEquals("", out.toString(StandardCharsets.UTF_8));

        server.close();
        Files.delete(dir.resolve(InjectedRun.CONTROL_SOCKET));
        err.reset();
        run(dir.resolve(InjectedRun.CONTROL_SOCKET), "okay?"); // neither word: printed as it is
        assertEquals(ExitCodes.FAILED, RunControl.send("start", dir, null, context));
        assertEquals("flagtrace start: okay?\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aSocketPathTooLongForDirIsFoundThroughThePointerFile() throws Exception {
        Path elsewhere = Files.createDirectory(dir.resolve("short"));
        Path socket = elsewhere.resolve("c.sock");
        Path runDir = Files.createDirectory(dir.resolve("run"));
        Files.writeString(runDir.resolve(InjectedRun.CONTROL_POINTER), socket + "\n", StandardCharsets.UTF_8);
        CompletableFuture<String> sent = run(socket, "ok disarmed");
        assertEquals(ExitCodes.OK, RunControl.send("stop", runDir, null, context));
        assertEquals("stop", sent.get(10, TimeUnit.SECONDS));
        assertEquals("flagtrace stop: disarmed\n", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aTracedProcessLeadsToItsRunThroughItsEnvironment() throws Exception {
        Path runDir = Files.createDirectory(dir.resolve("r"));
        ProcessBuilder pb = new ProcessBuilder("sleep", "60");
        // the variable names the run's socket of the preload; the control socket sits beside it
        pb.environment().put(InjectedRun.SOCKET_VARIABLE, runDir.resolve("preload.sock").toString());
        traced = pb.start();
        CompletableFuture<String> sent = run(runDir.resolve(InjectedRun.CONTROL_SOCKET), "ok armed process " + traced.pid());
        assertEquals(ExitCodes.OK, RunControl.send("start", null, traced.pid(), context));
        assertEquals("start " + traced.pid(), sent.get(10, TimeUnit.SECONDS));
        assertEquals("flagtrace start: armed process " + traced.pid() + "\n", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void everyWayToMissTheRunIsOneClearError() throws Exception {
        UsageException usage = assertThrows(UsageException.class, () -> RunControl.send("start", null, null, context));
        assertEquals("name the run: -d DIR (its folder) or the PID of a process it traces", usage.getMessage());

        IOException e = assertThrows(IOException.class, () -> RunControl.send("start", dir, null, context));
        assertEquals("no flagtrace run is running in " + dir + " (no .flagtrace-control.sock there)", e.getMessage());

        // a socket left by a run that ended: nobody listens
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(dir.resolve(InjectedRun.CONTROL_SOCKET)));
        server.close();
        server = null;
        e = assertThrows(IOException.class, () -> RunControl.send("stop", dir, null, context));
        assertTrue(e.getMessage().startsWith("cannot reach the flagtrace run at " + dir.resolve(InjectedRun.CONTROL_SOCKET) + " (")
                && e.getMessage().endsWith("); is it still running?"), e.getMessage());

        long self = ProcessHandle.current().pid();
        if (System.getenv(InjectedRun.SOCKET_VARIABLE) == null) {
            e = assertThrows(IOException.class, () -> RunControl.send("start", null, self, context));
            assertEquals("process " + self + " was not started by flagtrace run (no FLAGTRACE_RUN_SOCKET in its environment)",
                    e.getMessage());
        }
        long gone = Long.MAX_VALUE; // no such process
        e = assertThrows(IOException.class, () -> RunControl.send("start", null, gone, context));
        assertTrue(e.getMessage().startsWith("cannot read the environment of process " + gone + " (")
                && e.getMessage().endsWith("): give -d DIR"), e.getMessage());
        assertEquals("", out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8), "nothing printed: the caller prints the error");
    }
}
