package org.flagos.trace.model;

/** A program run inside a profiler session by {@code flagtrace record --workload NAME}. */
public interface Workload {
    String name();

    /** One line on what it does. */
    String description();

    /** Runs, marking its host ops through {@code ops}; the tracer was initialized before this is called. */
    void run(HostOpMarker ops) throws Exception;

    /** Whether {@link #runSteps} runs this workload in steps; false: it runs in one piece only ({@link #run}). */
    default boolean runsInSteps() {
        return false;
    }

    /**
     * Runs in {@code steps} steps, as a training loop under torch's step schedule: its set-up first,
     * then for each step the step's work inside one op, then {@code step} (torch's {@code prof.step()}:
     * a scheduled session's {@code step()}), then its tear-down. Set-up and tear-down fall in the
     * first step and after the last one: a schedule that waits at least one step leaves them out.
     *
     * @throws UnsupportedOperationException when the workload has no steps ({@link #runsInSteps()} false)
     * @throws IllegalArgumentException      when {@code steps} is less than 1
     */
    default void runSteps(HostOpMarker ops, Runnable step, int steps) throws Exception {
        throw new UnsupportedOperationException("workload " + name() + " runs in one piece and has no steps");
    }
}
