package org.flagos.trace.session;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/** The names torch's {@code tensorboard_trace_handler} gives trace files. */
final class TensorBoardNames {
    private static final Path KERNEL_HOSTNAME = Path.of("/proc/sys/kernel/hostname");

    /** {@code HOSTNAME_PID}, torch's default worker name ({@code socket.gethostname()} and the pid). */
    static String defaultWorker() {
        return hostname() + "_" + ProcessHandle.current().pid();
    }

    /**
     * The host's name as {@code gethostname(2)} gives it, read without a name lookup (no network):
     * the kernel's, else {@code HOSTNAME}, else {@code localhost}.
     */
    static String hostname() {
        try {
            String name = Files.readString(KERNEL_HOSTNAME, StandardCharsets.UTF_8).strip();
            if (!name.isEmpty()) {
                return name;
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or no procfs: fall through
        }
        String env = System.getenv("HOSTNAME");
        return env == null || env.isBlank() ? "localhost" : env.strip();
    }

    /** {@code DIR/WORKER.EPOCH_NS SUFFIX}, the nanoseconds raised past any file already there. */
    static synchronized Path next(Path dir, String worker, String suffix) {
        Instant now = Instant.now();
        long ns = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        Path path;
        while (Files.exists(path = dir.resolve(worker + "." + ns + suffix))) {
            ns++;
        }
        return path;
    }

    private TensorBoardNames() {
    }
}
