package org.flagos.trace.model;

/** A program run inside a profiler session by {@code flagtrace record --workload NAME}. */
public interface Workload {
    String name();

    /** One line on what it does. */
    String description();

    /** Runs, marking its host ops through {@code ops}; the tracer was initialized before this is called. */
    void run(HostOpMarker ops) throws Exception;
}
