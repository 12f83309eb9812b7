package org.flagos.trace.journal;

import org.flagos.trace.testing.ChildJvm;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.Permission;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.testing.Captures;

/**
 * Runs in a child JVM for the journal tests. {@code slow CAPTURE DIR}: journals the capture's
 * buffers, then its ops one by one, printing {@code appended N} after each op's append returned,
 * until killed. {@code net DIR}: journals and reads back under a security manager that records
 * every network access, then prints what it saw. {@code partial CAPTURE DIR TRACE}: as a recorder
 * does, opens its trace output (a temporary beside TRACE) and journals the capture's buffers, prints
 * {@code ready}, and waits to be killed.
 */
public final class JournalChild {
    /**
     * Starts this class in a child JVM with the journal's Java 17 flags and {@code args}; its stderr
     * goes to the test's. Security managers are allowed (the "net" mode installs one).
     */
    public static Process start(String... args) throws IOException {
        List<String> command = ChildJvm.command();
        command.add("-Xmx512m");
        command.add("-Djava.security.manager=allow");
        command.addAll(List.of("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(JournalChild.class.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("slow")) {
            slow(args[1], Path.of(args[2]));
        } else if (args[0].equals("partial")) {
            partial(args[1], Path.of(args[2]), Path.of(args[3]));
        } else {
            net(Path.of(args[1]));
        }
    }

    private static void slow(String capture, Path dir) throws IOException, InterruptedException {
        CaptureReplay.Request request = JournalFixtures.request(capture);
        HostOps ops = (HostOps) request.ops(); // the fixture reads the ops file into memory
        PrintStream out = System.out;
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(dir),
                new JournalSession(capture, "child", ops.windowStartNs(), request.devices(), java.util.Map.of(), -1, false))) {
            KernelNameFile.read(Captures.names(capture)).entries().forEach(writer::kernelName);
            FltrbufFrames frames = new FltrbufFrames(request.capture(), capture);
            while (frames.next()) {
                writer.buffer(frames.vendor(), frames.payload());
            }
            int n = 0;
            for (HostOp op : ops.ops()) {
                writer.op(op);
                out.println("appended " + ++n);
                if (n % 20 == 0) {
                    out.flush();
                    Thread.sleep(1);
                }
            }
            out.println("done");
            out.flush();
            Thread.sleep(60_000); // the parent kills before; never stops the journal
        }
    }

    private static void partial(String capture, Path dir, Path trace) throws IOException, InterruptedException {
        CaptureReplay.Request request = JournalFixtures.request(capture);
        try (AtomicOutput out = new AtomicOutput(trace);
             JournalWriter writer = JournalWriter.open(JournalOptions.to(dir),
                     new JournalSession(capture, "child", 1, request.devices(), java.util.Map.of(), -1, true))) {
            out.stream().write("{\"traceEvents\":[".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            out.stream().flush();
            FltrbufFrames frames = new FltrbufFrames(request.capture(), capture);
            while (frames.next()) {
                writer.buffer(frames.vendor(), frames.payload());
            }
            System.out.println("ready");
            System.out.flush();
            Thread.sleep(60_000); // the parent kills before
        }
    }

    private static void net(Path dir) throws Exception {
        AtomicInteger network = new AtomicInteger();
        StringBuilder seen = new StringBuilder();
        System.setSecurityManager(new SecurityManager() {
            @Override
            public void checkPermission(Permission perm) {
                if (perm instanceof java.net.SocketPermission) {
                    network.incrementAndGet();
                    seen.append(perm).append(';');
                }
            }

            @Override
            public void checkPermission(Permission perm, Object context) {
                checkPermission(perm);
            }

            @Override
            public void checkConnect(String host, int port) {
                network.incrementAndGet();
                seen.append("connect ").append(host).append(':').append(port).append(';');
            }

            @Override
            public void checkConnect(String host, int port, Object context) {
                checkConnect(host, port);
            }

            @Override
            public void checkListen(int port) {
                network.incrementAndGet();
                seen.append("listen ").append(port).append(';');
            }

            @Override
            public void checkMulticast(InetAddress maddr) {
                network.incrementAndGet();
            }
        });
        System.out.println("property-before=" + System.getProperty(ChronicleSettings.ANALYTICS_DISABLE));
        CaptureReplay.Request request = JournalFixtures.request("h200-app");
        java.nio.ByteBuffer payload;
        FltrbufFrames frames = new FltrbufFrames(request.capture(), "h200-app");
        frames.next();
        payload = frames.payload();
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(dir).withRoll(JournalRoll.SECOND),
                new JournalSession("net", "child", 1, request.devices(), java.util.Map.of(), -1, true))) {
            for (int i = 0; i < 50; i++) {
                writer.buffer(1, payload);
            }
            writer.stop(2);
        }
        try (JournalReader reader = JournalReader.open(dir)) {
            reader.scan();
            reader.replay(new JournalVisitor() {
                @Override
                public void op(HostOp op) {
                }

                @Override
                public void buffer(int vendor, int layout, java.nio.ByteBuffer bytes) {
                }
            });
        }
        boolean analyticsPresent;
        try {
            Class.forName("net.openhft.chronicle.analytics.Analytics");
            analyticsPresent = true;
        } catch (ClassNotFoundException e) {
            analyticsPresent = false;
        }
        System.out.println("property-after=" + System.getProperty(ChronicleSettings.ANALYTICS_DISABLE));
        System.out.println("analytics-class=" + (analyticsPresent ? "present" : "absent"));
        System.out.println("analytics-enabled=" + net.openhft.chronicle.core.analytics.AnalyticsFacade.isEnabled());
        System.out.println("network=" + network.get() + " " + seen);
        StringBuilder threads = new StringBuilder();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().contains("~")) {
                threads.append(t.getName()).append(';');
            }
        }
        System.out.println("chronicle-threads=" + threads);
    }

    private JournalChild() {
    }
}
