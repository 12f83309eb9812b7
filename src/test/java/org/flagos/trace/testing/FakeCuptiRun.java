package org.flagos.trace.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.OpsJsonlWriter;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.vendors.family.CuptiFamilyTracer;

/**
 * One live session of a CUPTI-shaped tracer over a fake vendor library (fake_mcpti.c, fake_ppu.c)
 * driving the scripted workload, with {@code --dump-buffers}; the fake's truth log read back after;
 * and the dump replayed offline.
 *
 * <p>The workload: {@value #THREADS} threads, each {@value #ITERATIONS} times:
 * {@code app::step { kernel 0; app::mm { kernel 1; memcpy 4096 }; app::fill { memset 1024 } }}.
 * Every call goes into the fake through {@link CuptiFamilyTracer#invoke}, so push/pop, API records,
 * device records and external-correlation records all originate in the fake.
 */
public final class FakeCuptiRun {
    public static final int THREADS = 3;
    public static final int ITERATIONS = 4;

    /** One record the fake wrote (its truth log): times in the vendor's clock. */
    public record Truth(int kind, long correlation, long start, long end, long external, long id, long flags, long bytes) {
        public boolean hasExternal() {
            return external >= 0;
        }
    }

    /** What the live session produced. */
    public record Live(JsonNode trace, OpSummary summary, CaptureAccounting accounting, Path capture, List<Truth> truth) {
        public long baseNs() {
            return trace.get("baseTimeNanoseconds").asLong();
        }
    }

    /** Runs the workload under a live session on {@code tracer}, dumping into {@code dir}. */
    public static Live record(CuptiFamilyTracer tracer, Path dir) throws Exception {
        Path trace = dir.resolve("live.json");
        Path capture = dir.resolve("live.fltrbuf");
        ProfilerSession session = Profiler.start(tracer, SessionOptions.to(trace).withDumpBuffers(capture));
        try {
            workload(session, tracer);
        } finally {
            session.close();
        }
        return new Live(TraceJson.MAPPER.readTree(trace.toFile()), session.summary(), session.accounting(), capture,
                truth(tracer));
    }

    /** The scripted workload on {@value #THREADS} fresh threads. */
    public static void workload(ProfilerSession session, CuptiFamilyTracer tracer) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                try {
                    for (int i = 0; i < ITERATIONS; i++) {
                        try (OpScope step = session.op("app::step")) {
                            tracer.invoke("fakeLaunchKernel", 0);
                            try (OpScope mm = session.op("app::mm")) {
                                tracer.invoke("fakeLaunchKernel", 1);
                                tracer.invoke("fakeMemcpy", 4096);
                            }
                            try (OpScope fill = session.op("app::fill")) {
                                tracer.invoke("fakeMemset", 1024);
                            }
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "fake-workload-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("workload thread failed", failure.get());
        }
    }

    /** The fake's truth log. */
    public static List<Truth> truth(CuptiFamilyTracer tracer) {
        int n = (int) tracer.invoke("fakeTruth", -1);
        List<Truth> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long[] f = new long[8];
            for (int k = 0; k < 8; k++) {
                f[k] = tracer.invoke("fakeTruth", 8L * i + k);
            }
            out.add(new Truth((int) f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]));
        }
        return out;
    }

    /** The dump replayed offline with the ops, names and clock saved beside it. */
    public static TraceJson.Replayed replay(Path capture) {
        CaptureReplay.Request request = CaptureReplay.request(capture, OpsJsonlWriter.besides(capture), null,
                List.of(), Map.of());
        return TraceJson.replay(request);
    }

    /** A trace's events other than the M rows (which name the process), each as its JSON, sorted. */
    public static List<String> events(JsonNode trace) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (!"M".equals(e.path("ph").asText())) {
                out.add(e.toString());
            }
        }
        Collections.sort(out);
        return out;
    }

    /** The events of {@code trace} in category {@code cat}. */
    public static List<JsonNode> category(JsonNode trace, String cat) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (cat.equals(e.path("cat").asText(null))) {
                out.add(e);
            }
        }
        return out;
    }

    /** An event's start in epoch ns ({@code baseTimeNanoseconds} + ts). */
    public static long startNs(JsonNode trace, JsonNode event) {
        return trace.get("baseTimeNanoseconds").asLong() + event.get("ts").decimalValue().movePointRight(3).longValueExact();
    }

    /** An event's duration in ns. */
    public static long durationNs(JsonNode event) {
        return event.get("dur").decimalValue().movePointRight(3).longValueExact();
    }

    private FakeCuptiRun() {
    }
}
