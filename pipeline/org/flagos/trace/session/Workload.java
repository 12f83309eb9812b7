package org.flagos.trace.session;

/** A program run inside a profiler session by {@code flagtrace record --workload NAME}. */
public interface Workload {
    String name();

    /** One line on what it does. */
    String description();

    /** Runs inside {@code session}; the tracer was initialized before this is called. */
    void run(ProfilerSession session) throws Exception;
}
