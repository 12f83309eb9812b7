package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.flagos.trace.stages.OpSummaryRow;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host API on a machine without a GPU (CI, laptops): CPU-side profiling works the same (that the tracer says
 * it is unavailable, in one line, is {@link ProfilerTest}'s).
 */
class ProfilerSessionTest {
    @TempDir
    Path dir;

    @Test
    void nestedOpsFromManyThreadsMakeACompleteTraceAndSummary() throws Exception {
        Path out = dir.resolve("live.json");
        int threads = 4;
        try (ProfilerSession session = Profiler.start(SessionOptions.to(out))) {
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    for (int i = 0; i < 25; i++) {
                        try (OpScope step = session.op("worker_step")) {
                            try (OpScope inner = session.op("worker_inner")) {
                                spin(20_000);
                            }
                            spin(10_000);
                        }
                    }
                }, "worker-" + t);
                workers.add(worker);
                worker.start();
            }
            go.countDown();
            for (Thread w : workers) {
                w.join();
            }
            session.close();
            OpSummaryRow step = session.summary().row("worker_step");
            OpSummaryRow inner = session.summary().row("worker_inner");
            assertEquals(100, step.count());
            assertEquals(100, inner.count());
            assertEquals(step.cpuTimeTotalUs() - inner.cpuTimeTotalUs(), step.selfCpuTimeTotalUs(), 0.01,
                    "self CPU of the outer op excludes exactly its nested op, per thread");
            assertEquals(inner.cpuTimeTotalUs(), inner.selfCpuTimeTotalUs(), 1e-9);
        }
        JsonNode trace = TraceJson.MAPPER.readTree(out.toFile());
        Set<Long> ids = new HashSet<>();
        Map<Long, Integer> opsPerRow = new HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText())) {
                assertTrue(ids.add(e.get("args").get("External id").asLong()), "unique External ids");
                opsPerRow.merge(e.get("tid").asLong(), 1, Integer::sum);
                assertTrue(e.get("pid").asLong() > 0, "host rows use the JVM's pid, not a device's");
            }
        }
        assertEquals(200, ids.size());
        // The process's one sequence (0 is the first op's id in the process): this session's are 200 in a row.
        assertEquals(199, java.util.Collections.max(ids) - java.util.Collections.min(ids), "ids in one run: " + ids);
        assertEquals(threads, opsPerRow.size(), "one row per thread");
        Map<Long, String> rowNames = new HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("thread_name".equals(e.path("name").asText()) && opsPerRow.containsKey(e.get("tid").asLong())) {
                rowNames.put(e.get("tid").asLong(), e.get("args").get("name").asText());
            }
        }
        assertEquals(Set.of("worker-0", "worker-1", "worker-2", "worker-3"), new HashSet<>(rowNames.values()),
                "host rows carry the Java thread names: " + rowNames);
        assertTrue(trace.get("flagtrace").get("notes").toString().contains("device tracer unavailable")
                || Profiler.init().available());
        assertTrue(trace.has("traceEvents"));
        assertEquals(1, trace.path("traceEvents").findValues("cat").stream().filter(c -> c.asText().equals("Trace")).count());
    }

    @Test
    void opsMustCloseInReverseOrderAndOneSessionAtATime() throws Exception {
        try (ProfilerSession session = Profiler.start(SessionOptions.to(dir.resolve("t.json")))) {
            assertThrows(IllegalStateException.class, () -> Profiler.start(SessionOptions.to(dir.resolve("u.json"))));
            OpScope outer = session.op("outer");
            OpScope inner = session.op("inner");
            assertThrows(IllegalStateException.class, outer::close);
            inner.close();
            outer.close();
        }
        assertTrue(Files.exists(dir.resolve("t.json")));
        try (ProfilerSession again = Profiler.start(SessionOptions.to(dir.resolve("v.json")))) {
            again.op("after").close();
        }
    }

    @Test
    void opsRacingTheStopAreInertNotErrors() throws Exception {
        Path out = dir.resolve("racing.json");
        ProfilerSession session = Profiler.start(SessionOptions.to(out));
        OpScope straddling = session.op("straddling");
        session.op("kept").close();
        session.close();
        OpScope late = session.op("late");
        assertEquals(-1, late.externalId(), "an op opened after close records nothing");
        late.close();
        straddling.close(); // closes after the trace was written: not in it, and no error
        JsonNode trace = TraceJson.MAPPER.readTree(out.toFile());
        List<String> names = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText())) {
                names.add(e.get("name").asText());
            }
        }
        assertEquals(List.of("kept"), names);
        JsonNode clock = trace.get("flagtrace").get("host_clock");
        assertTrue(clock.get("samples").asInt() > 0 && clock.get("error_bound_ns").asLong() >= 0, "alignment reported");
        assertEquals(0, trace.get("flagtrace").get("ring_full").get("ops_kept_aside").asLong());
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
