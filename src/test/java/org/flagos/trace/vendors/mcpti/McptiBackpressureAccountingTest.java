package org.flagos.trace.vendors.mcpti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a live session's events go when many threads launch as fast as they can (the shape whose
 * traces held tens of thousands of events fewer than 6 per op): 8 threads through the fake CUPTI
 * engine (fake_mcpti.c), each op one launch. Each op makes 6 events (the op, its API call, its kernel,
 * the arrow's two halves, its GPU annotation span); the fake puts every kernel on stream 7 right after
 * its call, so kernels of different threads overlap there, their spans cross, and the walk leaves out
 * and counts each span that would cross one drawn ({@code gpu_annotations.not_nested}). Every event is
 * either written or counted in the trace's own {@code flagtrace} block: written + counted == produced,
 * exactly, category by category.
 */
class McptiBackpressureAccountingTest {
    private static final int THREADS = 8;
    private static final int OPS_PER_THREAD = 1_500;

    @TempDir
    Path dir;

    @Test
    void everyEventOfManyLaunchingThreadsIsWrittenOrCountedInTheTrace() throws Exception {
        McptiTracer tracer = new McptiTracer(FakeVendorLibrary.build("fake_mcpti").toString());
        assertTrue(tracer.available(), tracer.unavailableReason());
        tracer.invoke("fakeReset", 0); // no scripted quirks: each launch is one API and one kernel record
        Path trace = dir.resolve("loop.json");
        ProfilerSession session = Profiler.start(tracer, SessionOptions.to(trace));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        try (session) {
            for (int t = 0; t < THREADS; t++) {
                Thread thread = new Thread(() -> {
                    try {
                        for (int i = 0; i < OPS_PER_THREAD; i++) {
                            try (OpScope op = session.op("aten::fill_")) {
                                tracer.invoke("fakeLaunchKernel", i & 1);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "launcher-" + t);
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) {
                thread.join();
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("a launching thread failed", failure.get());
        }
        long ops = (long) THREADS * OPS_PER_THREAD;
        CaptureAccounting counts = session.accounting();
        JsonNode root = TraceJson.MAPPER.readTree(trace.toFile());
        Map<String, Long> byCat = new HashMap<>();
        for (JsonNode e : root.get("traceEvents")) {
            byCat.merge(e.path("cat").asText(), 1L, Long::sum);
        }
        JsonNode block = root.get("flagtrace");
        long notNested = block.get("gpu_annotations").get("not_nested").asLong();
        long kernelsOutside = counts.droppedOutsideWindow(EventKind.KERNEL);
        long apiOutside = counts.droppedOutsideWindow(EventKind.RUNTIME);
        long vendorDropped = tracer.invoke("fakeStat", 9);
        System.out.println("backpressure: " + ops + " ops on " + THREADS + " threads, " + session.events() + " events, "
                + notNested + " spans not nested, ring-full waits " + counts.ringFullWaits() + ", ops kept aside "
                + counts.opsSpilled() + ", records after their op settled " + counts.recordsAfterOpSettled());

        assertEquals(0, vendorDropped + kernelsOutside + apiOutside + counts.droppedHostOps(),
                "nothing dropped before the walk (the fake, the window)");
        assertEquals(ops, byCat.get("cpu_op"), "every op");
        assertEquals(ops, byCat.get("privateuse1_runtime"), "every launch's API call");
        assertEquals(ops, byCat.get("kernel"), "every kernel");
        assertEquals(2 * ops, byCat.get("ac2g"), "each launch's arrow, both halves");
        long spans = byCat.getOrDefault("gpu_user_annotation", 0L);
        assertEquals(spans, block.get("gpu_annotations").get("events").asLong());
        assertEquals(ops, spans + notNested, "each op's span is drawn or counted");
        assertEquals(6 * ops, session.events() + notNested, "written + counted == produced");
        assertEquals(session.events(), block.get("events").asLong(), "the trace's own count of what it holds");
    }
}
