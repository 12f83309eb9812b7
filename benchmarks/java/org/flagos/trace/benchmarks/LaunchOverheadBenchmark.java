package org.flagos.trace.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.vendors.cupti.CuptiTracer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Live, NVIDIA only: what CUPTI arming costs a launch-bound loop, in µs per launch. One operation
 * is one 4-byte {@code cudaMemsetAsync} on the default stream (the GPU work is negligible, so a
 * GPU-bound workload cannot hide the cost); one invocation is {@value #LAUNCHES} of them and a
 * device synchronize. Answers "arm activity kinds at load or at session start" (the seed measured
 * RUNTIME armed from import at +22%, 10.56 to 12.88 µs/op):
 *
 * <ul>
 *   <li>{@code plain}: flagtrace never touched; the baseline.
 *   <li>{@code armed}: {@code Profiler.init()} before the first CUDA call with
 *       {@code flagtrace.cupti.deviceKindsAtInit=true}: CONCURRENT_KERNEL, MEMCPY, MEMSET armed at
 *       load (the seed's design); no session.
 *   <li>{@code runtimeAtInit}: the same with {@code flagtrace.cupti.armRuntimeAtInit=true}, i.e.
 *       RUNTIME armed at load too (the alternative design); no session.
 *   <li>{@code session}: init, then a session (RUNTIME, EXTERNAL_CORRELATION armed, records
 *       streaming into a trace under a temporary folder) active during warmup and measurement;
 *       each invocation runs inside one host op, as profiled work would.
 *   <li>{@code afterSession}: init, one session of {@value #PRIME_LAUNCHES} launches, closed;
 *       then measured: does disarming bring the loop back to {@code armed}?
 *   <li>{@code deferred}, {@code sessionDeferred}, {@code afterSessionDeferred}: the same three as
 *       shipped ({@code flagtrace.cupti.deviceKindsAtInit=false}): only the callbacks are registered
 *       at initialization and every kind is armed per session.
 * </ul>
 *
 * <p>CUPTI state is per process and its callbacks must be registered before the first CUDA
 * context, so each mode needs its own JVM: JMH forks once per parameter value ({@code @Fork(1)});
 * running with {@code -f 0} is refused. Without a GPU (CI) the trial setup throws an
 * {@link IllegalStateException} saying why, and JMH reports the error.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g"})
@State(Scope.Benchmark)
public class LaunchOverheadBenchmark {
    /** Launches per invocation. */
    static final int LAUNCHES = 10_000;
    /** Launches in the session that {@code afterSession} runs and closes before measuring. */
    static final int PRIME_LAUNCHES = 10_000;
    /** The switch CuptiTracer reads when its class initializes. */
    static final String ARM_RUNTIME_AT_INIT = "flagtrace.cupti.armRuntimeAtInit";
    /** The switch that defers kernel/memcpy/memset arming from initialization to sessions. */
    static final String DEVICE_KINDS_AT_INIT = "flagtrace.cupti.deviceKindsAtInit";

    /** The mode the first trial of this JVM set up: CUPTI's state cannot be reset for another. */
    private static String modeOfThisJvm;

    @Param({"plain", "armed", "runtimeAtInit", "session", "afterSession", "deferred", "sessionDeferred", "afterSessionDeferred"})
    public String mode;

    private CudaMemsetLoop loop;
    private ProfilerSession session;
    private Path traceDir;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        synchronized (LaunchOverheadBenchmark.class) {
            if (modeOfThisJvm != null && !modeOfThisJvm.equals(mode)) {
                throw new IllegalStateException("mode " + mode + " in a JVM already set up for " + modeOfThisJvm
                        + ": CUPTI state is per process, run every mode in its own fork (not -f 0)");
            }
            modeOfThisJvm = mode;
        }
        // flagtrace first (CUPTI must register before the first CUDA context), then CUDA.
        switch (mode) {
            case "plain":
                break;
            case "runtimeAtInit":
                System.setProperty(ARM_RUNTIME_AT_INIT, "true");
                System.setProperty(DEVICE_KINDS_AT_INIT, "true");
                initTracer();
                break;
            case "armed":
            case "session":
            case "afterSession":
                System.setProperty(ARM_RUNTIME_AT_INIT, "false");
                System.setProperty(DEVICE_KINDS_AT_INIT, "true");
                initTracer();
                break;
            case "deferred":
            case "sessionDeferred":
            case "afterSessionDeferred":
                System.setProperty(ARM_RUNTIME_AT_INIT, "false");
                System.setProperty(DEVICE_KINDS_AT_INIT, "false");
                initTracer();
                break;
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
        loop = CudaMemsetLoop.open(0);
        if (mode.startsWith("session") || mode.startsWith("afterSession")) {
            traceDir = Files.createTempDirectory("flagtrace-launch-overhead-");
            session = Profiler.start(SessionOptions.to(traceDir.resolve(mode + ".json")));
        }
        if (mode.startsWith("afterSession")) {
            try (OpScope op = session.op("prime")) {
                loop.launch(PRIME_LAUNCHES);
            }
            closeSession();
        }
    }

    private static void initTracer() {
        long t0 = System.nanoTime();
        DeviceTracer tracer = Profiler.init();
        long nanos = System.nanoTime() - t0;
        if (!tracer.available()) {
            throw new IllegalStateException("device tracer " + tracer.name() + " unavailable: " + tracer.unavailableReason());
        }
        String classInit = tracer instanceof CuptiTracer ? ", CuptiTracer init " + ((CuptiTracer) tracer).initNanos() / 1_000 + " µs" : "";
        System.out.println("[launch-overhead] tracer " + tracer.name() + " ready: Profiler.init() " + nanos / 1_000 + " µs"
                + classInit + ", " + ARM_RUNTIME_AT_INIT + "=" + Boolean.getBoolean(ARM_RUNTIME_AT_INIT));
    }

    @Benchmark
    @OperationsPerInvocation(LAUNCHES)
    public void memsetAsync() {
        ProfilerSession s = session;
        if (s == null) {
            loop.launch(LAUNCHES);
        } else {
            try (OpScope op = s.op("memsets")) {
                loop.launch(LAUNCHES);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try {
            closeSession();
        } finally {
            if (loop != null) {
                loop.close();
                loop = null;
            }
            deleteTraceDir();
        }
    }

    /** Closes the session (disarm, flush, write), reporting what it wrote. */
    private void closeSession() throws IOException {
        ProfilerSession s = session;
        if (s == null) {
            return;
        }
        session = null;
        long t0 = System.nanoTime();
        s.close();
        long closeMs = (System.nanoTime() - t0) / 1_000_000;
        Path trace = traceDir.resolve(mode + ".json");
        long bytes = Files.exists(trace) ? Files.size(trace) : -1;
        System.out.println("[launch-overhead] " + mode + " session closed in " + closeMs + " ms: " + s.events()
                + " trace events, " + bytes + " trace bytes, dropped by vendor " + s.tracer().droppedByVendor());
        for (String line : s.accounting().lines()) {
            System.out.println("[launch-overhead]   " + line);
        }
    }

    private void deleteTraceDir() {
        Path dir = traceDir;
        traceDir = null;
        if (dir == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            System.out.println("[launch-overhead] could not delete " + dir + ": " + e);
        }
    }
}
