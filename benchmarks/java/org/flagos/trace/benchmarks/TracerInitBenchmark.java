package org.flagos.trace.benchmarks;

import java.util.concurrent.TimeUnit;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.vendors.cupti.CuptiTracer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Live, NVIDIA only: the one-time cost of loading and arming the tracer, i.e. the first
 * {@code Profiler.init()} of a process (class loading, JavaCPP loading libcudart and libcupti,
 * registering the buffer callbacks, preallocating buffers, arming kernel/memcpy/memset, and
 * RUNTIME too when {@code armRuntimeAtInit}). Only the first call in a JVM does that work, so each
 * measurement is one call in a fresh fork: single shot, no warmup, five forks (plus one discarded
 * warmup fork, which also fills JavaCPP's library cache on a fresh machine). Each fork also prints
 * CuptiTracer's own measure of its class initialization. Without a GPU the call throws an
 * {@link IllegalStateException} with the tracer's reason, and JMH reports the error.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1, batchSize = 1)
@Fork(value = 5, warmups = 1, jvmArgsAppend = {"-Xmx1g"})
@State(Scope.Benchmark)
public class TracerInitBenchmark {
    @Param({"false", "true"})
    public boolean armRuntimeAtInit;

    @Setup(Level.Trial)
    public void property() {
        System.setProperty(LaunchOverheadBenchmark.ARM_RUNTIME_AT_INIT, Boolean.toString(armRuntimeAtInit));
    }

    @Benchmark
    public DeviceTracer init() {
        DeviceTracer tracer = Profiler.init();
        if (!tracer.available()) {
            throw new IllegalStateException("device tracer " + tracer.name() + " unavailable: " + tracer.unavailableReason());
        }
        return tracer;
    }

    @TearDown(Level.Trial)
    public void report() {
        DeviceTracer tracer = Profiler.init(); // already initialized: returns the same tracer
        if (tracer instanceof CuptiTracer && tracer.available()) {
            System.out.println("[tracer-init] CuptiTracer class init " + ((CuptiTracer) tracer).initNanos() / 1_000
                    + " µs (armRuntimeAtInit=" + armRuntimeAtInit + ")");
        }
    }
}
