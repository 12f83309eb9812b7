package org.flagos.trace.capture;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpSource;
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
 * {@link #close}; one thread calls {@link #run}. Bounded: past what the replay may hold waiting to be decoded it gives up
 * and holds nothing more.
 *
 * <p>Its parts, in this package: what its queues share, the lock, the bound, the tick, the close and the one way to wait
 * ({@code Arrivals}); the frames ({@code ArrivingFrames}); the ops and the marks ({@code ArrivingOps},
 * {@code ArrivingMarks}, each over an {@code ArrivingQueue}); the kernel names it answered ({@code ArrivingNames}).
 */
public final class ArrivingReplay {
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

    private final Path capture;
    private final long windowStartNs;
    private final ProcessIdentity identity;
    private final Supplier<List<DeviceProperties>> devices;
    private final Arrivals arrivals;
    private final ArrivingFrames frames;
    private final ArrivingOps ops;
    private final ArrivingMarks marks;
    private final ArrivingNames names = new ArrivingNames();

    // The replay's thread only.
    /** The replay's window filter, once it finished: what it kept is checked against the window's end. */
    private org.flagos.trace.stages.CaptureWindowFilter window;
    /** The first reason the result may differ from the whole capture's replay; null while none. */
    private String spoiled;

    /**
     * @param capture       the capture being written (its name names the trace and its notes, as its replay's does)
     * @param windowStartNs the window's start (its ops file's first line)
     * @param identity      who captured (the trace's header); null: nobody said
     * @param devices       the devices, read when the first frame arrives (they come before it)
     * @param maxQueuedBytes what may wait to be decoded before the replay gives up (frames beyond a quarter of it are
     *                      taken to come before the first op: checked at the end)
     */
    public ArrivingReplay(Path capture, long windowStartNs, ProcessIdentity identity, Supplier<List<DeviceProperties>> devices,
                          long maxQueuedBytes) {
        this.capture = capture;
        this.windowStartNs = windowStartNs;
        this.identity = identity;
        this.devices = devices;
        this.arrivals = new Arrivals(maxQueuedBytes);
        this.frames = new ArrivingFrames(arrivals);
        this.ops = new ArrivingOps(arrivals, windowStartNs, maxQueuedBytes / 4, this::spoil);
        this.marks = new ArrivingMarks(arrivals, this::spoil);
    }

    /** The name table's entries a vendor derives from the process (before the first frame), under those the stream names. */
    public void processNames(Map<Long, String> entries) {
        names.fromProcess(entries);
    }

    /** A vendor's buffer, as the capture holds it; {@code payload} is kept, not copied. */
    public void frame(int vendor, byte[] payload) {
        frames.add(vendor, payload);
    }

    /** An op, as the ops file holds it. */
    public void op(HostOp op) {
        ops.add(op);
    }

    /** A mark, as the marks file holds it. */
    public void mark(HostMark mark) {
        marks.add(mark);
    }

    /** A name of the table, as the table holds it (its first naming of a handle stands). */
    public void name(long handle, String name) {
        names.received(handle, name);
    }

    /** A buffer completed at {@code ns}: every op and mark made before was sent before this. */
    public void tick(long ns) {
        arrivals.tick(ns);
    }

    /** The window closed: nothing more arrives. */
    public void close(Closing closing) {
        arrivals.close(closing);
    }

    /** Stops the replay (the receiving side failed, or run is closing): it holds nothing more; its capture is replayed whole. */
    public void giveUp(String why) {
        arrivals.giveUp(why);
    }

    /**
     * Replays the window as it arrives into {@code out}: the result once it closed and nothing spoiled it, else why the
     * capture is to be replayed whole (what was written to {@code out} is then not the trace). Waits for the first frame.
     */
    public Outcome run(java.io.OutputStream out) throws InterruptedException {
        try {
            if (!frames.awaitFirst()) {
                return Outcome.whole("no buffer arrived");
            }
            CaptureReplay.Request request = new CaptureReplay.Request.Builder().file(capture).source(capture.toString())
                    .traceName(capture.getFileName().toString()).ops(ops.source()).kernelNames(names)
                    .devices(devices.get()).process(identity == null ? null : new ProcessFacts(identity, List.of())).build();
            CaptureReplay.Result result = CaptureReplay.run(request, frames, null, marks, (pipeline, window) -> {
                Closing c = arrivals.closing();
                this.window = window;
                window.windowEnd(c.windowEndNs());
                pipeline.accounting().clockAnchors(c.anchors());
                pipeline.accounting().endFacts(c.endFacts());
            }, out, null);
            String why = spoiledBy(result);
            return why == null ? new Outcome(result, null) : Outcome.whole(why);
        } catch (Arrivals.GivenUp e) {
            return Outcome.whole(e.getMessage());
        } catch (RuntimeException e) { // a damaged buffer, a failed write: the whole replay says it in its words
            return Outcome.whole("the replay as it arrived failed: " + AtomicOutput.describe(e));
        }
    }

    /** Frames waiting to be decoded (a test waits for the replay to have taken every frame). */
    int framesWaiting() {
        return frames.waiting();
    }

    /** Why the result is not the whole capture's replay, or null when it is. */
    private String spoiledBy(CaptureReplay.Result result) {
        if (spoiled != null) {
            return spoiled;
        }
        Closing c = arrivals.closing();
        long lateOps = arrivals.locked(ops::notTaken);
        if (lateOps != 0) {
            return lateOps + " ops arrived after the replay took the ops to have ended";
        }
        long lateMarks = arrivals.locked(marks::notTaken);
        if (lateMarks != 0) {
            return lateMarks + " marks arrived after the replay took the marks to have ended";
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
        // the whole replay notes these in its trace (its ops' warnings), which this one cannot: it is replayed whole
        if (c.windowEndNs() == windowStartNs) {
            return HostOpSource.EMPTY_WINDOW;
        }
        if (ops.latestStartNs() > c.windowEndNs()) {
            return "ops lie outside the window";
        }
        if (ops.idsUnchecked()) {
            return "the ops' ids were too scattered to check as they arrived";
        }
        if (c.writtenNames() == null) {
            return "the name table written at the close could not be read back";
        }
        if (!names.answeredAs(c.writtenNames())) {
            return "a kernel name arrived after a buffer that names it";
        }
        return null;
    }

    private void spoil(String why) {
        if (spoiled == null) {
            spoiled = why;
        }
    }
}
