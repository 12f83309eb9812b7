package org.flagos.trace.session;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import org.flagos.trace.model.OpArgs;

/**
 * The CPU time an op's args and stack cost the thread that opens and closes it, in ns per op,
 * measured as that thread's own CPU time ({@link ThreadMXBean#getCurrentThreadCpuTime()}), so a
 * machine loaded by other processes stretches the wall time but not this figure. Modes as in
 * {@code OpArgsBenchmark} ({@code none}, {@code args} built once, {@code argsPerOp}, {@code stack8},
 * {@code stack32}), each a session of its own without a device tracer writing to /dev/null, run in
 * interleaved rounds after a warm-up round; also the stack walk and the args' build alone.
 *
 * <p>{@code java -cp ... org.flagos.trace.session.OpArgsCpuProbe [ops per round] [rounds]}
 */
public final class OpArgsCpuProbe {
    private static final String[] MODES = {"none", "args", "argsPerOp", "stack8", "stack32", "walk8", "walk32", "build"};
    private static final OpArgs ARGS = args();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static long sink;

    private static OpArgs args() {
        long[] shape = {256, 256};
        long[] strides = {256, 1};
        return OpArgs.builder().inputDims(shape, shape).inputStrides(strides, strides).inputTypes("float", "float")
                .concreteInputs("", "").add("flops", 33_554_432L).build();
    }

    public static void main(String[] a) {
        int ops = a.length > 0 ? Integer.parseInt(a[0]) : 100_000;
        int rounds = a.length > 1 ? Integer.parseInt(a[1]) : 5;
        for (String mode : MODES) {
            run(mode, ops); // warm-up
        }
        for (int r = 0; r < rounds; r++) {
            StringBuilder line = new StringBuilder("round " + r + ":");
            for (String mode : MODES) {
                line.append(String.format(" %s %.0f", mode, run(mode, ops)));
            }
            System.out.println(line + " (CPU ns per op)");
        }
        System.out.println("checksum " + sink);
    }

    private static double run(String mode, int ops) {
        if (mode.startsWith("walk") || mode.equals("build")) {
            int depth = mode.equals("build") ? 0 : Integer.parseInt(mode.substring(4));
            long t0 = THREADS.getCurrentThreadCpuTime();
            for (int i = 0; i < ops; i++) {
                sink += depth == 0 ? args().size() : OpStacks.capture(depth).depth();
            }
            return (THREADS.getCurrentThreadCpuTime() - t0) / (double) ops;
        }
        SessionOptions options = SessionOptions.to(Path.of("/dev/null"));
        if (mode.startsWith("stack")) {
            options = options.withStack(Integer.parseInt(mode.substring(5)));
        }
        OpArgs fixed = mode.equals("args") ? ARGS : null;
        boolean perOp = mode.equals("argsPerOp");
        try (ProfilerSession session = Profiler.start(options)) {
            long t0 = THREADS.getCurrentThreadCpuTime();
            for (int i = 0; i < ops; i++) {
                try (OpScope op = session.op("aten::mm", perOp ? args() : fixed)) {
                    sink += op.externalId();
                }
            }
            return (THREADS.getCurrentThreadCpuTime() - t0) / (double) ops;
        }
    }

    private OpArgsCpuProbe() {
    }
}
