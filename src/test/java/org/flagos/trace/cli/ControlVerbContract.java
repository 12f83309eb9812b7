package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flagtrace start|stop [-d DIR] [PID]} from the command line: the one line each sends a run's control socket,
 * and its exits. {@link StartCommandTest} and {@link StopCommandTest} run it for their verb.
 */
abstract class ControlVerbContract {
    /** The command under test: {@code start} or {@code stop}. */
    abstract String verb();

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int cli(String... args) {
        return new FlagtraceCli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    @Test
    void sendsItsVerbWithThePidAndPrintsTheAnswer() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(dir.resolve(InjectedRun.CONTROL_SOCKET)));
            CompletableFuture<String> sent = FakeRunSocket.answerOnce(server, "ok done for 4242");
            assertEquals(ExitCodes.OK, cli(verb(), "-d", dir.toString(), "4242"));
            assertEquals(verb() + " 4242", sent.get(10, TimeUnit.SECONDS));
            assertEquals("flagtrace " + verb() + ": done for 4242\n", out.toString(StandardCharsets.UTF_8));
            sent = FakeRunSocket.answerOnce(server, "error nothing to " + verb());
            assertEquals(ExitCodes.FAILED, cli(verb(), "--dir", dir.toString()));
            assertEquals(verb(), sent.get(10, TimeUnit.SECONDS), "no PID: every process");
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("flagtrace " + verb() + ": nothing to " + verb() + "\n"), err.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void withoutARunToNameItIsAUsageError() {
        assertEquals(ExitCodes.USAGE, cli(verb()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("name the run: -d DIR (its folder) or the PID of a process it traces"),
                err.toString(StandardCharsets.UTF_8));
        err.reset();
        assertEquals(ExitCodes.USAGE, cli(verb(), "notapid"));
    }

    @Test
    void noRunInTheFolderFailsInOneLine() {
        assertEquals(ExitCodes.FAILED, cli(verb(), "-d", dir.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no flagtrace run is running in " + dir), err.toString(StandardCharsets.UTF_8));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }
}
