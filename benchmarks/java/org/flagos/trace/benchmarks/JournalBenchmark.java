package org.flagos.trace.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.flagos.trace.capture.CaptureJournal;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.JournalReplay;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.journal.JournalWindow;
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
 * The journal with the real 30,000-launch H200 capture (two vendor buffers, 8 MiB and 29 KiB, its
 * 30,000 host ops and its name table). {@code append}: one op journals the whole capture into a new
 * queue (as a recording session appends it: buffers, names, ops, stop), the events it stands for
 * reported as a rate. {@code replay}: one op re-runs the stages from that journal into trace bytes.
 * Compare {@code replay} with {@link ReplayThroughputBenchmark} (the same capture from {@code .fltrbuf}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 6, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED"})
public class JournalBenchmark {
    @State(Scope.Benchmark)
    public static class Capture {
        BenchmarkCapture capture;
        CaptureReplay.Request request;
        long events;
        Path root;
        Path journal;
        int next;

        @Setup(Level.Trial)
        public void load() throws Exception {
            capture = new BenchmarkCapture();
            request = CaptureReplay.Request.of(capture.bytes.duplicate(), BenchmarkCapture.NAME).ops(capture.ops)
                    .kernelNames(capture.names).devices(capture.devices).ringSize(1 << 12).build();
            events = CaptureReplay.run(request, new BenchmarkCapture.CountingSink()).events();
            root = Files.createTempDirectory("flagtrace-journal-bench");
            journal = root.resolve("replayed");
            CaptureJournal.write(request, capture.names.entries(), JournalOptions.to(journal));
        }

        Path freshDir() {
            return root.resolve("append-" + next++);
        }

        @TearDown(Level.Trial)
        public void delete() throws IOException {
            try (Stream<Path> paths = Files.walk(root)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                    try {
                        Files.delete(p);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
        }
    }

    @Benchmark
    public long append(Capture c, EventCounters counters) throws IOException {
        Path dir = c.freshDir();
        long buffers = CaptureJournal.write(c.request, c.capture.names.entries(), JournalOptions.to(dir));
        counters.events += c.events;
        try (Stream<Path> paths = Files.walk(dir)) { // the disk is not what is measured: free it at once
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        return buffers;
    }

    @Benchmark
    public long replay(Capture c, EventCounters counters) throws InterruptedException {
        BenchmarkCapture.CountingSink sink = new BenchmarkCapture.CountingSink();
        JournalReplay.Result result = JournalReplay.run(JournalReplay.Request.of(c.journal, JournalWindow.ALL), sink);
        counters.events += result.replay().events();
        counters.traceBytes += sink.bytes;
        return result.replay().events();
    }
}
