package org.flagos.trace.session;

import java.util.concurrent.TimeUnit;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The two pieces of work args and stacks add to opening an op, alone, without a session and its
 * pipeline thread competing for the cores: walking the stack ({@link OpStacks#capture}, what
 * {@code SessionOptions.withStack(depth)} adds to every op) and building one op's args (what a
 * program pays when it does not build its args once). In ns per call.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class OpStackCaptureBenchmark {
    @Param({"8", "32"})
    public int depth;

    @Benchmark
    public OpStack captureStack() {
        return OpStacks.capture(depth);
    }

    @Benchmark
    public OpArgs buildArgs() {
        long[] shape = {256, 256};
        long[] strides = {256, 1};
        return OpArgs.builder().inputDims(shape, shape).inputStrides(strides, strides).inputTypes("float", "float")
                .concreteInputs("", "").add("flops", 33_554_432L).build();
    }
}
