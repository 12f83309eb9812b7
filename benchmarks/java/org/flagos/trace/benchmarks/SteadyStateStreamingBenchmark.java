package org.flagos.trace.benchmarks;

import com.lmax.disruptor.dsl.ProducerType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.capture.CapturePipeline;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.vendors.Vendors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Steady state: one long-lived pipeline, fed the capture's first activity buffer (8 MiB of real
 * CUPTI records, 90,086 of them) again and again, as a live tracer feeds it buffer after buffer.
 * One operation is one record; with {@code -prof gc}, {@code gc.alloc.rate.norm} is bytes
 * allocated per record once every cache and index has reached its working size.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@State(Scope.Benchmark)
public class SteadyStateStreamingBenchmark {
    /** Records in the capture's first buffer (checked at setup). */
    static final int RECORDS = 90_086;

    private CapturePipeline pipeline;
    private ActivityBufferDecoder decoder;
    private DecodeStats stats;
    private ByteBuffer buffer;

    @Setup(Level.Trial)
    public void start() {
        BenchmarkCapture capture = new BenchmarkCapture();
        FltrbufFrames frames = new FltrbufFrames(capture.bytes, BenchmarkCapture.NAME);
        List<ByteBuffer> buffers = new ArrayList<>();
        while (frames.next()) {
            buffers.add(frames.payload());
        }
        buffer = buffers.get(0);
        NameTable names = new NameTable();
        decoder = Vendors.decoderFor(1).create(capture.names, names, capture.devices);
        stats = new DecodeStats();
        TraceHeader header = new TraceHeader(BenchmarkCapture.NAME, capture.devices, null, Map.of(), "bench", -1);
        pipeline = CapturePipeline.builder().names(names).apiNames(decoder.apiNames())
                .window(new CaptureWindowFilter(capture.ops.windowStartNs(), capture.ops.windowEndNs())).header(header)
                .format(org.flagos.trace.capture.TraceFormat.JSON).out(new BenchmarkCapture.CountingSink()).decodeStats(stats)
                .producers(ProducerType.SINGLE).build();
        DecodeStats probe = new DecodeStats();
        decoder.decode(buffer.duplicate(), new org.flagos.trace.model.RecordSink() {
            @Override
            public <A> void publish(com.lmax.disruptor.EventTranslatorOneArg<org.flagos.trace.model.TraceRecord, A> t, A a) {
            }
        }, probe);
        if (probe.publishedTotal() != RECORDS) {
            throw new IllegalStateException("first buffer holds " + probe.publishedTotal() + " records, expected " + RECORDS);
        }
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public void stream() {
        decoder.decode(buffer.duplicate(), pipeline, stats);
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        pipeline.finish();
    }
}
