package org.flagos.trace.session;

import org.flagos.trace.model.Accelerator;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.vendors.Vendors;

/**
 * The entry point of live profiling. Call {@link #init()} as early as possible, before the
 * program's first GPU call: CUPTI delivers buffers only when its callbacks were registered
 * before the first CUDA context was created (the seed's measured constraint).
 *
 * <pre>{@code
 * Profiler.init();                       // first thing in main
 * try (ProfilerSession session = Profiler.start(SessionOptions.to(Path.of("trace.json")))) {
 *     try (OpScope op = session.op("matmul")) {
 *         ...
 *     }
 * }
 * }</pre>
 */
public final class Profiler {
    private static volatile DeviceTracer tracer;

    /**
     * Selects and initializes this process's device tracer (once); returns it. When no device tracer
     * is available, says why in one line on stderr (the CPU side is still profiled).
     */
    public static DeviceTracer init() {
        return init(true);
    }

    /**
     * As {@link #init()}, without the line on stderr: for a caller that reports an unavailable tracer
     * itself ({@link DeviceTracer#unavailableReason()}).
     */
    public static DeviceTracer initQuietly() {
        return init(false);
    }

    private static DeviceTracer init(boolean sayWhenUnavailable) {
        DeviceTracer t = tracer;
        if (t == null) {
            synchronized (Profiler.class) {
                t = tracer;
                if (t == null) {
                    Accelerator accelerator = Vendors.detect();
                    t = Vendors.tracerFor(accelerator);
                    if (!t.available() && sayWhenUnavailable) {
                        System.err.println("flagtrace: no device activity (" + t.unavailableReason()
                                + "); CPU-side profiling continues");
                    }
                    Diagnostics.trace("profiler", "accelerator " + accelerator + ", tracer " + t.name());
                    tracer = t;
                    SessionWarmup.startIfWanted(t.available(), t.apiNames(), ProfilerSession.opSettleRecords(t));
                }
            }
        }
        return t;
    }

    /** Starts a session; only one may be active at a time in a process. */
    public static ProfilerSession start(SessionOptions options) {
        return ProfilerSession.open(init(), options);
    }

    /**
     * Starts a session on {@code tracer} rather than the one {@link #init()} selects: a tracer built
     * by hand, e.g. against a vendor library at a chosen path.
     */
    public static ProfilerSession start(DeviceTracer tracer, SessionOptions options) {
        return ProfilerSession.open(tracer, options);
    }

    /**
     * Starts a session driven by {@code session.step()} whose schedule says which steps are recorded,
     * one trace per cycle ({@link ScheduledSession}); only one session may be active at a time.
     */
    public static ScheduledSession start(ScheduleOptions options) {
        return ScheduledSession.open(init(), options);
    }

    /** As {@link #start(ScheduleOptions)}, on {@code tracer}. */
    public static ScheduledSession start(DeviceTracer tracer, ScheduleOptions options) {
        return ScheduledSession.open(tracer, options);
    }

    private Profiler() {
    }
}
