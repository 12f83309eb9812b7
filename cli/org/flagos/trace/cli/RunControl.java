package org.flagos.trace.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What {@code flagtrace start} and {@code stop} share: finding the control socket of a running {@code flagtrace
 * run} (in its DIR, or named by the socket variable in a traced process's environment) and sending it one line.
 */
final class RunControl {
    private RunControl() {
    }

    /** Sends {@code verb [PID]} to the run of DIR, or of the traced process PID; prints its answer. */
    static int send(String verb, Path dir, Long pid, CliContext context) throws IOException {
        if (dir == null && pid == null) {
            throw new UsageException("name the run: -d DIR (its folder) or the PID of a process it traces");
        }
        Path socket = dir != null ? ofDir(dir) : ofProcess(pid);
        String answer;
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            ByteBuffer line = ByteBuffer.wrap((verb + (pid != null ? " " + pid : "") + "\n").getBytes(StandardCharsets.UTF_8));
            while (line.hasRemaining()) {
                channel.write(line);
            }
            answer = new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IOException("cannot reach the flagtrace run at " + socket + " (" + e.getMessage() + "); is it still running?", e);
        }
        PrintStream out = answer.startsWith("ok ") ? context.out() : context.err();
        out.println("flagtrace " + verb + ": " + (answer.startsWith("ok ") || answer.startsWith("error ") ? answer.substring(answer.indexOf(' ') + 1) : answer));
        return answer.startsWith("ok ") ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private static Path ofDir(Path dir) throws IOException {
        Path socket = dir.resolve(InjectedRun.CONTROL_SOCKET);
        if (Files.exists(socket)) {
            return socket;
        }
        Path pointer = dir.resolve(InjectedRun.CONTROL_POINTER);
        if (Files.isRegularFile(pointer)) {
            return Path.of(Files.readString(pointer, StandardCharsets.UTF_8).strip());
        }
        throw new IOException("no flagtrace run is running in " + dir + " (no " + InjectedRun.CONTROL_SOCKET + " there)");
    }

    /** The run that traces PID: its socket variable, read from the process's environment (/proc/PID/environ). */
    private static Path ofProcess(long pid) throws IOException {
        byte[] environ;
        try {
            environ = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
        } catch (IOException e) {
            throw new IOException("cannot read the environment of process " + pid + " (" + e.getMessage() + "): give -d DIR", e);
        }
        String prefix = InjectedRun.SOCKET_VARIABLE + "=";
        for (String entry : new String(environ, StandardCharsets.UTF_8).split("\0")) {
            if (entry.startsWith(prefix)) {
                return Path.of(entry.substring(prefix.length())).resolveSibling(InjectedRun.CONTROL_SOCKET);
            }
        }
        throw new IOException("process " + pid + " was not started by flagtrace run (no " + InjectedRun.SOCKET_VARIABLE + " in its environment)");
    }
}
