package org.flagos.trace.session;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.flagos.trace.capture.CapturePipeline;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.Diagnostics;

/**
 * A session's flush barriers: while ops run and the tracer hands over nothing, asks it for what it
 * holds and then tells the walk that every record of a call made before that moment is in
 * ({@code RecordType.FLUSH_BARRIER}).
 *
 * <p>Why: the walk settles a host op once enough records have arrived after it (its clock is the
 * records), so an op that launched nothing, while nothing else arrives either (a data-loading or
 * CPU-only phase under an armed tracer), was held until the walk's capacity (2^18 ops) and then
 * settled early and counted, or at the close: on this VM 400,000 such ops made a 0.6-2.8 s close, and
 * with 8-frame stacks an {@code OpArgsBenchmark} fork ran out of its 1 GiB heap on the H200
 * (docs/benchmarks.md). With a barrier every period, such ops settle within a period of their end.
 *
 * <p>One daemon thread per session, started after the tracer and stopped (and joined) before the
 * tracer stops. Nothing here can fail the capture: a failure is reported once and the barriers stop.
 */
final class SettleBarrier implements Runnable {
    /** Milliseconds between barriers ({@code -Dflagtrace.settleBarrierMs}; 0: none). */
    static final String PERIOD_PROPERTY = "flagtrace.settleBarrierMs";
    /** How long before a barrier an op that launched something must have ended to settle at it ({@code -Dflagtrace.barrierBoundLagMs}). */
    static final String BOUND_LAG_PROPERTY = "flagtrace.barrierBoundLagMs";
    /**
     * The largest either setting may be: one day. A longer period is no barrier in practice, and the
     * lag is multiplied into nanoseconds, which must not overflow (a day is 8.64e13 ns).
     */
    static final long MAX_MS = 86_400_000L;

    /** The period between barriers in ms ({@value #PERIOD_PROPERTY}, 100 unless set; 0: none); refused when out of bounds. */
    static long periodMs() {
        return millis(PERIOD_PROPERTY, 100);
    }

    /** The bound lag in ns ({@value #BOUND_LAG_PROPERTY} in ms, 1,000 unless set); refused when out of bounds. */
    static long boundLagNs() {
        return millis(BOUND_LAG_PROPERTY, 1_000) * 1_000_000L;
    }

    /**
     * The setting {@code -Dname} in whole milliseconds, 0 to {@value #MAX_MS}, or {@code fallback} when it
     * is not set; anything else is refused in one line naming the setting (not read as the default,
     * as {@code Long.getLong} would).
     */
    static long millis(String name, long fallback) {
        String text = System.getProperty(name);
        if (text == null) {
            return fallback;
        }
        long ms;
        try {
            ms = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(refusal(name, text));
        }
        if (ms < 0 || ms > MAX_MS) {
            throw new IllegalArgumentException(refusal(name, text));
        }
        return ms;
    }

    private static String refusal(String name, String text) {
        return "-D" + name + "=" + text + ": expected whole milliseconds from 0 to " + MAX_MS + " (one day)";
    }

    private final DeviceTracer tracer;
    private final CapturePipeline pipeline;
    private final LongSupplier clock;
    private final AtomicLong opsOpened;
    private final long periodMs;
    private final Thread thread;
    private volatile boolean running = true;
    private long barriers;
    private long flushesRefused;

    private SettleBarrier(DeviceTracer tracer, CapturePipeline pipeline, LongSupplier clock, AtomicLong opsOpened, long periodMs) {
        this.tracer = tracer;
        this.pipeline = pipeline;
        this.clock = clock;
        this.opsOpened = opsOpened;
        this.periodMs = periodMs;
        this.thread = new Thread(this, "flagtrace-settle-barrier");
        thread.setDaemon(true);
    }

    /**
     * Whether a session of {@code tracer} gets barriers every {@code periodMs}; when it does, the
     * pipeline is told before the tracer starts (the walk then remembers the ops barriers settle).
     */
    static boolean prepare(DeviceTracer tracer, CapturePipeline pipeline, long periodMs, long boundLagNs) {
        if (!wanted(tracer, periodMs)) {
            return false;
        }
        pipeline.barrierBoundLag(boundLagNs);
        return true;
    }

    private static boolean wanted(DeviceTracer tracer, long periodMs) {
        return periodMs > 0 && tracer.available() && tracer.buffersDelivered() >= 0;
    }

    /**
     * Starts barriers for a session of {@code tracer} (already started, {@link #prepare}d) every
     * {@code periodMs}, or returns null when there will be none: no period, or a tracer that cannot
     * flush mid-session (it does not count its buffers).
     *
     * @param clock     the session's host clock, the one its ops' times are read from
     * @param opsOpened the ops opened in the session so far
     */
    static SettleBarrier start(DeviceTracer tracer, CapturePipeline pipeline, LongSupplier clock, AtomicLong opsOpened, long periodMs) {
        if (!wanted(tracer, periodMs)) {
            return null;
        }
        SettleBarrier barrier = new SettleBarrier(tracer, pipeline, clock, opsOpened, periodMs);
        barrier.thread.start();
        return barrier;
    }

    @Override
    public void run() {
        long ops = opsOpened.get();
        long buffers = tracer.buffersDelivered();
        try {
            while (running) {
                Thread.sleep(periodMs);
                if (!running) {
                    return;
                }
                long opsNow = opsOpened.get();
                long buffersNow = tracer.buffersDelivered();
                // Records arriving on their own settle ops by the walk's record clock: no flush needed.
                if (opsNow != ops && buffersNow == buffers) {
                    long at = clock.getAsLong();
                    if (tracer.flush()) {
                        pipeline.publishFlushBarrier(at);
                        barriers++;
                    } else {
                        flushesRefused++;
                    }
                    buffersNow = tracer.buffersDelivered(); // what the flush handed over is not news next period
                }
                ops = opsNow;
                buffers = buffersNow;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) { // never the capture's failure: ops then wait for records, as without barriers
            Diagnostics.warn("session", "flush barriers stopped: " + e);
        }
    }

    /** Stops the barriers and waits for the thread: no barrier is published after this returns. */
    void stop() {
        running = false;
        thread.interrupt();
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (Diagnostics.enabled()) {
            Diagnostics.trace("session", "flush barriers: " + barriers + " published, " + flushesRefused + " flushes refused");
        }
    }
}
