package org.flagos.trace.cli;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
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
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.capture.ArrivingReplay;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.ingest.CaptureSidecars;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.MarksJsonlWriter;
import org.flagos.trace.ingest.OpsJsonlWriter;
import org.flagos.trace.ingest.TorchNvtxName;
import org.flagos.trace.ingest.ProcessFactsFile;
import org.flagos.trace.ingest.WindowEndFile;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.ProcessFacts;
import org.flagos.trace.model.ProcessIdentity;
import org.flagos.trace.vendors.Vendors;

/**
 * The flagtrace side of {@code run} for programs that are not JVMs: hands the program the injected
 * libraries (CUPTI's through CUDA's {@code CUDA_INJECTION64_PATH} and NVTX's {@code NVTX_INJECTION64_PATH};
 * MSPTI's, for Ascend, which has no such hook, through {@code LD_PRELOAD}) and a Unix socket
 * ({@code FLAGTRACE_RUN_SOCKET}), accepts one connection per traced process, and writes each
 * stream as a capture with the files beside it ({@code DIR/flagtrace-PID.fltrbuf}, its ops, names and
 * process facts), replayed into {@code DIR/flagtrace-PID.json} through the one replay path as soon as
 * its window closes (while the rest of the tree runs on), at most {@link #REPLAYS} at a time; {@link #finish}
 * waits for them. The wire format (docs/run.md): frames {@code type:u32 reserved:u32 length:u64 payload};
 * a type below {@value #FLAGTRACE_TYPES} is a vendor's buffer (1 CUPTI, 2 MSPTI), written to the capture
 * as the {@code .fltrbuf} frame of that vendor it already is; one stream holds one vendor's buffers.
 */
final class InjectedRun implements AutoCloseable {
    static final String SOCKET_VARIABLE = "FLAGTRACE_RUN_SOCKET";
    /** Where, in the run's folder, the injected libraries are copied out of the jar. */
    static final String LIBRARY_FOLDER = ".flagtrace-inject";
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
    private static final int WINDOW = 0x10007;
    private static final int MARK = 0x10008;
    private static final int ARM = 0x20001;
    private static final int DISARM = 0x20002;
    /** The control socket's name, beside the run's socket: {@code flagtrace start}/{@code stop} talk to it. */
    static final String CONTROL_SOCKET = ".flagtrace-control.sock";
    /** Written in DIR when the sockets are not in DIR (its path too long for a socket's name): the control socket's path. */
    static final String CONTROL_POINTER = ".flagtrace-control.path";
    /** How long start and stop wait for each process to answer (its window opened or closed). */
    private static final long ANSWER_MS = 10_000;
    /** A message larger than this is not one the injected library writes: the stream is damaged. */
    private static final long MAX_MESSAGE = 256L << 20;
    /** How long the connections still open when CMD has exited (its children's) are waited for. */
    static final long LINGER_MS = 30_000;
    /**
     * Windows replayed at once: each replay is a pipeline of several threads, so a tree of N workers whose
     * windows close together replays a quarter of the cores' worth at a time, the rest queued.
     */
    static final int REPLAYS = Math.max(1, Runtime.getRuntime().availableProcessors() / 4);

    private final Path dir;
    private final Path library;
    private final Path msptiLibrary;
    private final Path socket;
    private final Path socketDir;
    private final ServerSocketChannel server;
    private final List<Connection> connections = new ArrayList<>();
    private final Thread acceptor;
    /** The acceptor's selector once it waits on one; {@link #finish}'s ask for the last connections wakes it. */
    private volatile Selector accepting;
    private volatile boolean finishing;
    private final OnDemand onDemand;
    private final Path controlSocket;
    private final ServerSocketChannel control;
    private final java.util.concurrent.ScheduledExecutorService timers;
    /** The traces of windows stopped with no device record handed over (a launcher that only initialised CUDA). */
    private final Set<Path> withoutDeviceWork = ConcurrentHashMap.newKeySet();
    /** What {@link #finish} found lost: streams that left no capture or a damaged one, windows that did not become traces. */
    private volatile CaptureLosses losses = CaptureLosses.NONE;

    /** Replays each window's capture into its trace once the window has closed; {@link #REPLAYS} threads. */
    private final ExecutorService replays = Executors.newFixedThreadPool(REPLAYS, r -> {
        Thread t = new Thread(r, "flagtrace-run-replay");
        t.setDaemon(true);
        return t;
    });
    /**
     * Windows replayed as they arrive at once ({@link ArrivingReplay}: the trace ready moments after the window closes); a
     * window opened while this many are is replayed when it closes, as every window is under {@code --journal}.
     * {@code -Dflagtrace.run.arriving=N} sets it (0: every window replayed at its close, for a benchmark's comparison).
     */
    static final int ARRIVING = Math.max(0, Integer.getInteger("flagtrace.run.arriving",
            Math.max(2, Runtime.getRuntime().availableProcessors() / 2)));
    private final java.util.concurrent.Semaphore arrivingPermits = new java.util.concurrent.Semaphore(ARRIVING);
    /**
     * What each window replayed as it arrives may hold waiting to be decoded: 128 MB, or less so that all of them together
     * hold at most a quarter of the heap; past it that window is replayed when it closes.
     */
    static final long ARRIVING_QUEUE_BYTES = Math.min(128L << 20, Runtime.getRuntime().maxMemory() / (4L * Math.max(1, ARRIVING)));
    private final ExecutorService arrivals = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "flagtrace-run-arriving");
        t.setDaemon(true);
        return t;
    });
    /** Where each window's capture is journaled as well ({@code JOURNAL/flagtrace-PID[-wN]}), or null. */
    private final Path journal;
    /** Armed by a {@code start} without a PID: a process that connects later is armed as it connects. */
    private volatile boolean armedAll;
    /** How long {@link #finish} waits for the streams still open ({@link #LINGER_MS}; less in tests). */
    private final long lingerMs;

    /**
     * When the processes are armed: {@code startLater} keeps each disarmed until {@code flagtrace start} (or its
     * {@code delaySeconds}); {@code delaySeconds} arms each that long after it connects; {@code durationSeconds}
     * disarms each window that long after it opened; {@code captureRange} ({@link CaptureRange}'s value) makes each
     * process arm and disarm itself, a window per range. Nulls: not given.
     */
    record OnDemand(boolean startLater, Double delaySeconds, Double durationSeconds, String captureRange, int captureWindows) {
        static final OnDemand NONE = new OnDemand(false, null, null, null);

        OnDemand(boolean startLater, Double delaySeconds, Double durationSeconds) {
            this(startLater, delaySeconds, durationSeconds, null);
        }

        /** Every window the capture range opens. */
        OnDemand(boolean startLater, Double delaySeconds, Double durationSeconds, String captureRange) {
            this(startLater, delaySeconds, durationSeconds, captureRange, 0);
        }

        /** The injected library starts disarmed. */
        boolean disarmedAtStart() {
            return startLater || delaySeconds != null || captureRange != null;
        }
    }

    InjectedRun(Path dir) throws IOException {
        this(dir, OnDemand.NONE, null);
    }

    InjectedRun(Path dir, OnDemand onDemand) throws IOException {
        this(dir, onDemand, null);
    }

    /**
     * Binds the sockets (in DIR, or a fresh folder under the temporary directory when DIR's path is too long for one);
     * with {@code journal}, each window's capture is also journaled into its own directory there.
     */
    InjectedRun(Path dir, OnDemand onDemand, Path journal) throws IOException {
        this(dir, onDemand, journal, LINGER_MS);
    }

    /** The same, waiting {@code lingerMs} at the finish for the streams still open. */
    InjectedRun(Path dir, OnDemand onDemand, Path journal, long lingerMs) throws IOException {
        this.lingerMs = lingerMs;
        this.dir = dir;
        this.onDemand = onDemand;
        this.journal = journal;
        this.library = library(dir, LIBRARY_RESOURCE);
        this.msptiLibrary = library(dir, MSPTI_LIBRARY_RESOURCE);
        Path inDir = dir.resolve(".flagtrace-run.sock");
        if (dir.resolve(CONTROL_SOCKET).toString().getBytes(StandardCharsets.UTF_8).length < 100) {
            socketDir = null;
            socket = inDir;
        } else {
            socketDir = Files.createTempDirectory("flagtrace-run");
            socket = socketDir.resolve(".flagtrace-run.sock");
        }
        controlSocket = socket.resolveSibling(CONTROL_SOCKET);
        Files.deleteIfExists(socket);
        Files.deleteIfExists(controlSocket);
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        control = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        control.bind(UnixDomainSocketAddress.of(controlSocket));
        if (socketDir != null) {
            Files.writeString(dir.resolve(CONTROL_POINTER), controlSocket + "\n");
        }
        timers = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "flagtrace-run-timer");
            t.setDaemon(true);
            return t;
        });
        acceptor = new Thread(this::accept, "flagtrace-run-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        Thread controller = new Thread(this::serveControl, "flagtrace-run-control");
        controller.setDaemon(true);
        controller.start();
    }

    /**
     * The variables that make a CUDA or Ascend program of the tree load an injected library and reach this
     * process: CUDA's and NVTX's injection paths, and MSPTI's library after {@code previousPreload} (the
     * caller's {@code LD_PRELOAD}, kept) in {@code LD_PRELOAD}.
     */
    Map<String, String> environment(String previousPreload) {
        Map<String, String> env = new LinkedHashMap<>(Map.of("CUDA_INJECTION64_PATH", library.toString(),
                "NVTX_INJECTION64_PATH", library.toString(), SOCKET_VARIABLE, socket.toString(),
                "LD_PRELOAD", (previousPreload == null || previousPreload.isBlank() ? "" : previousPreload + ":") + msptiLibrary
                        + ":" + library)); // preloaded too: the program's own CUPTI client reaches flagtrace first (handoff_yield)
        if (onDemand.disarmedAtStart()) {
            env.put("FLAGTRACE_RUN_START", "later");
        }
        if (onDemand.captureRange() != null) {
            env.put("FLAGTRACE_RUN_CAPTURE", onDemand.captureRange());
        }
        if (onDemand.captureWindows() > 0) {
            env.put("FLAGTRACE_RUN_CAPTURE_WINDOWS", Integer.toString(onDemand.captureWindows()));
        }
        return env;
    }

    /** A process said who it is: armed now if a {@code start} for all is in force, or after {@code --delay}. */
    private void helloed(Connection c) {
        synchronized (connections) {
            connections.notifyAll(); // a start PID may wait for it
        }
        if (armedAll) {
            send(c, ARM);
        } else if (onDemand.delaySeconds() != null) {
            timers.schedule(() -> send(c, ARM), nanos(onDemand.delaySeconds()), TimeUnit.NANOSECONDS);
        }
    }

    /** A window opened: disarmed after {@code --duration}, if given. */
    private void windowOpened(Connection c, Connection.Window w) {
        if (onDemand.durationSeconds() != null) {
            timers.schedule(() -> {
                synchronized (c) {
                    if (c.current != w) {
                        return; // closed already (stop, or the process ended)
                    }
                }
                send(c, DISARM);
            }, nanos(onDemand.durationSeconds()), TimeUnit.NANOSECONDS);
        }
    }

    private static long nanos(double seconds) {
        return (long) (seconds * 1e9);
    }

    /** Sends an arm or disarm to the process; a process gone is simply not reached. */
    private static void send(Connection c, int type) {
        ByteBuffer frame = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(type).putInt(0).putLong(0).flip();
        synchronized (c.channel) {
            try {
                while (frame.hasRemaining()) {
                    c.channel.write(frame);
                }
            } catch (IOException e) {
                // the process ended: its stream's end closes its window
            }
        }
    }

    /** Serves {@code flagtrace start}/{@code stop}: one line in ({@code start [PID]} or {@code stop [PID]}), the answer out. */
    private void serveControl() {
        while (control.isOpen()) {
            try (SocketChannel client = control.accept()) {
                java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(
                        Channels.newInputStream(client), StandardCharsets.UTF_8));
                String line = in.readLine();
                String answer;
                try {
                    answer = control(line == null ? "" : line.strip());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (RuntimeException e) {
                    answer = "error " + e.getMessage();
                }
                ByteBuffer out = ByteBuffer.wrap((answer + "\n").getBytes(StandardCharsets.UTF_8));
                while (out.hasRemaining()) {
                    client.write(out);
                }
            } catch (IOException e) {
                if (!control.isOpen()) {
                    return;
                }
            }
        }
    }

    /**
     * Applies one control line; the answer's first word is {@code ok} or {@code error}. {@code start} arms every
     * process (and those that connect later) or process PID, and answers once each has opened its window;
     * {@code stop} disarms them and answers once each has handed over its window's end (10 s at most each).
     */
    String control(String line) throws InterruptedException {
        String[] words = line.split("\\s+");
        boolean start = words[0].equals("start");
        if (!start && !words[0].equals("stop") || words.length > 2) {
            return "error not a control line: " + line;
        }
        if (onDemand.captureRange() != null) {
            return "error this run's windows are its capture range's (--capture-range " + onDemand.captureRange()
                    + "): start and stop do not apply";
        }
        Long pid = words.length == 2 ? Long.parseLong(words[1]) : null;
        List<Connection> targets = new ArrayList<>();
        long deadline = System.currentTimeMillis() + ANSWER_MS;
        if (pid != null) {
            Connection c = waitForProcess(pid, deadline);
            if (c == null) {
                return "error no process " + pid + " of this run has reached it (a process connects when it initialises CUDA)";
            }
            targets.add(c);
        } else {
            armedAll = start;
            synchronized (connections) {
                targets.addAll(connections);
            }
        }
        StringBuilder done = new StringBuilder();
        int n = 0;
        for (Connection c : targets) {
            int before;
            synchronized (c) {
                if (c.ended || (start ? c.current != null : c.current == null)) {
                    continue; // ended, or already armed (start) or disarmed (stop)
                }
                before = start ? c.opened : c.windows.size();
            }
            send(c, start ? ARM : DISARM);
            synchronized (c) {
                while (!c.ended && (start ? c.opened == before : c.windows.size() == before)) {
                    long left = deadline - System.currentTimeMillis();
                    if (left <= 0) {
                        return "error process " + c.pid + " did not answer in " + ANSWER_MS / 1000 + " s";
                    }
                    c.wait(left);
                }
                if (c.ended) {
                    continue;
                }
                Path capture = start ? c.current.capture : c.windows.get(c.windows.size() - 1).capture;
                done.append(' ').append(c.pid).append(':').append(capture.getFileName());
                n++;
            }
        }
        return "ok " + (start ? "armed " : "stopped ") + n + (n == 1 ? " process" : " processes") + done;
    }

    private Connection waitForProcess(long pid, long deadline) throws InterruptedException {
        while (System.currentTimeMillis() < deadline) {
            synchronized (connections) {
                for (Connection c : connections) {
                    synchronized (c) {
                        if (c.pid == pid && !c.ended) {
                            return c;
                        }
                    }
                }
                connections.wait(Math.max(1, Math.min(100, deadline - System.currentTimeMillis())));
            }
        }
        return null;
    }

    /**
     * Takes each connection as it comes until {@link #finish} asks for the last ones: then every connection queued
     * before that (a process that connected, handed over its stream and exited just as CMD ended) is taken too, for
     * closing the socket would drop it, and the process with it, without a word.
     */
    private void accept() {
        try (Selector selector = Selector.open()) {
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
            accepting = selector;
            while (true) {
                boolean last = finishing; // read before the queue is emptied: what came before finish's ask is taken below
                for (SocketChannel channel; (channel = server.accept()) != null; ) {
                    Connection c = new Connection(channel, dir); // in blocking mode, as every accepted channel is
                    synchronized (connections) {
                        connections.add(c);
                    }
                    c.thread.start();
                }
                if (last) {
                    return;
                }
                selector.select();
                selector.selectedKeys().clear();
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** Has the acceptor take the connections queued now and stop. */
    private void stopAccepting() {
        finishing = true;
        Selector selector = accepting;
        if (selector != null) {
            selector.wakeup();
        }
    }

    /**
     * After CMD has exited: stops accepting (the socket's name goes first, so a process that connects from now on is refused
     * and says so on its own stderr; every connection made before is taken), waits for the streams still open (30 s at most;
     * one still open then ends there, without a stop) and for each window's replay into its trace (begun when the
     * window closed), and says what each replay said, stream by stream, window by window, as if they had
     * run one after another now; the traces written. What was lost is counted ({@link #losses}).
     */
    List<Path> finish(PrintStream err) throws IOException, InterruptedException {
        Files.deleteIfExists(socket); // no connection can queue behind the last drain: closing the socket would drop it unseen
        stopAccepting();
        acceptor.join(TimeUnit.SECONDS.toMillis(5)); // it takes what is queued, then stops
        server.close();
        control.close();
        acceptor.join(TimeUnit.SECONDS.toMillis(5)); // one still taking then stops at the close
        List<Connection> all;
        synchronized (connections) {
            all = List.copyOf(connections);
        }
        long deadline = System.currentTimeMillis() + lingerMs;
        for (Connection c : all) {
            c.thread.join(Math.max(1, deadline - System.currentTimeMillis()));
            if (c.thread.isAlive()) {
                c.cut = "still open " + (lingerMs % 1000 == 0 ? Long.toString(lingerMs / 1000) : Double.toString(lingerMs / 1000.0))
                        + " s after the program exited: cut there";
                c.channel.close();
                c.thread.join();
            }
        }
        List<Path> traces = new ArrayList<>();
        CaptureLosses lost = CaptureLosses.NONE;
        for (Connection c : all) { // one window that cannot become a trace is one line; the others stand
            traces.addAll(c.replay(err));
            lost = lost.plus(c.lost);
        }
        losses = lost;
        return traces;
    }

    /** What {@link #finish} counted as lost: streams that reached run and left no capture or a damaged one, windows not traced. */
    CaptureLosses losses() {
        return losses;
    }

    /**
     * Of the traces {@link #finish} wrote, those whose window was stopped with no kernel, copy or set handed over: the
     * library's count says so. A window that ended without a stop, or a library that does not count, is not among them.
     */
    Set<Path> withoutDeviceWork() {
        return Set.copyOf(withoutDeviceWork);
    }

    @Override
    public void close() throws IOException {
        stopAccepting();
        server.close();
        control.close();
        timers.shutdownNow();
        replays.shutdownNow();
        arrivals.shutdownNow();
        Files.deleteIfExists(socket);
        Files.deleteIfExists(controlSocket);
        Files.deleteIfExists(dir.resolve(CONTROL_POINTER));
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
        Path copy = dir.resolve(LIBRARY_FOLDER).resolve(resource.substring(resource.lastIndexOf('/') + 1));
        Files.createDirectories(copy.getParent());
        try (InputStream in = url.openStream()) {
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        return copy;
    }

    /**
     * One traced process's stream. Each armed window is written as a capture with the files beside it as it
     * arrives: the window opened with the hello (a process armed from its start) as {@code flagtrace-PID},
     * every window opened by an arm (on demand) as {@code flagtrace-PID-wN}.
     */
    private final class Connection {
        final SocketChannel channel;
        final Thread thread;
        private final Path dir;
        private final Map<Long, String> names = new LinkedHashMap<>();
        private final Map<String, String> hello = new LinkedHashMap<>();
        /** The windows closed, in order; the one open, or null. Guarded by this. */
        private final List<Window> windows = new ArrayList<>();
        private Window current;
        private int opened;
        private boolean ended;
        private long pid = -1;
        private volatile byte[] devices;
        /** The vendor id of the stream's buffers (0 before the first). */
        private int vendor;
        /** Buffers, ops or ticks that came with no window open (the library sends none: a later library's). */
        private long outside;
        /** When the stream ended, on this host's monotonic clock (System.nanoTime: CLOCK_MONOTONIC, the anchors' clock). */
        private long endedAtMonotonic;
        private String damage;
        /** Why {@link #finish} closed the stream while it was still open (the damage it leaves), or null. */
        private volatile String cut;
        /** What {@link #replay} found lost of this stream. */
        private CaptureLosses lost = CaptureLosses.NONE;

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
                    if (length < 0 || length > MAX_MESSAGE || h.getInt(4) != 0 || (pid < 0 && type != HELLO)) {
                        damage = "a damaged message (type " + type + ", " + length + " bytes)";
                        return;
                    }
                    byte[] payload = new byte[(int) length];
                    in.readFully(payload);
                    take(type, header, payload);
                }
            } catch (IOException | RuntimeException e) { // a broken or malformed stream: what came before it is kept
                if (damage == null) {
                    damage = cut != null ? cut : "the stream broke: " + e.getMessage();
                }
            } finally {
                endedAtMonotonic = System.nanoTime();
                synchronized (this) {
                    if (current != null) {
                        closeWindow(null);
                    }
                    ended = true;
                    notifyAll();
                }
                try {
                    channel.close();
                } catch (IOException e) {
                    // closing a stream already ended
                }
            }
        }

        private void take(int type, byte[] header, byte[] payload) throws IOException {
            ByteBuffer p = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
            Window w = current;
            boolean buffer = type > 0 && type < FLAGTRACE_TYPES;
            if (w == null && (buffer || type == OP || type == TICK || type == MARK)) {
                outside++;
                return;
            }
            if (buffer) { // a vendor's buffer: the .fltrbuf frame it already is
                if (vendor != 0 && vendor != type) {
                    throw new IOException("a buffer of vendor " + type + " in a stream of vendor " + vendor);
                }
                if (w.arriving != null && vendor == 0) {
                    w.arriving.processNames(Vendors.processNameEntries(type, key -> hello.get("env." + key)));
                }
                vendor = type;
                w.out.write(header);
                w.out.write(payload);
                w.buffers++;
                if (w.arriving != null) {
                    w.arriving.frame(type, payload);
                }
                return;
            }
            switch (type) {
                case HELLO -> {
                    parse(payload, hello);
                    synchronized (this) {
                        pid = number(hello, "pid");
                        if (hello.containsKey("window_start_ns")) { // armed from its start: window 1, named flagtrace-PID
                            openWindow(1, "flagtrace-" + pid, number(hello, "window_start_ns"), anchor(hello, "start"));
                        }
                        notifyAll();
                    }
                    helloed(this);
                }
                case WINDOW -> {
                    Map<String, String> fields = new LinkedHashMap<>();
                    parse(payload, fields);
                    int n = (int) number(fields, "window");
                    synchronized (this) {
                        if (current != null) { // a window opened while one is: the stream is not one the library writes
                            throw new IOException("window " + n + " opened while window " + current.number + " is open");
                        }
                        openWindow(n, "flagtrace-" + pid + "-w" + n, number(fields, "window_start_ns"), anchor(fields, "start"));
                        current.captureRange = fields.get("capture");
                        notifyAll();
                    }
                }
                case NAME -> {
                    String name = new String(payload, 8, payload.length - 8, StandardCharsets.UTF_8);
                    if (names.putIfAbsent(p.getLong(0), name) == null && w != null && w.arriving != null) {
                        w.arriving.name(p.getLong(0), tableText(name));
                    }
                }
                case OP -> {
                    HostOp op = TorchNvtxName.op(new String(payload, 32, payload.length - 32, StandardCharsets.UTF_8),
                            new ExternalId(p.getLong(0)), p.getLong(24), p.getLong(8), p.getLong(16));
                    w.ops.op(op);
                    w.lastTick = Math.max(w.lastTick, p.getLong(16)); // an op ended: the window holds it too
                    if (w.arriving != null) {
                        w.arriving.op(op);
                    }
                }
                case TICK -> {
                    w.lastTick = Math.max(w.lastTick, p.getLong(0));
                    if (w.arriving != null) {
                        w.arriving.tick(p.getLong(0));
                    }
                }
                case MARK -> {
                    HostMark mark = markOf(payload, p);
                    w.mark(mark);
                    w.lastTick = Math.max(w.lastTick, p.getLong(0)); // a mark made in the window: the window holds it too
                    if (w.arriving != null) {
                        w.arriving.mark(mark);
                    }
                }
                case END -> {
                    Map<String, String> end = new LinkedHashMap<>();
                    parse(payload, end);
                    synchronized (this) {
                        if (current != null) {
                            closeWindow(end);
                        }
                        notifyAll();
                    }
                }
                case DEVICES -> devices = payload; // written beside each window's capture; checked by the replay that reads it
                default -> { } // a message of a later library: skipped
            }
        }

        /** A mark message: u64 time, u64 thread, u64 the domain's length, the domain's bytes, the message's bytes. */
        private HostMark markOf(byte[] payload, ByteBuffer p) throws IOException {
            long domainLength = payload.length < 24 ? -1 : p.getLong(16);
            if (domainLength < 0 || domainLength > payload.length - 24) {
                throw new IOException("a damaged mark (" + payload.length + " bytes)");
            }
            int d = (int) domainLength;
            return new HostMark(new String(payload, 24 + d, payload.length - 24 - d, StandardCharsets.UTF_8),
                    d == 0 ? null : new String(payload, 24, d, StandardCharsets.UTF_8), pid, p.getLong(8), p.getLong(0));
        }

        private void openWindow(int number, String base, long start, ClockAnchor startAnchor) throws IOException {
            Window w = new Window(number, dir.resolve(base + ".fltrbuf"), start, startAnchor);
            w.out = new BufferedOutputStream(Files.newOutputStream(w.capture), 1 << 16);
            w.out.write("FLTRBUF1".getBytes(StandardCharsets.US_ASCII));
            w.ops = new OpsJsonlWriter(OpsJsonlWriter.besides(w.capture), start);
            current = w;
            opened++;
            if (journal == null && arrivingPermits.tryAcquire()) {
                w.arriving = new ArrivingReplay(w.capture, start, identity(), () -> {
                    byte[] now = devices;
                    w.devicesSeen = now;
                    return parseDevices(now, w.capture);
                }, ARRIVING_QUEUE_BYTES);
                names.forEach((handle, name) -> w.arriving.name(handle, tableText(name)));
                try {
                    w.replayed = arrivals.submit(() -> {
                        try {
                            return w.arrive();
                        } finally {
                            arrivingPermits.release();
                        }
                    });
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    arrivingPermits.release();
                    w.arriving = null; // run is closing: replayed at its close, as without
                }
            }
            windowOpened(this, w);
        }

        /** Who the process is, from its hello: rank, world, host and pid. */
        private ProcessIdentity identity() {
            Map<String, String> env = new LinkedHashMap<>();
            hello.forEach((k, v) -> {
                if (k.startsWith("env.")) {
                    env.put(k.substring(4), v);
                }
            });
            ProcessIdentity self = ProcessIdentity.ofThisProcess(env);
            return new ProcessIdentity(self.rank(), self.worldSize(), self.localRank(), self.localWorldSize(), self.host(), pid,
                    self.bootId());
        }

        /** The devices the stream sent (as its replay reads them from the file written beside the capture), or none. */
        private static List<org.flagos.trace.model.DeviceProperties> parseDevices(byte[] bytes, Path capture) {
            if (bytes == null) {
                return List.of();
            }
            try {
                return org.flagos.trace.ingest.DevicePropertiesFile.read(new java.io.ByteArrayInputStream(bytes),
                        CaptureSidecars.DEVICES.besides(capture).toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * Closes the window open: with its end message ({@code end}), or, the stream having ended without one, at
         * the stream's end (every record handed over ended before it: the start anchor turns this host's
         * monotonic clock into CUPTI's) or the last tick if later. Writes the files beside its capture.
         */
        private void closeWindow(Map<String, String> end) {
            Window w = current;
            current = null;
            w.end = end;
            windows.add(w);
            try {
                long windowEnd = end != null ? number(end, "window_end_ns") : Math.max(Math.max(w.start, w.lastTick),
                        w.startAnchor.traceNs() + (endedAtMonotonic - w.startAnchor.monotonicNs()));
                w.out.close();
                w.ops.close(windowEnd);
                if (w.marks != null) {
                    w.marks.finish();
                }
                Vendors.processNameEntries(vendor, key -> hello.get("env." + key)).forEach(names::putIfAbsent);
                try (var out = Files.newBufferedWriter(CaptureSidecars.NAMES.besides(w.capture), StandardCharsets.UTF_8)) {
                    for (var e : names.entrySet()) {
                        out.write("0x" + Long.toHexString(e.getKey()) + "\t" + tableText(e.getValue()) + "\n");
                    }
                }
                if (devices != null) {
                    Files.write(CaptureSidecars.DEVICES.besides(w.capture), devices);
                }
                ProcessIdentity identity = identity();
                List<ClockAnchor> anchors = new ArrayList<>(List.of(w.startAnchor));
                if (end != null) {
                    anchors.add(anchor(end, "stop"));
                }
                ProcessFactsFile.write(CaptureSidecars.PROCESS.besides(w.capture), new ProcessFacts(identity, anchors));
                Map<String, String> endFacts = w.endFacts();
                WindowEndFile.write(CaptureSidecars.WINDOW_END.besides(w.capture), endFacts);
                if (w.arriving != null) {
                    KernelNames table;
                    try {
                        table = KernelNameFile.read(CaptureSidecars.NAMES.besides(w.capture));
                    } catch (RuntimeException e) {
                        table = null; // the whole replay says why
                    }
                    byte[] written = devices;
                    w.arriving.close(new ArrivingReplay.Closing(windowEnd, anchors, endFacts, table, () -> w.devicesSeen != written));
                }
            } catch (IOException | RuntimeException e) {
                w.failure = e;
            }
            if (w.arriving != null) {
                if (w.failure != null) {
                    w.arriving.giveUp("the capture could not be written");
                }
                return; // its replay, running since the window opened, finishes now
            }
            try {
                w.replayed = replays.submit(() -> w.replay(w.said)); // its files are complete: the trace need not wait for the tree
            } catch (java.util.concurrent.RejectedExecutionException e) {
                w.failure = e; // run is closing (it failed): the capture stays, untraced; finish, if called, says so
            }
        }

        /** Replays each window's capture into its trace; the traces written. */
        List<Path> replay(PrintStream err) {
            List<Window> all;
            synchronized (this) {
                all = List.copyOf(windows);
            }
            int withoutCapture = 0;
            int damaged = 0;
            int notReplayed = 0;
            if (pid < 0) { // no hello: nothing says who it was
                err.println("flagtrace run: a process's stream ended before its hello (" + (damage != null ? damage : "nothing handed over")
                        + "): nothing of that process is in a trace");
                withoutCapture++;
            } else if (damage != null && all.isEmpty()) { // a window's trace names it; without one, this line does
                err.println("flagtrace run: process " + pid + "'s stream ended before any window (" + damage + ")");
                withoutCapture++;
            } else if (damage != null) {
                err.println("flagtrace run: process " + pid + "'s stream ended in window " + all.get(all.size() - 1).number + " ("
                        + damage + "): its trace holds what came before");
                damaged++;
            }
            if (outside > 0) {
                err.println("flagtrace run: process " + pid + " handed over " + outside + " messages outside any window (not in a trace)");
            }
            List<Path> traces = new ArrayList<>();
            for (Window w : all) {
                try {
                    Path trace = w.replayed();
                    if (trace != null) {
                        traces.add(trace);
                        if (w.end != null && "0".equals(w.end.get("device_records"))) {
                            withoutDeviceWork.add(trace);
                        }
                    } else {
                        notReplayed++; // its replay said why
                    }
                } catch (IOException | RuntimeException e) { // one window that cannot become a trace is one line
                    w.tell(err);
                    CliFailures.report(e, "flagtrace run: the stream of " + w.capture, err);
                    notReplayed++;
                    continue;
                }
                w.tell(err);
            }
            lost = new CaptureLosses(withoutCapture, damaged, notReplayed);
            return traces;
        }

        /** One armed window of the process: its capture and what closed it. */
        private final class Window {
            final int number;
            final Path capture;
            final long start;
            final ClockAnchor startAnchor;
            OutputStream out;
            OpsJsonlWriter ops;
            /** Its marks' file, made at its first mark: a window without marks has none. */
            MarksJsonlWriter marks;
            long buffers;
            /** The latest time the stream vouches for: a buffer's completion (sent before it) or an op's end. */
            long lastTick = -1;
            /** Its end message, or null: the stream ended with the window open. */
            Map<String, String> end;
            /** The capture range that opened it ({@code --capture-range}'s value), or null. */
            String captureRange;
            Exception failure;
            /** Its replay, submitted when it closed, or when it opened for one replayed as it arrives. */
            Future<Path> replayed;
            /** Its replay as it arrives, or null: replayed when it closes. */
            ArrivingReplay arriving;
            /** The devices' bytes the replay as it arrives read (the stream sends them before the first buffer). */
            volatile byte[] devicesSeen;
            /** What its replay said (the op table, what it wrote, its warnings), told on run's stderr by {@link #finish}. */
            private final ByteArrayOutputStream saidBytes = new ByteArrayOutputStream();
            final PrintStream said = new PrintStream(saidBytes, true, StandardCharsets.UTF_8);

            Window(int number, Path capture, long start, ClockAnchor startAnchor) {
                this.number = number;
                this.capture = capture;
                this.start = start;
                this.startAnchor = startAnchor;
            }

            void mark(HostMark mark) throws IOException {
                if (marks == null) {
                    marks = new MarksJsonlWriter(CaptureSidecars.MARKS.besides(capture));
                }
                marks.mark(mark);
            }

            /** The trace its replay wrote, once it has; null if the replay failed (said in one line). */
            Path replayed() throws IOException {
                if (replayed == null) {
                    throw new IOException("it was not replayed: flagtrace run was closing when the window closed; the capture is "
                            + capture + " (flagtrace replay turns it into its trace)");
                }
                try {
                    return replayed.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while its replay ran", e);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof IOException io) {
                        throw io;
                    }
                    if (e.getCause() instanceof RuntimeException r) {
                        throw r;
                    }
                    throw new IOException(e.getCause().getMessage(), e.getCause());
                }
            }

            /** Writes what its replay said onto {@code err}. */
            void tell(PrintStream err) {
                said.flush();
                err.write(saidBytes.toByteArray(), 0, saidBytes.size());
                err.flush();
            }

            /** The program's own CUPTI client that took CUPTI and closed the window, in words, or null. */
            String yielded() {
                String yielded = end != null ? end.get("yielded") : null;
                return yielded == null || yielded.matches("[A-Za-z]{1,64}") ? yielded : "a call it did not name";
            }

            /**
             * How the window ended: the trace's fields written after its events ({@code NAME.window-end.json} beside the
             * capture, which its replay reads).
             */
            Map<String, String> endFacts() {
                boolean stopped = end != null;
                String yielded = yielded();
                Map<String, String> facts = new LinkedHashMap<>();
                facts.put("flagtrace_run_end", yielded != null ? "yielded: the program's own CUPTI client took CUPTI (" + yielded + ")"
                        : stopped ? "stop" : "the process ended without a stop" + (damage != null ? " (" + damage + ")" : "")
                        + ": every buffer it handed over is here, ops still open are not");
                facts.put("flagtrace_run_buffers", Long.toString(buffers));
                facts.put("flagtrace_run_window", Integer.toString(number));
                if (captureRange != null) {
                    facts.put("flagtrace_run_capture_range", captureRange);
                }
                for (String key : List.of("buffers_dropped", "bytes_dropped", "records_dropped", "kernels_dropped", "memcpys_dropped",
                        "memsets_dropped", "ops_dropped", "names_dropped", "marks_dropped", "cupti_records_dropped", "device_records")) {
                    if (stopped && end.containsKey(key)) {
                        facts.put("flagtrace_run_" + key, Long.toString(number(end, key)));
                    }
                }
                return facts;
            }

            /** Its trace: {@code NAME.json} beside its capture {@code NAME.fltrbuf}. */
            Path trace() {
                String base = capture.getFileName().toString();
                return dir.resolve(base.substring(0, base.length() - ".fltrbuf".length()) + ".json");
            }

            /** Says that the program's own CUPTI client closed the window, when it did. */
            private void tellYielded(PrintStream err) {
                String yielded = yielded();
                if (yielded != null) {
                    err.println("flagtrace run: process " + pid + "'s own CUPTI client took CUPTI (" + yielded + "): its window"
                            + " closed there, and flagtrace stepped aside for the rest of the process");
                }
            }

            /**
             * Replays the window as it arrives into its trace, and says what its replay would say; if the result could differ
             * from the whole capture's replay, or the replay as it arrived failed, the capture is replayed whole instead.
             */
            Path arrive() throws IOException, InterruptedException {
                Path trace = trace();
                ArrivingReplay.Outcome outcome;
                try (AtomicOutput out = new AtomicOutput(trace)) {
                    outcome = arriving.run(out.stream());
                    if (outcome.replayWhole() == null) {
                        out.commit();
                    }
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException("flagtrace run is closing");
                }
                if (outcome.replayWhole() != null) {
                    said.println("flagtrace run: the window of process " + pid + " is replayed whole at its close ("
                            + outcome.replayWhole() + ")");
                    return replay(said);
                }
                tellYielded(said);
                CliContext context = new CliContext(said, said, false, Long.MAX_VALUE, -1);
                Sidecars.tell(context, capture, null, null, null);
                ReplayCommand.printResult(context, outcome.result(), trace, null, org.flagos.trace.report.TableLayout.COMPACT);
                return trace;
            }

            Path replay(PrintStream err) throws IOException {
                if (failure != null) {
                    throw new IOException("the capture could not be written: " + failure.getMessage(), failure);
                }
                tellYielded(err);
                Path trace = trace();
                List<String> args = new ArrayList<>(List.of("replay", capture.toString(), "-o", trace.toString()));
                if (journal != null) {
                    args.addAll(List.of("--journal", journal.resolve(trace.getFileName().toString().replaceFirst("\\.json$", "")).toString()));
                }
                // No progress bar: the replay runs beside the tree, and what it says is told later ({@link #tell}).
                int code = new FlagtraceCli(new CliContext(err, err, false, Long.MAX_VALUE, -1)).run(args.toArray(String[]::new));
                if (code != ExitCodes.OK) {
                    err.println("flagtrace run: the capture of process " + pid + " did not replay (exit " + code + "): " + capture);
                    return null;
                }
                return trace;
            }
        }

        /** A name as the name table holds it: one line, its tab the separator. */
        private static String tableText(String name) {
            return name.replace('\n', ' ').replace('\t', ' ');
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
