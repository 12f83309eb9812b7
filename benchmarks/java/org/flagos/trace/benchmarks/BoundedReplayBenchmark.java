package org.flagos.trace.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.testing.BoundedReplayMain;
import org.flagos.trace.testing.SyntheticCapture;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A capture that never stops, replayed in bounded memory: ten million records (the real
 * 30,000-launch H200 capture repeated, ids and times moved on) streamed from a file into trace
 * bytes, in a JVM whose heap is capped at 256 MiB; {@code replayWithOps} adds its 3.3 million host
 * ops (an op per tiny launch, nested matmul_relu ops, an op around each repetition and one around
 * the whole capture), the ops file streamed too. One replay per operation; reports the time, trace
 * events per replay, the peak heap (sum of the heap pools' peaks, reset before each replay: garbage
 * included) and the most heap left after a collection (what was held).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx256m"})
public class BoundedReplayBenchmark {
    @State(Scope.Benchmark)
    public static class Capture {
        Path dir;
        Path file;
        Path ops;

        @Setup(Level.Trial)
        public void write() throws IOException {
            dir = Files.createTempDirectory("flagtrace-bounded-");
            file = dir.resolve("ten-million.fltrbuf");
            SyntheticCapture capture = new SyntheticCapture();
            capture.write(file, capture.repetitionsFor(10_000_000));
            ops = dir.resolve("ten-million.ops.jsonl");
            capture.writeOps(ops, capture.repetitionsFor(10_000_000));
        }

        @TearDown(Level.Trial)
        public void delete() throws IOException {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }

    /** Per replay: trace events and the peak heap in MiB. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Figures {
        public long events;
        public long peakHeapMiB;
        public long liveAfterGcMiB;

        @Setup(Level.Iteration)
        public void reset() {
            events = 0;
            peakHeapMiB = 0;
            liveAfterGcMiB = 0;
            System.gc();
            BoundedReplayMain.watchCollections();
            BoundedReplayMain.resetLiveAfterGc();
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    pool.resetPeakUsage();
                }
            }
        }
    }

    @Benchmark
    public long replay(Capture c, Figures figures) throws InterruptedException {
        BenchmarkCapture.CountingSink sink = new BenchmarkCapture.CountingSink();
        CaptureReplay.Result result = CaptureReplay.run(
                CaptureReplay.request(c.file, null, null, TestDevices.h200(), Map.of()), sink);
        figures.events += result.events();
        figures.peakHeapMiB = BoundedReplayMain.peakHeapBytes() >> 20;
        figures.liveAfterGcMiB = BoundedReplayMain.liveAfterGcBytes() >> 20;
        return sink.bytes;
    }

    @Benchmark
    public long replayWithOps(Capture c, Figures figures) throws InterruptedException {
        BenchmarkCapture.CountingSink sink = new BenchmarkCapture.CountingSink();
        CaptureReplay.Result result = CaptureReplay.run(
                CaptureReplay.request(c.file, c.ops, null, TestDevices.h200(), Map.of()), sink);
        figures.events += result.events();
        figures.peakHeapMiB = BoundedReplayMain.peakHeapBytes() >> 20;
        figures.liveAfterGcMiB = BoundedReplayMain.liveAfterGcBytes() >> 20;
        return sink.bytes;
    }
}
