package org.flagos.trace.vendors.roctracer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
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
 * Flush barriers through the fake ROCtracer: launches on one thread, a long CPU-only phase on
 * another under the armed tracer, then launches again. The pool's flush hands over the partly
 * filled buffer (and the fake waits for buffers another thread is delivering, as roctracer's flush
 * waits for its consumer), so the CPU-only ops settle at barriers as the session goes, none at the
 * walk's capacity, and every launch keeps its records.
 */
class RoctracerFlushBarrierSessionTest {
    private static final int LAUNCHES = 200;
    private static final int CPU_ROUNDS = 24;
    private static final int CPU_OPS_PER_ROUND = 2_500;

    @TempDir
    Path dir;

    @Test
    void cpuOnlyOpsSettleAtBarriersWhileTheSessionRunsAndLaunchesKeepTheirDeviceTime() throws Exception {
        RoctracerTracer tracer = new RoctracerTracer(FakeVendorLibrary.build("fake_roctracer").toString(), 4096);
        assertTrue(tracer.available(), tracer.unavailableReason());
        Path trace = dir.resolve("trace.json");
        ProfilerSession session = Profiler.start(tracer, SessionOptions.to(trace));
        try (session) {
            Thread gpu = new Thread(() -> launches(session, tracer), "launcher");
            gpu.start();
            gpu.join();
            for (int round = 0; round < CPU_ROUNDS; round++) {
                for (int i = 0; i < CPU_OPS_PER_ROUND; i++) {
                    try (OpScope outer = session.op("load")) {
                        session.op("decode").close();
                    }
                }
                Thread.sleep(150); // longer than a barrier's period
            }
            launches(session, tracer);
        }
        CaptureAccounting accounting = session.accounting();
        long cpuOps = 2L * CPU_ROUNDS * CPU_OPS_PER_ROUND;
        System.out.printf("roctracer flush barriers: %d published, %d ops settled at them, at most %d ops held of %d CPU-only%n",
                accounting.flushBarriers(), accounting.opsSettledAtBarrier(), accounting.opsHeldMax(), cpuOps);
        assertEquals(cpuOps + 2 * LAUNCHES, accounting.hostOps());
        assertTrue(accounting.flushBarriers() > 0, "barriers published: " + accounting.flushBarriers());
        assertTrue(accounting.opsSettledAtBarrier() > cpuOps / 2,
                accounting.opsSettledAtBarrier() + " of " + cpuOps + " CPU-only ops settled at a barrier");
        assertTrue(accounting.opsHeldMax() < cpuOps / 2, "held at most " + accounting.opsHeldMax() + " of " + cpuOps);
        assertEquals(0, accounting.opsSettledAtCapacity());
        assertEquals(0, accounting.recordsAfterOpSettled(), "every launch's records came before its op settled");

        double kernelUs = 0;
        int kernels = 0;
        for (JsonNode e : TraceJson.MAPPER.readTree(trace.toFile()).get("traceEvents")) {
            if ("kernel".equals(e.path("cat").asText())) {
                kernelUs += e.path("dur").asDouble();
                kernels++;
            }
        }
        assertEquals(2 * LAUNCHES, kernels);
        assertEquals(kernelUs, session.summary().row("launch").deviceTimeTotalUs(), 1e-3 * 2 * LAUNCHES,
                "the launching ops' device time is every kernel's");
        assertEquals(cpuOps / 2, session.summary().row("load").count());
        assertEquals(0, session.summary().row("load").deviceTimeTotalUs());
    }

    private static void launches(ProfilerSession session, RoctracerTracer tracer) {
        for (int i = 0; i < LAUNCHES; i++) {
            try (OpScope op = session.op("launch")) {
                tracer.invoke("fakeHipLaunchKernel", i % 3);
            }
        }
    }
}
