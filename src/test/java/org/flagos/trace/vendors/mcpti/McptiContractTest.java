package org.flagos.trace.vendors.mcpti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.VendorContract;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.stages.names.ItaniumDemangler;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.testing.FakeCuptiRun;
import org.flagos.trace.testing.FakeCuptiRun.Live;
import org.flagos.trace.testing.FakeCuptiRun.Truth;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.junit.jupiter.api.Test;

/**
 * MCPTI's row of the vendor contract, on a live session of {@link McptiTracer} over the fake MCPTI
 * (src/test/native/fake_mcpti.c) driven by the scripted workload, and the exact record-by-record
 * check of that workload: every record the fake wrote appears once with its times, name and
 * External id; the "timing unavailable" records and the malformed bytes are skipped and counted
 * exactly; the API-name resolver was never called while a buffer callback ran; the dump replays
 * to the same trace.
 */
class McptiContractTest extends VendorContract {
    private static final String[] KERNELS = {"_Z9fake_gemmPfS_S_i", "_Z8fake_addPfS_i"};
    private static final Map<Long, String> RUNTIME_NAMES = Map.of(57L, "mcLaunchKernel", 23L, "mcMemcpyAsync",
            29L, "mcMemsetAsync");
    private static final Map<Integer, String> DEVICE_CATEGORY = Map.of(10, "kernel", 1, "gpu_memcpy", 2, "gpu_memset");

    private McptiTracer tracer;
    private Live live;
    /** The fake's counts right after the session (fakeStat 0..4). */
    private final long[] fakeStats = new long[5];

    private static String library() {
        return FakeVendorLibrary.build("fake_mcpti").toString();
    }

    @Override
    protected Capabilities capabilities() {
        return Capabilities.cudaLike("mcpti", "privateuse1_runtime");
    }

    @Override
    protected Traced produceTrace() throws Exception {
        tracer = new McptiTracer(library());
        assertTrue(tracer.available(), tracer.unavailableReason());
        tracer.invoke("fakeReset", 1);
        live = FakeCuptiRun.record(tracer, scratch("mcpti-live"));
        for (int i = 0; i < fakeStats.length; i++) {
            fakeStats[i] = tracer.invoke("fakeStat", i);
        }
        return new Traced(live.trace(), live.summary());
    }

    @Override
    protected String opWithDeviceWork() {
        return "app::mm";
    }

    private Live live() {
        trace();
        return live;
    }

    private static Map<Long, JsonNode> byCorrelation(List<JsonNode> events) {
        Map<Long, JsonNode> out = new HashMap<>();
        for (JsonNode e : events) {
            long correlation = e.get("args").get("correlation").asLong();
            assertTrue(out.put(correlation, e) == null, "correlation " + correlation + " twice: " + e);
        }
        return out;
    }

    @Test
    void everyScriptedRecordAppearsOnceWithItsTimesNameAndExternalId() {
        Live run = live();
        JsonNode trace = run.trace();
        int calls = FakeCuptiRun.THREADS * FakeCuptiRun.ITERATIONS * 4;
        assertEquals(2 * calls, run.truth().size(), "the fake logged one API and one device record per call");
        Map<String, Map<Long, JsonNode>> byCategory = new HashMap<>();
        for (String cat : List.of("kernel", "gpu_memcpy", "gpu_memset", "privateuse1_runtime")) {
            byCategory.put(cat, byCorrelation(FakeCuptiRun.category(trace, cat)));
        }
        int expectedDevice = 0;
        int expectedApi = 0;
        for (Truth t : run.truth()) {
            String cat = t.kind() == CuptiActivityKind.RUNTIME ? "privateuse1_runtime" : DEVICE_CATEGORY.get(t.kind());
            assertNotNull(cat, "kind " + t.kind());
            JsonNode e = byCategory.get(cat).get(t.correlation());
            if ((t.flags() & 1) != 0) {
                assertEquals(null, e, "a start == end == 0 record is skipped: " + t);
                continue;
            }
            assertNotNull(e, "record in the trace: " + t);
            assertEquals(t.start(), FakeCuptiRun.startNs(trace, e), "start of " + t);
            assertEquals(t.end() - t.start(), FakeCuptiRun.durationNs(e), "duration of " + t);
            assertTrue(t.hasExternal(), "every call of the workload runs inside an op");
            assertEquals(t.external(), e.get("args").get("External id").asLong(), "External id of " + t);
            if (t.kind() == CuptiActivityKind.RUNTIME) {
                expectedApi++;
                assertEquals(RUNTIME_NAMES.get(t.id()), e.get("name").asText(), "MCPTI's own name for cbid " + t.id());
                assertEquals(t.id(), e.get("args").get("cbid").asLong());
            } else {
                expectedDevice++;
                if (t.kind() == CuptiActivityKind.CONCURRENT_KERNEL) {
                    assertEquals(ItaniumDemangler.demangle(KERNELS[(int) t.id()]), e.get("name").asText());
                    assertEquals("[" + (8 + t.id()) + ", 2, 1]", e.get("args").get("grid").toString().replace(",", ", "));
                } else {
                    assertEquals(t.bytes(), e.get("args").get("bytes").asLong());
                }
            }
        }
        int device = byCategory.get("kernel").size() + byCategory.get("gpu_memcpy").size() + byCategory.get("gpu_memset").size();
        assertEquals(expectedDevice, device, "no device record other than the fake's");
        assertEquals(expectedApi, byCategory.get("privateuse1_runtime").size(), "no API record other than the fake's");
        assertEquals(FakeCuptiRun.THREADS * FakeCuptiRun.ITERATIONS * 4 - FakeCuptiRun.THREADS, expectedDevice,
                "every 4th memset of each thread has no timing");
    }

    @Test
    void oneArrowPerDeviceRecordFromItsLaunch() {
        JsonNode trace = live().trace();
        Set<Long> device = new HashSet<>();
        for (String cat : List.of("kernel", "gpu_memcpy", "gpu_memset")) {
            for (JsonNode e : FakeCuptiRun.category(trace, cat)) {
                device.add(e.get("args").get("correlation").asLong());
            }
        }
        Set<Long> starts = new HashSet<>();
        Set<Long> finishes = new HashSet<>();
        for (JsonNode e : FakeCuptiRun.category(trace, "ac2g")) {
            assertTrue((e.get("ph").asText().equals("s") ? starts : finishes).add(e.get("id").asLong()), "one half each: " + e);
        }
        assertEquals(device, finishes);
        assertEquals(device, starts);
    }

    @Test
    void timingUnavailableAndMalformedBytesAreCountedExactly() {
        Live run = live();
        McptiTracer.Scan scan = tracer.lastScan();
        long perThreadExternals = FakeCuptiRun.ITERATIONS * 4L;
        long injections = FakeCuptiRun.THREADS * (perThreadExternals / 3);
        assertEquals(FakeCuptiRun.THREADS * (FakeCuptiRun.ITERATIONS / 4L), scan.timingUnavailable());
        assertEquals(fakeStats[3], scan.timingUnavailable(), "as many as the fake wrote");
        assertEquals(injections, scan.resyncs());
        assertEquals(injections * 16, scan.resyncedBytes());
        assertEquals(fakeStats[2], scan.resyncedBytes(), "as many bytes as the fake wrote");
        assertEquals(scan.resyncedBytes(), run.accounting().decode().undecodableBytes());
        assertEquals(0, run.accounting().decode().invalidRecords(), run.accounting().decode().problems());
        assertEquals(List.of(), scan.namedLate());
    }

    @Test
    void theNameResolverNeverRanWhileABufferCallbackDid() {
        live();
        assertEquals(0, fakeStats[0], "mcptiActivityGetApiName called inside a buffer callback");
        assertTrue(fakeStats[1] > 300, "the namespace was resolved (before arming)");
        assertEquals(0, fakeStats[4], "no pop refused (a real out-parameter)");
        assertEquals(0, tracer.popFailures());
    }

    @Test
    void theDumpReplaysToTheLiveTrace() {
        Live run = live();
        TraceJson.Replayed replayed = FakeCuptiRun.replay(run.capture());
        assertEquals(FakeCuptiRun.events(run.trace()), FakeCuptiRun.events(replayed.trace()));
        assertEquals(run.accounting().decode().undecodableBytes(), replayed.result().accounting().decode().undecodableBytes());
        KernelNameFile names = KernelNameFile.read(KernelNameFile.besides(run.capture()));
        assertEquals("mcLaunchKernel", names.lookup(ApiNameHandle.of(CuptiActivityKind.RUNTIME, 57)), "API names saved for replays");
    }

    /** An id outside the namespace resolved at start: generic live, named after the final flush, named by the replay. */
    @Test
    void anIdOutsideTheResolvedNamespaceIsNamedAfterTheFinalFlush() throws Exception {
        trace(); // the main session first: sessions run one at a time
        McptiTracer late = new McptiTracer(library());
        late.invoke("fakeReset", 1);
        Path dir = scratch("mcpti-late");
        Path capture = dir.resolve("late.fltrbuf");
        ProfilerSession session = Profiler.start(late, SessionOptions.to(dir.resolve("late.json")).withDumpBuffers(capture));
        Thread thread = new Thread(() -> {
            try (OpScope op = session.op("app::host")) {
                late.invoke("fakeLateApiCall", 0);
            }
        });
        thread.start();
        thread.join();
        session.close();
        JsonNode liveTrace = TraceJson.MAPPER.readTree(dir.resolve("late.json").toFile());
        List<JsonNode> api = FakeCuptiRun.category(liveTrace, "privateuse1_runtime");
        assertEquals(1, api.size());
        // The naming stage read the map, never the vendor: generic when it named the record before the
        // late resolution, the name when after (the stage runs beside the final flush).
        assertTrue(Set.of("mcptiRuntime", "mcLaunchHostFunc").contains(api.get(0).get("name").asText()), api.get(0).toString());
        assertEquals(List.of("5000=mcLaunchHostFunc"), late.namedLate());
        assertEquals(0, late.invoke("fakeStat", 0), "resolved after the final flush, outside every callback");
        List<JsonNode> replayed = FakeCuptiRun.category(FakeCuptiRun.replay(capture).trace(), "privateuse1_runtime");
        assertEquals("mcLaunchHostFunc", replayed.get(0).get("name").asText(), "the capture's name table names it");
    }
}
