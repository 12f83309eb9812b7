package org.flagos.trace.cli;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.ingest.CaptureSidecars;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.OpsJsonlWriter;
import org.flagos.trace.ingest.ProcessFactsFile;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.ProcessFacts;
import org.flagos.trace.model.ProcessIdentity;
import org.flagos.trace.vendors.mspti.MsptiTracer;

/**
 * The flagtrace side of {@code run} for programs that are not JVMs: hands the program the injected
 * libraries (CUPTI's through CUDA's {@code CUDA_INJECTION64_PATH} and NVTX's {@code NVTX_INJECTION64_PATH};
 * MSPTI's, for Ascend, which has no such hook, through {@code LD_PRELOAD}) and a Unix socket
 * ({@code FLAGTRACE_RUN_SOCKET}), accepts one connection per traced process, and writes each
 * stream as a capture with the files beside it ({@code DIR/flagtrace-PID.fltrbuf}, its ops, names and
 * process facts), which {@link #finish} replays into {@code DIR/flagtrace-PID.json} through the one
 * replay path. The wire format (docs/run.md): frames {@code type:u32 reserved:u32 length:u64 payload};
 * a type below {@value #FLAGTRACE_TYPES} is a vendor's buffer (1 CUPTI, 2 MSPTI), written to the capture
 * as the {@code .fltrbuf} frame of that vendor it already is; one stream holds one vendor's buffers.
 */
final class InjectedRun implements AutoCloseable {
    static final String SOCKET_VARIABLE = "FLAGTRACE_RUN_SOCKET";
    private static final String LIBRARY_RESOURCE = "/flagtrace-inject/libflagtrace_inject.so";
    /** The library preloaded into every process of the tree; it arms only where ACL's runtime is loaded. */
    private static final String MSPTI_LIBRARY_RESOURCE = "/flagtrace-inject/libflagtrace_mspti.so";
    /** Types below this are vendors' buffers ({@code .fltrbuf} vendor ids); flagtrace's own messages are above. */
    private static final int FLAGTRACE_TYPES = 0x10000;
    private static final int HELLO = 0x10001;
    private static final int NAME = 0x10002;
    private static final int OP = 0x10003;
    private static final int TICK = 0x10004;
    private static final int END = 0x10005;
    private static final int DEVICES = 0x10006;
    /** A message larger than this is not one the injected library writes: the stream is damaged. */
    private static final long MAX_MESSAGE = 256L << 20;
    /** How long the connections still open when CMD has exited (its children's) are waited for. */
    private static final long LINGER_MS = 30_000;

    private final Path dir;
    private final Path library;
    private final Path msptiLibrary;
    private final Path socket;
    private final Path socketDir;
    private final ServerSocketChannel server;
    private final List<Connection> connections = new ArrayList<>();
    private final Thread acceptor;

    /** Binds the socket (in DIR, or a fresh folder under the temporary directory when DIR's path is too long for one). */
    InjectedRun(Path dir) throws IOException {
        this.dir = dir;
        this.library = library(dir, LIBRARY_RESOURCE);
        this.msptiLibrary = library(dir, MSPTI_LIBRARY_RESOURCE);
        Path inDir = dir.resolve(".flagtrace-run.sock");
        if (inDir.toString().getBytes(StandardCharsets.UTF_8).length < 100) {
            socketDir = null;
            socket = inDir;
        } else {
            socketDir = Files.createTempDirectory("flagtrace-run");
            socket = socketDir.resolve("s");
        }
        Files.deleteIfExists(socket);
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        acceptor = new Thread(this::accept, "flagtrace-run-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * The variables that make a CUDA or Ascend program of the tree load an injected library and reach this
     * process: CUDA's and NVTX's injection paths, and MSPTI's library after {@code previousPreload} (the
     * caller's {@code LD_PRELOAD}, kept) in {@code LD_PRELOAD}.
     */
    Map<String, String> environment(String previousPreload) {
        return Map.of("CUDA_INJECTION64_PATH", library.toString(), "NVTX_INJECTION64_PATH", library.toString(),
                "LD_PRELOAD", (previousPreload == null || previousPreload.isBlank() ? "" : previousPreload + ":") + msptiLibrary,
                SOCKET_VARIABLE, socket.toString());
    }

    private void accept() {
        while (server.isOpen()) {
            try {
                SocketChannel channel = server.accept();
                Connection c = new Connection(channel, dir);
                synchronized (connections) {
                    connections.add(c);
                }
                c.thread.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /**
     * After CMD has exited: stops accepting, waits for the streams still open (30 s at most; one still
     * open then ends there, without a stop), and replays each stream's capture into its trace; the
     * traces written.
     */
    List<Path> finish(PrintStream err) throws IOException, InterruptedException {
        server.close();
        acceptor.join(TimeUnit.SECONDS.toMillis(5));
        List<Connection> all;
        synchronized (connections) {
            all = List.copyOf(connections);
        }
        long deadline = System.currentTimeMillis() + LINGER_MS;
        for (Connection c : all) {
            c.thread.join(Math.max(1, deadline - System.currentTimeMillis()));
            if (c.thread.isAlive()) {
                c.channel.close();
                c.thread.join();
            }
        }
        List<Path> traces = new ArrayList<>();
        for (Connection c : all) {
            try { // one process's stream that cannot become a trace is one line; the others and CMD's exit code stand
                Path trace = c.replay(err);
                if (trace != null) {
                    traces.add(trace);
                }
            } catch (IOException | RuntimeException e) {
                CliFailures.report(e, "flagtrace run: the stream of " + (c.capture != null ? c.capture : "a process"), err);
            }
        }
        return traces;
    }

    @Override
    public void close() throws IOException {
        server.close();
        Files.deleteIfExists(socket);
        if (socketDir != null) {
            Files.deleteIfExists(socketDir);
        }
    }

    /** An injected library: the build's file when flagtrace runs from classes, else copied out of the jar into DIR. */
    private static Path library(Path dir, String resource) throws IOException {
        URL url = InjectedRun.class.getResource(resource);
        if (url == null) {
            throw new IOException("this flagtrace was built without its injected library (" + resource
                    + "; the build compiles native/inject with cc)");
        }
        if (url.getProtocol().equals("file")) {
            try {
                return Path.of(url.toURI());
            } catch (URISyntaxException e) {
                throw new IOException("cannot locate " + url, e);
            }
        }
        Path copy = dir.resolve(".flagtrace-inject").resolve(resource.substring(resource.lastIndexOf('/') + 1));
        Files.createDirectories(copy.getParent());
        try (InputStream in = url.openStream()) {
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        return copy;
    }

    /** One traced process's stream, written as a capture and the files beside it as it arrives. */
    private static final class Connection {
        final SocketChannel channel;
        final Thread thread;
        private final Path dir;
        private final Map<Long, String> names = new LinkedHashMap<>();
        private final Map<String, String> hello = new LinkedHashMap<>();
        private final Map<String, String> end = new LinkedHashMap<>();
        private Path capture;
        private OutputStream out;
        private OpsJsonlWriter ops;
        private long buffers;
        /** The vendor id of the stream's buffers (0 before the first). */
        private int vendor;
        /** The latest time the stream vouches for: a buffer's completion (sent before it) or an op's end. */
        private long lastTick = -1;
        /** When the stream ended, on this host's monotonic clock (System.nanoTime: CLOCK_MONOTONIC, the anchors' clock). */
        private long endedAtMonotonic;
        private String damage;

        Connection(SocketChannel channel, Path dir) {
            this.channel = channel;
            this.dir = dir;
            this.thread = new Thread(this::receive, "flagtrace-run-receive");
            thread.setDaemon(true);
        }

        private void receive() {
            try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Channels.newInputStream(channel), 1 << 16))) {
                byte[] header = new byte[16];
                while (true) {
                    try {
                        in.readFully(header);
                    } catch (EOFException e) {
                        return; // the process ended (with or without its end message)
                    }
                    ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
                    int type = h.getInt(0);
                    long length = h.getLong(8);
                    if (length < 0 || length > MAX_MESSAGE || h.getInt(4) != 0 || (capture == null && type != HELLO)) {
                        damage = "a damaged message (type " + type + ", " + length + " bytes)";
                        return;
                    }
                    byte[] payload = new byte[(int) length];
                    in.readFully(payload);
                    take(type, header, payload);
                }
            } catch (IOException | RuntimeException e) { // a broken or malformed stream: what came before it is kept
                if (damage == null && capture != null) {
                    damage = "the stream broke: " + e.getMessage();
                }
            } finally {
                endedAtMonotonic = System.nanoTime();
                closeQuietly();
            }
        }

        private void take(int type, byte[] header, byte[] payload) throws IOException {
            ByteBuffer p = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
            if (type > 0 && type < FLAGTRACE_TYPES) { // a vendor's buffer: the .fltrbuf frame it already is
                if (vendor != 0 && vendor != type) {
                    throw new IOException("a buffer of vendor " + type + " in a stream of vendor " + vendor);
                }
                vendor = type;
                out.write(header);
                out.write(payload);
                buffers++;
                return;
            }
            switch (type) {
                case HELLO -> {
                    parse(payload, hello);
                    capture = dir.resolve("flagtrace-" + number(hello, "pid") + ".fltrbuf");
                    out = new BufferedOutputStream(Files.newOutputStream(capture), 1 << 16);
                    out.write("FLTRBUF1".getBytes(StandardCharsets.US_ASCII));
                    ops = new OpsJsonlWriter(OpsJsonlWriter.besides(capture), number(hello, "window_start_ns"));
                }
                case NAME -> names.putIfAbsent(p.getLong(0), new String(payload, 8, payload.length - 8, StandardCharsets.UTF_8));
                case OP -> {
                    ops.op(new HostOp(new String(payload, 32, payload.length - 32, StandardCharsets.UTF_8),
                            new ExternalId(p.getLong(0)), p.getLong(24), p.getLong(8), p.getLong(16)));
                    lastTick = Math.max(lastTick, p.getLong(16)); // an op ended: the window holds it too
                }
                case TICK -> lastTick = Math.max(lastTick, p.getLong(0));
                case END -> parse(payload, end);
                case DEVICES -> Files.write(CaptureSidecars.DEVICES.besides(capture), payload); // checked by the replay that reads it
                default -> { } // a message of a later library: skipped
            }
        }

        private void closeQuietly() {
            try {
                if (out != null) {
                    out.close();
                }
                channel.close();
            } catch (IOException e) {
                if (damage == null) {
                    damage = "the capture could not be written: " + e.getMessage();
                }
            }
        }

        /** Writes the files beside the capture and replays it into {@code flagtrace-PID.json}; null when nothing came. */
        Path replay(PrintStream err) throws IOException {
            if (capture == null) {
                return null;
            }
            boolean stopped = !end.isEmpty();
            long windowStart = number(hello, "window_start_ns");
            // Without its end message the window ends when the stream did: every record handed over ended before
            // that (the start anchor turns this host's monotonic clock into CUPTI's), or at the last tick if later.
            long windowEnd = stopped ? number(end, "window_end_ns") : Math.max(Math.max(windowStart, lastTick),
                    number(hello, "start_trace_ns") + (endedAtMonotonic - number(hello, "start_monotonic_ns")));
            ops.close(windowEnd);
            if (vendor == MsptiTracer.DUMP_VENDOR) { // MSPTI's records carry physical device ids: the process's mapping, as a live session saves it
                MsptiTracer.deviceNameEntries(hello.get("env.ASCEND_RT_VISIBLE_DEVICES")).forEach(names::putIfAbsent);
            }
            try (var w = Files.newBufferedWriter(CaptureSidecars.NAMES.besides(capture), StandardCharsets.UTF_8)) {
                for (var e : names.entrySet()) {
                    w.write("0x" + Long.toHexString(e.getKey()) + "\t" + e.getValue().replace('\n', ' ').replace('\t', ' ') + "\n");
                }
            }
            long pid = number(hello, "pid");
            Map<String, String> env = new LinkedHashMap<>();
            hello.forEach((k, v) -> {
                if (k.startsWith("env.")) {
                    env.put(k.substring(4), v);
                }
            });
            ProcessIdentity self = ProcessIdentity.ofThisProcess(env);
            ProcessIdentity identity = new ProcessIdentity(self.rank(), self.worldSize(), self.localRank(), self.localWorldSize(),
                    self.host(), pid, self.bootId());
            List<ClockAnchor> anchors = new ArrayList<>(List.of(anchor(hello, "start")));
            if (stopped) {
                anchors.add(anchor(end, "stop"));
            }
            ProcessFactsFile.write(CaptureSidecars.PROCESS.besides(capture), new ProcessFacts(identity, anchors));
            Path trace = dir.resolve("flagtrace-" + pid + ".json");
            List<String> args = new ArrayList<>(List.of("replay", capture.toString(), "-o", trace.toString(),
                    "--metadata", "flagtrace_run_end=" + (stopped ? "stop" : "the process ended without a stop"
                            + (damage != null ? " (" + damage + ")" : "") + ": every buffer it handed over is here, ops still open are not"),
                    "--metadata", "flagtrace_run_buffers=" + buffers));
            for (String key : List.of("buffers_dropped", "bytes_dropped", "records_dropped", "kernels_dropped", "memcpys_dropped",
                    "memsets_dropped", "ops_dropped", "names_dropped", "cupti_records_dropped")) {
                if (end.containsKey(key)) {
                    args.addAll(List.of("--metadata", "flagtrace_run_" + key + "=" + number(end, key)));
                }
            }
            int code = new FlagtraceCli(err, err).run(args.toArray(String[]::new));
            if (code != ExitCodes.OK) {
                err.println("flagtrace run: the capture of process " + pid + " did not replay (exit " + code + "): " + capture);
                return null;
            }
            return trace;
        }

        private static ClockAnchor anchor(Map<String, String> fields, String at) {
            return new ClockAnchor(at, number(fields, at + "_realtime_ns"), number(fields, at + "_monotonic_ns"),
                    number(fields, at + "_trace_ns"), number(fields, at + "_bound_ns"));
        }

        private static void parse(byte[] text, Map<String, String> into) {
            for (String line : new String(text, StandardCharsets.UTF_8).split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    into.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        }

        private static long number(Map<String, String> fields, String key) {
            String v = fields.get(key);
            if (v == null) {
                throw new UncheckedIOException(new IOException("the injected library's message lacks " + key));
            }
            return Long.parseUnsignedLong(v.strip());
        }
    }
}
