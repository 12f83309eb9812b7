package org.flagos.trace.vendors.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.testing.FakeCuptiRun;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.vendors.mcpti.McptiTracer;
import org.flagos.trace.vendors.ppu.PpuTracer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many CUPTI-family tracers alive in one JVM, over two fake libraries (fake_mcpti.c, fake_ppu.c),
 * their sessions alternating between the libraries, each tracer used twice: every session's trace
 * holds every kernel it launched. What the load loop (scripts/load-loop) hit in 3 runs of 20: a
 * tracer gave the shim a JavaCPP callback of its own, JavaCPP has 10 native slots per callback
 * class for the whole process, and the 11th live tracer's callback was a null function pointer,
 * so its sessions got no device record at all until a GC freed an old tracer's slot. And a tracer
 * registered once: after another library's tracer registered, its next session's buffers went to
 * that other tracer.
 */
class FamilyTracersInOneJvmTest {
    /** More than JavaCPP's 10 callback slots. */
    private static final int TRACERS = 14;
    private static final int LAUNCHES = 6;

    @TempDir
    Path dir;

    @Test
    void sessionsAlternatingBetweenLibrariesOnManyLiveTracersKeepEveryKernel() throws Exception {
        String mcpti = FakeVendorLibrary.build("fake_mcpti").toString();
        String ppu = FakeVendorLibrary.build("fake_ppu").toString();
        List<CuptiFamilyTracer> tracers = new ArrayList<>(); // all reachable: no GC frees anything mid-test
        for (int i = 0; i < TRACERS; i++) {
            CuptiFamilyTracer tracer = i % 2 == 0 ? new McptiTracer(mcpti) : new PpuTracer(ppu);
            assertTrue(tracer.available(), tracer.unavailableReason());
            tracers.add(tracer);
        }
        List<String> missing = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < TRACERS; i++) {
                CuptiFamilyTracer tracer = tracers.get(i);
                tracer.invoke("fakeReset", 0); // MCPTI: no scripted quirks; PPU: the argument is unused
                Path trace = dir.resolve("r" + round + "-t" + i + ".json");
                try (ProfilerSession session = Profiler.start(tracer, SessionOptions.to(trace))) {
                    for (int k = 0; k < LAUNCHES; k++) {
                        try (OpScope op = session.op("app::launch")) {
                            tracer.invoke("fakeLaunchKernel", k & 1);
                        }
                    }
                }
                int kernels = FakeCuptiRun.category(TraceJson.MAPPER.readTree(trace.toFile()), "kernel").size();
                if (kernels != LAUNCHES) {
                    missing.add("round " + round + " tracer " + i + " (" + tracer.name() + "): " + kernels + " of "
                            + LAUNCHES);
                }
            }
        }
        assertEquals(List.of(), missing, "sessions whose kernels did not all arrive");
    }
}
