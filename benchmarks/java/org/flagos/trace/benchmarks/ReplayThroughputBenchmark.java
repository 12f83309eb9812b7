package org.flagos.trace.benchmarks;

import java.util.concurrent.TimeUnit;
import org.flagos.trace.capture.CaptureReplay;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * End to end: {@code .fltrbuf} bytes in memory to trace bytes, through the whole pipeline (decode,
 * ring, names, join, window, writer, flows, host ops, summary), one complete replay of the real
 * 30,000-launch H200 capture per operation. Reports replays/s and, as an auxiliary rate, trace
 * events/s. Compare with torch/kineto's stop+export on the H200:
 * ../shared/reference/torch-cuda-h200/torch_overhead.json (n10000: 50,066 events in 0.233 s).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class ReplayThroughputBenchmark {
    @State(Scope.Benchmark)
    public static class Capture {
        BenchmarkCapture capture;

        @Setup(Level.Trial)
        public void load() {
            capture = new BenchmarkCapture();
        }
    }

    @Benchmark
    public long replay(Capture c, EventCounters counters) throws InterruptedException {
        BenchmarkCapture capture = c.capture;
        BenchmarkCapture.CountingSink sink = new BenchmarkCapture.CountingSink();
        CaptureReplay.Request request = CaptureReplay.Request.of(capture.bytes.duplicate(), BenchmarkCapture.NAME)
                .ops(capture.ops).kernelNames(capture.names).devices(capture.devices).ringSize(1 << 12).build();
        CaptureReplay.Result result = CaptureReplay.run(request, sink);
        counters.events += result.events();
        counters.traceBytes += sink.bytes;
        return result.events();
    }
}
