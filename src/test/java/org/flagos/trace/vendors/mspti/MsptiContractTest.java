package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.VendorContract;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlWriter;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RealtimeClock;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * MSPTI's row of the vendor contract, on a live session of {@link MsptiTracer} over the fake
 * libmspti (loaded through the same path as the real one): three threads run a fixed script of
 * nested ops, launches, copies and memsets; one launch runs outside any op, one was recorded before
 * the window. Beyond the contract: every scripted record exactly once with its times, name and
 * External id, one arrow per device record from the call that names it, and the dumped capture
 * replays to the live trace event for event.
 */
class MsptiContractTest extends VendorContract {
    private static final String[] KERNEL_NAMES = {"fake_matmul_kernel", "fake_relu_kernel", "fake_add_kernel"};
    private static final int THREADS = 3;

    private Path dump;
    private long base;
    private final Map<Long, Long> externalByStep = new java.util.concurrent.ConcurrentHashMap<>();
    private ProfilerSession session;
    private MsptiTracer tracer;
    private long unsubscribedBeforeFlush;

    @Override
    protected Capabilities capabilities() {
        // No callback id (the API record carries its name); no grid/block/registers/shared memory/
        // occupancy/queued and no context in the kernel record; copies and memsets are recorded by
        // CANN under the preload (the seed measured both), and the fake emits both.
        return Capabilities.cudaLike("mspti", "privateuse1_runtime")
                .withoutCbid()
                .withKernelFields(Set.of("External id", "device", "stream", "correlation"))
                .withTransferFields(Set.of("External id", "bytes", "correlation", "device", "memory bandwidth (GB/s)", "stream"));
    }

    @Override
    protected String opWithDeviceWork() {
        return "app::mm";
    }

    @Override
    protected Traced produceTrace() throws Exception {
        Path dir = scratch("flagtrace-mspti");
        Path trace = dir.resolve("live.json");
        dump = dir.resolve("live.fltrbuf");
        tracer = new MsptiTracer(FakeVendorLibrary.build("fake_mspti").toString(), "4,2");
        session = Profiler.start(tracer, SessionOptions.to(trace).withDumpBuffers(dump));
        base = tracer.invoke("fakeMsptiBegin", 0);
        tracer.invoke("fakeLaunchBeforeWindow", 900);
        tracer.invoke("fakeLaunchKernel", 50);
        List<Thread> threads = new ArrayList<>();
        for (int t = 1; t <= THREADS; t++) {
            long s = t * 100L;
            threads.add(new Thread(() -> script(s)));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        while (RealtimeClock.nowNs() < base + 5_000_000) {
            Thread.sleep(1); // the script's last device record ends 3.1 ms after base: inside the window
        }
        session.close();
        unsubscribedBeforeFlush = tracer.invoke("fakeUnsubscribedBeforeFlush", 0);
        return new Traced(TraceJson.MAPPER.readTree(trace.toFile()), session.summary());
    }

    private void script(long s) {
        try (OpScope step = session.op("app::step")) {
            launch(s, step);
            try (OpScope mm = session.op("app::mm")) {
                launch(s + 1, mm);
                externalByStep.put(s + 2, mm.externalId());
                tracer.invoke("fakeMemcpy", s + 2);
            }
            launch(s + 3, step); // after the nested op closed: its pop must have unwound MSPTI's stack
            synchronized (externalByStep) {
                externalByStep.put(s + 4, step.externalId());
            }
            tracer.invoke("fakeMemset", s + 4);
        }
    }

    private void launch(long step, OpScope op) {
        synchronized (externalByStep) {
            externalByStep.put(step, op.externalId());
        }
        tracer.invoke("fakeLaunchKernel", step);
    }

    private long ns(JsonNode e) {
        return trace().trace().get("baseTimeNanoseconds").asLong() + e.get("ts").decimalValue().movePointRight(3).longValueExact();
    }

    private long durNs(JsonNode e) {
        return e.get("dur").decimalValue().movePointRight(3).longValueExact();
    }

    private List<JsonNode> at(String category, long startNs) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : trace().category(category)) {
            if ("X".equals(e.path("ph").asText()) && ns(e) == startNs) {
                out.add(e);
            }
        }
        return out;
    }

    private List<Long> steps() {
        List<Long> steps = new ArrayList<>(List.of(50L));
        for (int t = 1; t <= THREADS; t++) {
            for (int k = 0; k < 5; k++) {
                steps.add(t * 100L + k);
            }
        }
        return steps;
    }

    @Test
    void everyScriptedRecordAppearsExactlyOnceWithItsTimesNameAndExternalId() {
        trace();
        assertEquals(16, trace().category("kernel").size() + trace().category("gpu_memcpy").size()
                + trace().category("gpu_memset").size());
        assertEquals(32, trace().category("privateuse1_runtime").size());
        for (long step : steps()) {
            long s = base + step * 10_000;
            long k = step % 100;
            String category = k == 2 ? "gpu_memcpy" : k == 4 ? "gpu_memset" : "kernel";
            List<JsonNode> device = at(category, s + 5_000);
            assertEquals(1, device.size(), "step " + step + " device record exactly once");
            JsonNode d = device.get(0);
            assertEquals(k == 2 ? 1_000 : k == 4 ? 2_000 : 3_000, durNs(d), "step " + step);
            assertEquals(1, d.get("pid").asInt(), "physical device 2 is logical 1 (ASCEND_RT_VISIBLE_DEVICES=4,2)");
            assertEquals(step / 100, d.get("tid").asLong(), "stream");
            assertEquals(k == 2 ? "Memcpy HtoD" : k == 4 ? "Memset" : KERNEL_NAMES[(int) (step % 3)], d.get("name").asText());
            if (k == 2) {
                assertEquals(4096 + step, d.get("args").get("bytes").asLong());
            } else if (k == 4) {
                assertEquals(step & 0xff, d.get("args").get("value").asLong());
                assertEquals(1024, d.get("args").get("bytes").asLong());
            }
            Long external = externalByStep.get(step);
            String[] apiNames = k == 2 ? new String[] {"aclrtMemcpy", "rtMemcpy"}
                    : k == 4 ? new String[] {"aclrtMemset", "rtMemset"} : new String[] {"aclnnFakeMatmul", "rtKernelLaunch"};
            List<JsonNode> acl = at("privateuse1_runtime", s);
            List<JsonNode> runtime = at("privateuse1_runtime", s + 1_000);
            assertEquals(1, acl.size(), "step " + step + " ACL record exactly once");
            assertEquals(1, runtime.size(), "step " + step + " runtime record exactly once");
            assertEquals(apiNames[0], acl.get(0).get("name").asText());
            assertEquals(apiNames[1], runtime.get(0).get("name").asText());
            assertEquals(4_000, durNs(acl.get(0)));
            assertEquals(2_000, durNs(runtime.get(0)));
            for (JsonNode e : List.of(d, acl.get(0), runtime.get(0))) {
                if (external == null) {
                    assertFalse(e.get("args").has("External id"), "launched outside any op: " + e);
                } else {
                    assertEquals(external.longValue(), e.get("args").get("External id").asLong(), "step " + step + ": " + e);
                }
            }
            // One arrow, from the call that names the device work: the launch for a kernel, the outermost copy/set call.
            JsonNode winner = k == 2 || k == 4 ? acl.get(0) : runtime.get(0);
            JsonNode loser = winner == acl.get(0) ? runtime.get(0) : acl.get(0);
            long flow = d.get("args").get("correlation").asLong();
            assertTrue(flow > 0 && flow <= 0xFFFF_FFFFL, "a 32-bit flow id, not MSPTI's 64-bit correlation: " + flow);
            assertEquals(flow, winner.get("args").get("correlation").asLong(), "step " + step);
            assertFalse(loser.get("args").has("correlation"), "step " + step + ": the other call draws no arrow");
            JsonNode start = arrowHalf("s", flow);
            JsonNode finish = arrowHalf("f", flow);
            assertEquals(ns(winner), ns(start));
            assertEquals(winner.get("tid").asLong(), start.get("tid").asLong());
            assertEquals(ns(d), ns(finish));
        }
        assertEquals(16, countPh("s"));
        assertEquals(16, countPh("f"));
    }

    private JsonNode arrowHalf(String ph, long id) {
        JsonNode found = null;
        for (JsonNode e : trace().category("ac2g")) {
            if (ph.equals(e.get("ph").asText()) && e.get("id").asLong() == id) {
                assertTrue(found == null, "one " + ph + " half per flow id " + id);
                found = e;
            }
        }
        assertNotNull(found, "no " + ph + " half for flow " + id);
        return found;
    }

    private long countPh(String ph) {
        return trace().category("ac2g").stream().filter(e -> ph.equals(e.get("ph").asText())).count();
    }

    @Test
    void nothingFromBeforeTheWindowIsInTheTrace() {
        long early = base - 1_000_000_000L + 900 * 10_000L;
        for (JsonNode e : trace().events()) {
            if (e.has("ts") && "X".equals(e.path("ph").asText())) {
                assertTrue(ns(e) >= base - 1_000_000 || "cpu_op".equals(e.path("cat").asText())
                        || "Trace".equals(e.path("cat").asText()), "before the window: " + e);
            }
        }
        assertTrue(at("kernel", early + 3_000).isEmpty());
        assertEquals(1, session.accounting().droppedOutsideWindow(EventKind.KERNEL));
        assertEquals(1, session.accounting().droppedOutsideWindow(EventKind.RUNTIME));
    }

    @Test
    void theTracerUnsubscribedBeforeFlushingAndEveryPopUnwound() {
        trace();
        assertEquals(1, unsubscribedBeforeFlush, "the seed's measured order: unsubscribe, then flush");
        assertEquals(0, tracer.popFailures());
        assertEquals(0, tracer.pushFailures());
    }

    @Test
    void theDumpReplaysToTheLiveTraceEventForEvent() throws Exception {
        trace();
        CaptureReplay.Request request = CaptureReplay.request(dump, OpsJsonlWriter.besides(dump), null, List.of(), Map.of());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.run(request, out);
        JsonNode replayed = TraceJson.MAPPER.readTree(out.toByteArray());
        List<String> live = events(trace().trace());
        List<String> again = events(replayed);
        assertEquals(live.size(), again.size());
        assertEquals(live, again);
        assertEquals(trace().trace().get("flagtrace").get("decoded"), replayed.get("flagtrace").get("decoded"));
        String names = Files.readString(KernelNameFile.besides(dump), StandardCharsets.UTF_8);
        for (String s : List.of("fake_matmul_kernel", "fake_relu_kernel", "fake_add_kernel", "AI_CORE", "aclnnFakeMatmul",
                "rtKernelLaunch", "aclrtMemcpy", "rtMemcpy", "aclrtMemset", "rtMemset")) {
            assertTrue(names.contains(s), "the name table covers " + s);
        }
    }

    private static List<String> events(JsonNode trace) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (!"M".equals(e.path("ph").asText())) {
                out.add(e.toString());
            }
        }
        Collections.sort(out);
        return out;
    }
}
