package org.flagos.trace.benchmarks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.bytedeco.cuda.global.cudart;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.stages.CaptureAccounting;

/**
 * Live, NVIDIA only: where a session's events go under backpressure. THREADS threads each run OPS ops
 * as fast as they can, one 4-byte {@code cudaMemsetAsync} per op, all in one session; then the trace
 * is read back and every event an op makes (the op, its runtime call, its memset, the arrow's two
 * halves, its GPU annotation span) is found written or counted in the trace's {@code flagtrace} block
 * or CUPTI's drop count: one JSON line per session with the categories, the counters and
 * {@code "exact":true} when written + counted == produced in every category.
 *
 * <p>{@code BackpressureProbe THREADS OPS SESSIONS DIR}
 */
public final class BackpressureProbe {
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int opsPerThread = Integer.parseInt(args[1]);
        int sessions = Integer.parseInt(args[2]);
        Path dir = Path.of(args[3]);
        Files.createDirectories(dir);
        DeviceTracer tracer = Profiler.init();
        if (!tracer.available()) {
            throw new IllegalStateException("tracer unavailable: " + tracer.unavailableReason());
        }
        CudaMemsetLoop loop = CudaMemsetLoop.open(0);
        boolean allExact = true;
        for (int s = 0; s < sessions; s++) {
            Path trace = dir.resolve("bp-" + s + ".json");
            long droppedBefore = tracer.droppedByVendor();
            ProfilerSession session = Profiler.start(SessionOptions.to(trace));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> running = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                Thread thread = new Thread(() -> {
                    try {
                        for (int i = 0; i < opsPerThread; i++) {
                            try (OpScope op = session.op("aten::fill_")) {
                                loop.launchOne((int) (op.externalId() & 0xff));
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "launcher-" + t);
                running.add(thread);
                thread.start();
            }
            for (Thread thread : running) {
                thread.join();
            }
            cudart.cudaDeviceSynchronize();
            long ran = System.nanoTime();
            session.close();
            if (failure.get() != null) {
                throw new IllegalStateException("a launching thread failed", failure.get());
            }
            long ops = (long) threads * opsPerThread;
            TreeMap<String, Long> byCat = new TreeMap<>();
            long memsetCalls = 0;
            try (JsonParser p = new JsonFactory().setCodec(new ObjectMapper()).createParser(trace.toFile())) {
                JsonNode root = null;
                // events one by one: a session's trace is 100 MB
                while (p.nextToken() != null) {
                    if (p.currentToken() == JsonToken.FIELD_NAME && "traceEvents".equals(p.currentName()) && p.getParsingContext().getParent().inRoot()) {
                        p.nextToken();
                        while (p.nextToken() == JsonToken.START_OBJECT) {
                            JsonNode e = p.readValueAsTree();
                            String cat = e.path("cat").asText();
                            byCat.merge(cat, 1L, Long::sum);
                            if ("cuda_runtime".equals(cat) && "cudaMemsetAsync".equals(e.path("name").asText())) {
                                memsetCalls++;
                            }
                        }
                    } else if (p.currentToken() == JsonToken.FIELD_NAME && "flagtrace".equals(p.currentName())) {
                        p.nextToken();
                        root = p.readValueAsTree();
                    }
                }
                CaptureAccounting a = session.accounting();
                long notNested = a.gpuAnnotationsNotNested();
                long cuptiDropped = tracer.droppedByVendor() - droppedBefore;
                long memsetsOutside = a.droppedOutsideWindow(EventKind.MEMSET);
                long callsOutside = a.droppedOutsideWindow(EventKind.RUNTIME);
                long memsets = byCat.getOrDefault("gpu_memset", 0L);
                long spans = byCat.getOrDefault("gpu_user_annotation", 0L);
                boolean exact = byCat.getOrDefault("cpu_op", 0L) == ops
                        && memsetCalls + callsOutside + cuptiDropped >= ops && memsetCalls <= ops
                        && memsets + memsetsOutside + cuptiDropped >= ops && memsets <= ops
                        // an arrow per memset and one for the closing synchronize (its call and its cuda_sync record)
                        && byCat.getOrDefault("ac2g", 0L) == 2 * (Math.min(memsets, memsetCalls) + byCat.getOrDefault("cuda_sync", 0L))
                        && spans + notNested == ops
                        && root != null && root.path("events").asLong() == session.events();
                allExact &= exact && cuptiDropped == 0 && memsetsOutside == 0;
                System.out.printf(Locale.ROOT, "{\"threads\":%d,\"ops\":%d,\"events\":%d,\"block_events\":%d,\"run_s\":%.3f,\"categories\":%s,"
                                + "\"memset_calls\":%d,\"not_nested\":%d,\"cupti_dropped\":%d,\"memsets_outside_window\":%d,\"calls_outside_window\":%d,"
                                + "\"ring_full_waits\":%d,\"ops_kept_aside\":%d,\"records_after_op_settled\":%d,\"device_records_without_op\":%d,"
                                + "\"ops_settled_at_capacity\":%d,\"produced_6_per_op\":%d,\"written_plus_not_nested\":%d,\"exact\":%b}%n",
                        threads, ops, session.events(), root == null ? -1 : root.path("events").asLong(), (ran - t0) / 1e9,
                        new ObjectMapper().writeValueAsString(byCat), memsetCalls, notNested, cuptiDropped, memsetsOutside, callsOutside,
                        a.ringFullWaits(), a.opsSpilled(), a.recordsAfterOpSettled(), a.deviceRecordsWithoutOp(), a.opsSettledAtCapacity(),
                        6 * ops, session.events() + notNested, exact);
            }
            Files.delete(trace);
        }
        loop.close();
        System.exit(allExact ? 0 : 1);
    }

    private BackpressureProbe() {
    }
}
