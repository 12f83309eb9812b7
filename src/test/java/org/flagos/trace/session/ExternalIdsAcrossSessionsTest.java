package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.flagos.trace.testing.FakeCuptiRun;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.vendors.mcpti.McptiTracer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An op still open when its session stops keeps its External id on the vendor's stack (the tracer
 * stays attached, and a pop always follows its push), so its thread's launches in the next session
 * carry that id. Seen on the H200: the teardown stress's workers keep ops open across every stop.
 * With a sequence of ids per session, the next session gave the same id to one of its own ops and
 * credited it with the old op's device work. Run on the fake CUPTI engine (fake_mcpti.c), whose
 * per-thread stacks outlive a session as CUPTI's do.
 */
class ExternalIdsAcrossSessionsTest {
    @TempDir
    Path dir;

    @Test
    void anOpOpenAcrossAStopLendsItsIdToNoOpOfTheNextSession() throws Exception {
        McptiTracer tracer = new McptiTracer(FakeVendorLibrary.build("fake_mcpti").toString());
        assertTrue(tracer.available(), tracer.unavailableReason());
        tracer.invoke("fakeReset", 0);
        ProfilerSession first = Profiler.start(tracer, SessionOptions.to(dir.resolve("first.json")));
        CountDownLatch opened = new CountDownLatch(1);
        CountDownLatch nextStarted = new CountDownLatch(1);
        CountDownLatch launched = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try (OpScope stale = first.op("app::open_across_the_stop")) {
                opened.countDown();
                nextStarted.await();
                tracer.invoke("fakeLaunchKernel", 0); // in the next session, under the old op's id
                launched.countDown();
            } catch (Throwable e) {
                failure.set(e);
                launched.countDown();
            }
        }, "stale-op");
        worker.start();
        opened.await();
        first.close();

        Path out = dir.resolve("next.json");
        ProfilerSession next = Profiler.start(tracer, SessionOptions.to(out));
        long own;
        try (next) {
            try (OpScope op = next.op("app::own")) {
                own = op.externalId();
                nextStarted.countDown();
                launched.await();
                tracer.invoke("fakeLaunchKernel", 1);
            }
        }
        worker.join();
        assertNull(failure.get());

        JsonNode trace = TraceJson.MAPPER.readTree(out.toFile());
        List<JsonNode> kernels = FakeCuptiRun.category(trace, "kernel");
        assertEquals(2, kernels.size(), "both launches of the session are in its trace");
        List<Long> ids = new ArrayList<>();
        for (JsonNode k : kernels) {
            ids.add(k.path("args").path("External id").asLong(-1));
        }
        assertEquals(1, ids.stream().filter(id -> id == own).count(),
                "only the op's own kernel is on it (External ids of the kernels: " + ids + ", the op's " + own + ")");
        List<Long> opIds = new ArrayList<>();
        for (JsonNode op : FakeCuptiRun.category(trace, "cpu_op")) {
            opIds.add(op.path("args").path("External id").asLong(-1));
        }
        for (long id : ids) {
            if (id != own) {
                assertTrue(!opIds.contains(id), "the stale launch's id " + id + " names an op of this session: " + opIds);
            }
        }
    }
}
