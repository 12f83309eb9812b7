package org.flagos.trace.benchmarks;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A benchmark's trace events and trace bytes written, which JMH reports beside its score as rates per second
 * ({@code events}, {@code traceBytes}); a benchmark method takes it as a parameter and adds what each call wrote.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class EventCounters {
    public long events;
    public long traceBytes;

    @Setup(Level.Iteration)
    public void reset() {
        events = 0;
        traceBytes = 0;
    }
}
