package org.flagos.trace.benchmarks;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
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
 * What an op's args and its stack cost the thread that opens and closes it, in ns per op: one
 * operation is one {@code session.op(...)} opened and closed, in a live session without a device
 * tracer (the CPU side only: what args and stacks add is host work, the same with a GPU), its
 * trace written to {@code /dev/null}.
 *
 * <ul>
 *   <li>{@code none}: {@code op("aten::mm")}, no args, no stack: the baseline.
 *   <li>{@code args}: {@code op("aten::mm", ARGS)} with args built once (torch's four input keys
 *       for two 256×256 float tensors, and one integer): the intended use.
 *   <li>{@code argsPerOp}: the same args built for every op (checked and encoded each time).
 *   <li>{@code stack8}, {@code stack32}: no args, the session records each op's innermost 8 or 32
 *       Java frames ({@code SessionOptions.withStack}); the benchmark's own stack is about 12 deep
 *       under JMH's frames, so 32 walks to the thread's root.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@State(Scope.Benchmark)
public class OpArgsBenchmark {
    private static final OpArgs ARGS = args();

    @Param({"none", "args", "argsPerOp", "stack8", "stack32"})
    public String mode;

    private ProfilerSession session;
    private OpArgs fixed;
    private boolean perOp;

    private static OpArgs args() {
        long[] shape = {256, 256};
        long[] strides = {256, 1};
        return OpArgs.builder().inputDims(shape, shape).inputStrides(strides, strides).inputTypes("float", "float")
                .concreteInputs("", "").add("flops", 33_554_432L).build();
    }

    @Setup(Level.Trial)
    public void setUp() {
        SessionOptions options = SessionOptions.to(Path.of("/dev/null"));
        if (mode.startsWith("stack")) {
            options = options.withStack(Integer.parseInt(mode.substring("stack".length())));
        }
        fixed = mode.equals("args") ? ARGS : null;
        perOp = mode.equals("argsPerOp");
        session = Profiler.start(options);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        session.close();
    }

    @Benchmark
    public long op() {
        OpArgs args = perOp ? args() : fixed;
        try (OpScope op = session.op("aten::mm", args)) {
            return op.externalId();
        }
    }
}
