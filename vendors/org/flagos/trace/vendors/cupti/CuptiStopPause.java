package org.flagos.trace.vendors.cupti;

import java.util.concurrent.locks.LockSupport;

/**
 * The pause between disabling CUPTI's kinds at a stop and its forced flush. Flushing at once, while other threads
 * still launch, crashes CUPTI itself now and then: on the H200 (CUDA 13.0, 2026-12-06,
 * {@code benchmarks/native/cupti_teardown_repro.cu}, 8 threads launching, 40 sessions a run, cores saturated) the
 * forced flush right after the disable crashed 19 of 849 runs, the same flush 5 ms later 2 of 482. With no flush at
 * the stop (CUPTI's own periodic flush only) none of 332 runs crashed, but the stop then cannot know that the window's
 * records were delivered. The injected library of {@code flagtrace run} pauses the same 5 ms
 * ({@code native/inject/flagtrace_inject.c}, {@code STOP_PAUSE_NS}); a test holds the two equal.
 */
final class CuptiStopPause {
    /** The pause, in nanoseconds. */
    static final long NANOS = 5_000_000L;

    private CuptiStopPause() {
    }

    /** Parks the stopping thread for {@link #NANOS}, however often it is woken early. */
    static void pause() {
        long until = System.nanoTime() + NANOS;
        for (long left = NANOS; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
