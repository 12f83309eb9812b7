package org.flagos.trace.vendors.mcpti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.testing.FakeCuptiRun;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many sessions in one JVM, each on fresh threads, through the fake CUPTI engine (fake_mcpti.c):
 * every session's trace holds every kernel its threads launched. The engine keeps a buffer per
 * recording thread in 64 slots; a slot now goes back when its thread ends, so the 25 sessions' 100
 * threads never share one (fakeStat 8) and nothing is dropped (fakeStat 9). Before, a thread took a
 * slot for good and the 65th thread on shared the last: the limit met after about 16 sessions of 4
 * threads in one JVM (the load loop, scripts/load-loop, runs many).
 */
class McptiManySessionsTest {
    private static final int SESSIONS = 25;
    private static final int THREADS = 4;
    private static final int LAUNCHES = 5;

    @TempDir
    Path dir;

    @Test
    void everySessionOnFreshThreadsKeepsEveryKernel() throws Exception {
        McptiTracer tracer = new McptiTracer(FakeVendorLibrary.build("fake_mcpti").toString());
        assertTrue(tracer.available(), tracer.unavailableReason());
        tracer.invoke("fakeReset", 0); // no scripted quirks: every launch is one kernel record
        for (int s = 0; s < SESSIONS; s++) {
            Path trace = dir.resolve("s" + s + ".json");
            ProfilerSession session = Profiler.start(tracer, SessionOptions.to(trace));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            try (session) {
                for (int t = 0; t < THREADS; t++) {
                    Thread thread = new Thread(() -> {
                        try {
                            for (int i = 0; i < LAUNCHES; i++) {
                                try (OpScope op = session.op("app::launch")) {
                                    tracer.invoke("fakeLaunchKernel", i & 1);
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }, "session-" + s + "-thread-" + t);
                    threads.add(thread);
                    thread.start();
                }
                for (Thread thread : threads) {
                    thread.join();
                }
            }
            if (failure.get() != null) {
                throw new AssertionError("session " + s, failure.get());
            }
            int kernels = FakeCuptiRun.category(TraceJson.MAPPER.readTree(trace.toFile()), "kernel").size();
            assertEquals(THREADS * LAUNCHES, kernels, "session " + s + " (threads so far " + THREADS * (s + 1) + ")");
        }
        assertEquals(0, tracer.invoke("fakeStat", 8), "threads that found every slot a live thread's");
        assertEquals(0, tracer.invoke("fakeStat", 9), "records the fake dropped");
    }
}
