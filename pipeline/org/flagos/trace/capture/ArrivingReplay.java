package org.flagos.trace.capture;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.flagos.trace.ingest.FrameCursor;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.HostMarkCursor;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpCursor;
import org.flagos.trace.ingest.HostOpSource;
import org.flagos.trace.ingest.IdRuns;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.ProcessFacts;
import org.flagos.trace.model.ProcessIdentity;

/**
 * A capture replayed while it arrives ({@code flagtrace run}'s stream of one window), so its trace is complete moments after
 * the window closes rather than a whole replay later. It runs the one replay path ({@link CaptureReplay}) over the frames,
 * ops and marks as they come, and its trace is the replay's of the finished capture, byte for byte, or it is not used:
 * where the replay's decisions depend on what had not arrived yet, it waits, and where it had to go on before knowing, it
 * checks at the end and says why the capture must be replayed whole instead ({@link Outcome#replayWhole()}).
 *
 * <p>What it relies on, and checks: an op or mark goes into the ring once a record ending at or after it was published,
 * through a lookahead in arrival order ({@link HostOpMerge}); a tick (the time a buffer completed, sent before the buffer)
 * vouches that every op and mark made before it was sent before it, so records ending by the tick need no later one; an op
 * arriving after the merge went on without it, ending by then, spoils the replay. The window's end is known at the close:
 * the window keeps what it kept if no record kept ends after it. Kernel names are looked up as they arrived; the table
 * written at the close must name each the same. The first op is awaited before the first record, as a replay publishes it
 * (up to a quarter of what it may hold waiting; an op arriving later spoils it).
 *
 * <p>The receiving thread calls {@link #frame}, {@link #op}, {@link #mark}, {@link #name}, {@link #tick} and finally
 * {@link #close}; one thread calls {@link #run}. Bounded: past what the replay may hold waiting waiting to be decoded it gives up
 * and holds nothing more.
 */
public final class ArrivingReplay {
    /** What a queued op or mark is counted as, against what the replay may hold waiting. */
    private static final long ITEM_BYTES = 256;

    /**
     * What the window's close tells: its end, the anchors, how it ended, the name table written, and whether the devices
     * written differ from those the replay read when its first frame came (asked once the replay has read them).
     */
    public record Closing(long windowEndNs, List<ClockAnchor> anchors, Map<String, String> endFacts, KernelNames writtenNames,
                          java.util.function.BooleanSupplier devicesChanged) {
    }

    /** The replay's result, or why the capture is to be replayed whole instead (the trace then not written). */
    public record Outcome(CaptureReplay.Result result, String replayWhole) {
        static Outcome whole(String why) {
            return new Outcome(null, why);
        }
    }

    /** Thrown into the replay's thread when the replay gave up: nothing it wrote is kept. */
    private static final class GivenUp extends RuntimeException {
        GivenUp(String why) {
            super(why, null, false, false);
        }
    }

    private final Path capture;
    /** Frames, ops and marks waiting to be decoded beyond this: the replay fell behind and gives up (the capture is whole on disk). */
    private final long maxQueuedBytes;
    /** Frames that wait for the first op beyond this (a quarter of the above): the ops are taken to start later (checked at the end). */
    private final long firstOpWaitBytes;
    private final long windowStartNs;
    private final ProcessIdentity identity;
    private final Supplier<List<DeviceProperties>> devices;
    private final ArrivingNames names = new ArrivingNames();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<byte[]> frames = new ArrayDeque<>();
    private final ArrayDeque<Integer> vendors = new ArrayDeque<>();
    private final ArrayDeque<HostOp> ops = new ArrayDeque<>();
    private final ArrayDeque<HostMark> marks = new ArrayDeque<>();
    private long tick = Long.MIN_VALUE;
    private long queuedBytes;
    private long opsReceived;
    private long marksReceived;
    private boolean closed;
    private String givenUp;
    private Closing closing;

    // The replay's thread only.
    private long opsTaken;
    private long marksTaken;
    private long opsNotYetNs = Long.MIN_VALUE;
    private long marksNotYetNs = Long.MIN_VALUE;
    private long latestOpStartNs = Long.MIN_VALUE;
    private final IdRuns ids = new IdRuns();
    /** The replay's window filter, once it finished: what it kept is checked against the window's end. */
    private org.flagos.trace.stages.CaptureWindowFilter window;
    /** The first reason the result may differ from the whole capture's replay; null while none. */
    private String spoiled;

    /**
     * @param capture       the capture being written (its name names the trace and its notes, as its replay's does)
     * @param windowStartNs the window's start (its ops file's first line)
     * @param identity      who captured (the trace's header); null: nobody said
     * @param devices       the devices, read when the first frame arrives (they come before it)
     * @param maxQueuedBytes what may wait to be decoded before the replay gives up
     */
    public ArrivingReplay(Path capture, long windowStartNs, ProcessIdentity identity, Supplier<List<DeviceProperties>> devices,
                          long maxQueuedBytes) {
        this.capture = capture;
        this.maxQueuedBytes = maxQueuedBytes;
        this.firstOpWaitBytes = maxQueuedBytes / 4;
        this.windowStartNs = windowStartNs;
        this.identity = identity;
        this.devices = devices;
    }

    /** The name table's entries a vendor derives from the process (before the first frame), under those the stream names. */
    public void processNames(Map<Long, String> entries) {
        names.fromProcess = Map.copyOf(entries);
    }

    /** A vendor's buffer, as the capture holds it; {@code payload} is kept, not copied. */
    public void frame(int vendor, byte[] payload) {
        queue(() -> {
            frames.add(payload);
            vendors.add(vendor);
            return (long) payload.length;
        });
    }

    /** An op, as the ops file holds it. */
    public void op(HostOp op) {
        queue(() -> {
            ops.add(op);
            opsReceived++;
            return ITEM_BYTES;
        });
    }

    /** A mark, as the marks file holds it. */
    public void mark(HostMark mark) {
        queue(() -> {
            marks.add(mark);
            marksReceived++;
            return ITEM_BYTES;
        });
    }

    /** A name of the table, as the table holds it (its first naming of a handle stands). */
    public void name(long handle, String name) {
        names.received.putIfAbsent(handle, name);
    }

    /** A buffer completed at {@code ns}: every op and mark made before was sent before this. */
    public void tick(long ns) {
        lock.lock();
        try {
            if (ns > tick) {
                tick = ns;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The window closed: nothing more arrives. */
    public void close(Closing closing) {
        lock.lock();
        try {
            this.closing = Objects.requireNonNull(closing, "closing");
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Stops the replay (the receiving side failed, or run is closing): it holds nothing more; its capture is replayed whole. */
    public void giveUp(String why) {
        lock.lock();
        try {
            giveUpLocked(why);
        } finally {
            lock.unlock();
        }
    }

    private void giveUpLocked(String why) {
        if (givenUp == null) {
            givenUp = why;
            frames.clear();
            vendors.clear();
            ops.clear();
            marks.clear();
            queuedBytes = 0;
        }
        changed.signalAll();
    }

    private void queue(Supplier<Long> add) {
        lock.lock();
        try {
            if (givenUp != null || closed) {
                return;
            }
            queuedBytes += add.get();
            if (queuedBytes > maxQueuedBytes) {
                giveUpLocked("the replay fell " + (queuedBytes >> 20) + " MB behind the stream");
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Replays the window as it arrives into {@code out}: the result once it closed and nothing spoiled it, else why the
     * capture is to be replayed whole (what was written to {@code out} is then not the trace). Waits for the first frame.
     */
    public Outcome run(java.io.OutputStream out) throws InterruptedException {
        Frames cursor = new Frames();
        try {
            if (!cursor.awaitFirst()) {
                return Outcome.whole(givenUp != null ? givenUp : "no buffer arrived");
            }
            CaptureReplay.Request request = new CaptureReplay.Request.Builder().file(capture).source(capture.toString())
                    .traceName(capture.getFileName().toString()).ops(new Ops()).kernelNames(names)
                    .devices(devices.get()).process(identity == null ? null : new ProcessFacts(identity, List.of())).build();
            CaptureReplay.Result result = CaptureReplay.run(request, cursor, null, new Marks(), (pipeline, window) -> {
                Closing c = closing();
                this.window = window;
                window.windowEnd(c.windowEndNs());
                pipeline.accounting().clockAnchors(c.anchors());
                pipeline.accounting().endFacts(c.endFacts());
            }, out, null);
            String why = spoiledBy(result);
            return why == null ? new Outcome(result, null) : Outcome.whole(why);
        } catch (GivenUp e) {
            return Outcome.whole(e.getMessage());
        } catch (RuntimeException e) { // a damaged buffer, a failed write: the whole replay says it in its words
            return Outcome.whole("the replay as it arrived failed: " + AtomicOutput.describe(e));
        }
    }

    /** Frames waiting to be decoded (a test waits for the replay to have taken every frame). */
    int framesWaiting() {
        lock.lock();
        try {
            return frames.size();
        } finally {
            lock.unlock();
        }
    }

    private Closing closing() {
        lock.lock();
        try {
            return closing;
        } finally {
            lock.unlock();
        }
    }

    /** Why the result is not the whole capture's replay, or null when it is. */
    private String spoiledBy(CaptureReplay.Result result) {
        if (spoiled != null) {
            return spoiled;
        }
        Closing c = closing();
        lock.lock();
        try {
            if (opsReceived != opsTaken) {
                return (opsReceived - opsTaken) + " ops arrived after the replay took the ops to have ended";
            }
            if (marksReceived != marksTaken) {
                return (marksReceived - marksTaken) + " marks arrived after the replay took the marks to have ended";
            }
        } finally {
            lock.unlock();
        }
        if (window.latestKeptEndNs() > c.windowEndNs()) {
            return "a record kept ends at " + window.latestKeptEndNs() + ", after the window's end " + c.windowEndNs();
        }
        if (c.devicesChanged().getAsBoolean()) {
            return "the devices changed after the first buffer";
        }
        if (result.truncated()) {
            return "the frames stopped early";
        }
        if (latestOpStartNs > c.windowEndNs() || c.windowEndNs() == windowStartNs) {
            return "ops lie outside the window"; // the whole replay warns about them first
        }
        if (ids.givenUp() > 0) {
            return "the ops' ids were too scattered to check as they arrived";
        }
        if (c.writtenNames() == null) {
            return "the name table written at the close could not be read back";
        }
        for (Map.Entry<Long, String> e : names.looked.entrySet()) {
            if (!Objects.equals(e.getValue() == ArrivingNames.NONE ? null : e.getValue(), c.writtenNames().lookup(e.getKey()))) {
                return "a kernel name arrived after a buffer that names it";
            }
        }
        return null;
    }

    private void spoil(String why) {
        if (spoiled == null) {
            spoiled = why;
        }
    }

    /** Waits for a change; the replay gives up with the stream's reason. */
    private void await() throws GivenUp {
        if (givenUp != null) {
            throw new GivenUp(givenUp);
        }
        try {
            changed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GivenUp("interrupted: flagtrace run is closing");
        }
        if (givenUp != null) {
            throw new GivenUp(givenUp);
        }
    }

    /** The frames as they arrive. */
    private final class Frames implements FrameCursor {
        private ByteBuffer payload;
        private int vendor;
        private long read = 8; // the magic

        /** Waits for the first frame: false when the window closed (or the replay gave up) without one. */
        boolean awaitFirst() {
            lock.lock();
            try {
                while (frames.isEmpty() && !closed) {
                    await();
                }
                return !frames.isEmpty();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public boolean next() {
            lock.lock();
            try {
                while (frames.isEmpty() && !closed) {
                    await();
                }
                if (givenUp != null) {
                    throw new GivenUp(givenUp);
                }
                if (frames.isEmpty()) {
                    return false;
                }
                byte[] bytes = frames.poll();
                vendor = vendors.poll();
                queuedBytes -= bytes.length;
                payload = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
                read += 16 + bytes.length;
                return true;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public int vendor() {
            return vendor;
        }

        @Override
        public ByteBuffer payload() {
            return payload;
        }

        @Override
        public long bytesRead() {
            return read;
        }

        @Override
        public String truncation() {
            return null;
        }
    }

    /** The ops as they arrive: the window's start known, its end the close's (the window filter learns it then). */
    private final class Ops implements HostOpSource, HostOpCursor {
        @Override
        public long windowStartNs() {
            return windowStartNs;
        }

        @Override
        public long windowEndNs() {
            return Long.MAX_VALUE;
        }

        @Override
        public List<String> warnings() {
            return List.of();
        }

        @Override
        public HostOpCursor cursor() {
            return this;
        }

        /** The first ops, before any record: awaited, as far as {@link #firstOpWaitBytes} of frames. */
        @Override
        public HostOp next() {
            lock.lock();
            try {
                while (ops.isEmpty() && !closed && queuedBytes <= firstOpWaitBytes) {
                    await();
                }
                if (givenUp != null) {
                    throw new GivenUp(givenUp);
                }
                if (ops.isEmpty()) {
                    // the ops are taken to come after the first records: one arriving later is counted at the end
                    return null;
                }
                return take();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public HostOp next(long endingByNs) {
            lock.lock();
            try {
                while (true) {
                    if (givenUp != null) {
                        throw new GivenUp(givenUp);
                    }
                    if (!ops.isEmpty()) {
                        return take();
                    }
                    if (closed) {
                        return null;
                    }
                    if (tick >= endingByNs) {
                        opsNotYetNs = Math.max(opsNotYetNs, endingByNs);
                        return NOT_YET;
                    }
                    await();
                }
            } finally {
                lock.unlock();
            }
        }

        private HostOp take() {
            HostOp op = ops.poll();
            queuedBytes -= ITEM_BYTES;
            opsTaken++;
            if (op.endNs() <= opsNotYetNs) {
                spoil("an op ending at " + op.endNs() + " arrived after records ending at " + opsNotYetNs + " went on without it");
            }
            if (!ids.add(op.externalId().value())) {
                spoil("two ops share the External id " + op.externalId().value());
            }
            if (op.endNs() < windowStartNs) {
                spoil("ops lie outside the window");
            }
            latestOpStartNs = Math.max(latestOpStartNs, op.startNs());
            return op;
        }

        @Override
        public void close() {
        }
    }

    /** The marks as they arrive. */
    private final class Marks implements HostMarkCursor {
        @Override
        public HostMark next() {
            return next(Long.MAX_VALUE);
        }

        @Override
        public HostMark next(long byNs) {
            lock.lock();
            try {
                while (true) {
                    if (givenUp != null) {
                        throw new GivenUp(givenUp);
                    }
                    if (!marks.isEmpty()) {
                        HostMark mark = marks.poll();
                        queuedBytes -= ITEM_BYTES;
                        marksTaken++;
                        if (mark.tsNs() <= marksNotYetNs) {
                            spoil("a mark at " + mark.tsNs() + " arrived after records ending at " + marksNotYetNs + " went on without it");
                        }
                        return mark;
                    }
                    if (closed) {
                        return null;
                    }
                    if (tick >= byNs) {
                        marksNotYetNs = Math.max(marksNotYetNs, byNs);
                        return NOT_YET;
                    }
                    await();
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void close() {
        }
    }

    /**
     * The kernel names as they arrived, each handle's answer kept as first given, so that the table written at the close
     * can be held to every answer.
     */
    private static final class ArrivingNames implements KernelNames {
        static final String NONE = new String("(none)");
        final Map<Long, String> received = new ConcurrentHashMap<>();
        volatile Map<Long, String> fromProcess = Map.of();
        final Map<Long, String> looked = new ConcurrentHashMap<>();

        @Override
        public String lookup(long handle) {
            String known = looked.get(handle);
            if (known == null) {
                String name = received.get(handle);
                String answer = name != null ? name : fromProcess.getOrDefault(handle, NONE);
                known = looked.computeIfAbsent(handle, h -> answer);
            }
            return known == NONE ? null : known;
        }
    }
}
