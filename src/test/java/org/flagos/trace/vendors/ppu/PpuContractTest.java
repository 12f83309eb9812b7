package org.flagos.trace.vendors.ppu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.VendorContract;
import org.flagos.trace.ingest.DeviceClockFile;
import org.flagos.trace.stages.names.ItaniumDemangler;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.testing.CatapultSliceTree;
import org.flagos.trace.testing.FakeCuptiRun;
import org.flagos.trace.testing.FakeCuptiRun.Live;
import org.flagos.trace.testing.FakeCuptiRun.Truth;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.junit.jupiter.api.Test;

/**
 * PPU's row of the vendor contract, on a live session of {@link PpuTracer} over the fake PPU CUPTI
 * (src/test/native/fake_ppu.c: a driver and a correlation record per runtime call, KERNEL and
 * CONCURRENT_KERNEL exclusive, a device clock of another epoch and rate), and the exact check of
 * the scripted workload. The dump ({@code .fltrbuf} vendor 1 with {@code clock.json}) replays with
 * each record exactly where the live session placed it: the session maps each buffer with the
 * mapping resampled before it, and a resample only adds a piece after every record already placed
 * ({@code VendorClock}), so the saved chain places them all as the session did.
 */
class PpuContractTest extends VendorContract {
    private static final String[] KERNELS = {"_Z9fake_gemmPfS_S_i", "_Z8fake_addPfS_i"};
    private static final Map<Long, String> API_NAMES = Map.of(211L, "cudaLaunchKernel", 41L, "cudaMemcpyAsync",
            51L, "cudaMemsetAsync", 307L, "cuLaunchKernel", 277L, "cuMemcpyHtoDAsync_v2", 216L, "cuMemsetD8Async");
    private static final Map<Integer, String> CATEGORY = Map.of(10, "kernel", 3, "kernel", 1, "gpu_memcpy",
            2, "gpu_memset", 5, "cuda_runtime", 4, "cuda_driver");

    private PpuTracer tracer;
    private Live live;
    private final long[] fakeStats = new long[4];

    private static String library() {
        return FakeVendorLibrary.build("fake_ppu").toString();
    }

    @Override
    protected Capabilities capabilities() {
        return Capabilities.cudaLike("ppu", "cuda_runtime");
    }

    @Override
    protected Traced produceTrace() throws Exception {
        tracer = new PpuTracer(library());
        assertTrue(tracer.available(), tracer.unavailableReason());
        tracer.invoke("fakeReset", 0);
        live = FakeCuptiRun.record(tracer, scratch("ppu-live"));
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

    private static Map<String, Map<Long, JsonNode>> byCategoryAndCorrelation(JsonNode trace) {
        Map<String, Map<Long, JsonNode>> out = new HashMap<>();
        for (String cat : new HashSet<>(CATEGORY.values())) {
            Map<Long, JsonNode> byCorrelation = new HashMap<>();
            for (JsonNode e : FakeCuptiRun.category(trace, cat)) {
                assertNull(byCorrelation.put(e.get("args").get("correlation").asLong(), e), "twice: " + e);
            }
            out.put(cat, byCorrelation);
        }
        return out;
    }

    /** Checks every truth record against {@code trace}, times within {@code toleranceNs} of {@code clock}'s. */
    private static void checkRecords(List<Truth> truth, JsonNode trace, DeviceClockMapping clock, long toleranceNs) {
        Map<String, Map<Long, JsonNode>> events = byCategoryAndCorrelation(trace);
        int expected = 0;
        for (Truth t : truth) {
            JsonNode e = events.get(CATEGORY.get(t.kind())).get(t.correlation());
            if ((t.flags() & 2) != 0) {
                assertNull(e, "an implausible record is dropped: " + t);
                continue;
            }
            expected++;
            assertNotNull(e, "in the trace: " + t);
            long start = clock.toEpoch(t.start());
            long duration = clock.toEpoch(t.end()) - start;
            assertTrue(Math.abs(FakeCuptiRun.startNs(trace, e) - start) <= toleranceNs,
                    "start " + FakeCuptiRun.startNs(trace, e) + " vs mapped " + start + " for " + t);
            assertTrue(Math.abs(FakeCuptiRun.durationNs(e) - duration) <= Math.max(1, toleranceNs / 100),
                    "duration " + FakeCuptiRun.durationNs(e) + " vs " + duration);
            assertEquals(t.external(), e.get("args").get("External id").asLong(), "External id of " + t);
            if (t.kind() == 4 || t.kind() == 5) {
                assertEquals(API_NAMES.get(t.id()), e.get("name").asText());
                assertEquals(t.id(), e.get("args").get("cbid").asLong());
            } else if (t.kind() == 10 || t.kind() == 3) {
                assertEquals(ItaniumDemangler.demangle(KERNELS[(int) t.id()]), e.get("name").asText());
            } else {
                assertEquals(t.bytes(), e.get("args").get("bytes").asLong());
            }
        }
        int total = 0;
        for (Map<Long, JsonNode> m : events.values()) {
            total += m.size();
        }
        assertEquals(expected, total, "no record other than the fake's");
    }

    private DeviceClockMapping savedClock() {
        return DeviceClockFile.read(DeviceClockFile.besides(live().capture()));
    }

    @Test
    void everyScriptedRecordAppearsOnceWithItsNameExternalIdAndMappedTimes() {
        Live run = live();
        int calls = FakeCuptiRun.THREADS * FakeCuptiRun.ITERATIONS * 4;
        assertEquals(3 * calls, run.truth().size(), "runtime, driver and device record per call");
        DeviceClockMapping clock = savedClock();
        assertTrue(Math.abs(clock.rate() - 20.0 / 21.0) < 0.01, "the device clock runs 21/20 of real time: " + clock);
        assertTrue(Math.abs(clock.epochNs() - clock.vendorNs()) > 1_000_000_000_000_000L, "another epoch: " + clock);
        checkRecords(run.truth(), run.trace(), clock, 0);
    }

    @Test
    void workOnTheStreamNeverOverlapsThoughItArrivedInManyBuffers() {
        // The fake runs one thing at a time on its stream, 50 device ns apart; a mapping re-fitted per
        // buffer could make two such records overlap, and a viewer then binds an arrow to neither.
        List<long[]> work = new ArrayList<>();
        for (String cat : List.of("kernel", "gpu_memcpy", "gpu_memset")) {
            for (JsonNode e : FakeCuptiRun.category(live().trace(), cat)) {
                long start = FakeCuptiRun.startNs(live().trace(), e);
                work.add(new long[] {start, start + FakeCuptiRun.durationNs(e)});
            }
        }
        work.sort((a, b) -> Long.compare(a[0], b[0]));
        for (int i = 1; i < work.size(); i++) {
            assertTrue(work.get(i)[0] > work.get(i - 1)[1], "device work " + i + " starts at " + work.get(i)[0]
                    + " ns, before the work ahead of it ends (" + work.get(i - 1)[1] + ")");
        }
        assertTrue(work.size() > 1, "device work in the trace: " + work.size());
    }

    @Test
    void theStreamRowNestsAndEveryArrowEndsOnItsOwnWorkAtTheNanosecondsWritten() {
        // What a viewer needs of a row, at the times written: slices nest (device work and the GPU
        // annotation spans around it) and each flow end's instant lies in its own device slice. The
        // Catapult viewer, nesting at whole microseconds, may still hide work queued less than a
        // microsecond after the slice before it (CatapultViewer.hiddenByRounding); no writer can help that.
        JsonNode trace = live().trace();
        List<long[]> row = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && e.path("pid").asLong(-1) == 0) {
                long start = FakeCuptiRun.startNs(trace, e);
                row.add(new long[] {start, start + FakeCuptiRun.durationNs(e)});
            }
        }
        row.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(b[1], a[1]));
        List<long[]> open = new ArrayList<>();
        for (long[] s : row) {
            while (!open.isEmpty() && open.get(open.size() - 1)[1] < s[0]) {
                open.remove(open.size() - 1);
            }
            long[] around = open.isEmpty() ? null : open.get(open.size() - 1);
            assertTrue(around == null || s[1] <= around[1], () -> "a slice of the stream row [" + s[0] + ", " + s[1]
                    + "] partly overlaps [" + around[0] + ", " + around[1] + "]");
            open.add(s);
        }
        Map<Long, JsonNode> ends = CatapultSliceTree.flowEnds(trace, CatapultSliceTree.Precision.NANOSECONDS);
        int device = 0;
        for (String cat : List.of("kernel", "gpu_memcpy", "gpu_memset")) {
            for (JsonNode e : FakeCuptiRun.category(trace, cat)) {
                long correlation = e.get("args").get("correlation").asLong();
                assertEquals(e, ends.get(correlation), "the arrow's end lies in its own device slice");
                device++;
            }
        }
        assertTrue(device > 1 && row.size() > device, "device work and spans on the row: " + row.size());
    }

    @Test
    void theDumpReplaysWithTheSavedClockExactlyToTheLiveTraceTimesIncluded() {
        Live run = live();
        TraceJson.Replayed replayed = FakeCuptiRun.replay(run.capture());
        checkRecords(run.truth(), replayed.trace(), savedClock(), 0);
        List<String> liveEvents = events(run.trace());
        List<String> replayEvents = events(replayed.trace());
        List<String> onlyLive = new ArrayList<>(liveEvents);
        onlyLive.removeAll(replayEvents);
        List<String> onlyReplay = new ArrayList<>(replayEvents);
        onlyReplay.removeAll(liveEvents);
        assertEquals(List.of(), onlyLive, "live events the replay lacks (replay-only: " + onlyReplay + ")");
        assertEquals(liveEvents, replayEvents, "the same events, fields and arrows");
    }

    /** The events but the row labels and the window, which the replay writes from its own facts. */
    private static List<String> events(JsonNode trace) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (!"M".equals(e.path("ph").asText()) && !"Trace".equals(e.path("cat").asText())) {
                out.add(e.toString());
            }
        }
        Collections.sort(out);
        return out;
    }

    @Test
    void implausibleTimesAreDroppedAndCountedExactly() {
        Live run = live();
        assertEquals(FakeCuptiRun.THREADS * (FakeCuptiRun.ITERATIONS / 4), fakeStats[1]);
        assertEquals(fakeStats[1], run.accounting().decode().invalidRecords(), run.accounting().decode().problems());
        assertEquals(0, run.accounting().decode().undecodableBytes());
    }

    @Test
    void oneArrowPerDeviceRecordFromItsRuntimeCall() {
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
            assertTrue((e.get("ph").asText().equals("s") ? starts : finishes).add(e.get("id").asLong()), e.toString());
        }
        assertEquals(device, finishes);
        assertEquals(device, starts);
    }

    @Test
    void concurrentKernelIsEnabledAloneAndEverythingIsDisabledAtStop() {
        live();
        assertEquals(CuptiActivityKind.CONCURRENT_KERNEL, tracer.kernelKind());
        assertEquals(0, fakeStats[0], "KERNEL never enabled beside CONCURRENT_KERNEL");
        assertEquals(0, fakeStats[3], "every kind enabled was disabled at stop");
        assertEquals(0, fakeStats[2], "no pop refused");
        assertTrue(live.truth().stream().noneMatch(t -> t.kind() == 3));
    }

    @Test
    void whenConcurrentKernelIsRefusedKernelIsUsedInstead() throws Exception {
        trace(); // the main session first: sessions run one at a time
        PpuTracer fallback = new PpuTracer(library());
        fallback.invoke("fakeReset", 0);
        fallback.invoke("fakeRefuseConcurrentKernel", 1);
        Path dir = scratch("ppu-fallback");
        ProfilerSession session = Profiler.start(fallback, SessionOptions.to(dir.resolve("t.json")));
        Thread thread = new Thread(() -> {
            try (OpScope op = session.op("app::mm")) {
                fallback.invoke("fakeLaunchKernel", 1);
            }
        });
        thread.start();
        thread.join();
        session.close();
        assertEquals(CuptiActivityKind.KERNEL, fallback.kernelKind());
        assertEquals(0, fallback.invoke("fakeStat", 0), "never both kernel kinds");
        assertEquals(0, fallback.invoke("fakeStat", 3), "KERNEL disabled at stop");
        List<Truth> truth = FakeCuptiRun.truth(fallback);
        assertEquals(1, truth.stream().filter(t -> t.kind() == 3).count());
        JsonNode trace = TraceJson.MAPPER.readTree(dir.resolve("t.json").toFile());
        List<JsonNode> kernels = FakeCuptiRun.category(trace, "kernel");
        assertEquals(1, kernels.size());
        assertEquals(ItaniumDemangler.demangle(KERNELS[1]), kernels.get(0).get("name").asText());
        fallback.invoke("fakeRefuseConcurrentKernel", 0);
    }
}
