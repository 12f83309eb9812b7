package org.flagos.trace.vendors.roctracer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.VendorContract;
import org.flagos.trace.ingest.DeviceClockFile;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlWriter;
import org.flagos.trace.model.RealtimeClock;
import org.flagos.trace.stages.names.ItaniumDemangler;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.vendors.family.VendorClock;
import org.junit.jupiter.api.Test;

/**
 * ROCtracer's row of the vendor contract, on a live session of {@link RoctracerTracer} over the fake
 * libroctracer (loaded through the same path as the real one), with a scripted multi-threaded HIP
 * workload in nested ops; then the exact workload: every record the fake emitted is in the trace
 * exactly once with its times, name and External id, one paired arrow per device record, nothing
 * outside the window; and the dump replays to the same trace, in file order and reversed.
 *
 * <p>ROCtracer's kernel record has no grid, block, registers, shared memory, context or queued time:
 * the kernel row is External id, device, stream, correlation. Memset is a real ROCtracer record: the
 * HIP runtime reports hipMemset as a COPY op with command CL_COMMAND_FILL_BUFFER.
 */
class RoctracerContractTest extends VendorContract {
    private static final String[] KERNELS = {"_Z10vector_addPKfS0_Pfi", "_ZN2at6native18elementwise_kernelILi128ELi4EEEviPf",
            "_Z4gemmILi64ELi64EEvPKfS1_Pfiii"};
    private static final Map<Integer, String> API_NAMES = Map.of(48, "hipDeviceSynchronize", 107, "hipLaunchKernel",
            134, "hipMemcpyAsync", 159, "hipMemsetAsync");
    private static final int THREADS = 3;
    private static final int ITERATIONS = 4;
    // Truth row fields, as fake_roctracer.c numbers them.
    private static final int T_DOMAIN = 0, T_OP = 1, T_KIND = 2, T_CORRELATION = 3, T_BEGIN = 4, T_END = 5,
            T_EXTERNAL = 6, T_THREAD = 7, T_BYTES = 8, T_NAME = 9;

    private Path dir;
    private Path capture;
    private RoctracerTracer tracer;
    private CaptureAccounting accounting;
    /** Correlation of every call the workload made inside the session, to the External id of its innermost op (-1: none). */
    private final Map<Long, Long> launches = new ConcurrentHashMap<>();
    private long backdated;
    /** From just before the session's opening to just after: the tracer's clock started within it. */
    private long openTookNs;
    private long implausible;
    private long outsideOps;
    private List<long[]> truth;

    @Override
    protected Capabilities capabilities() {
        return Capabilities.cudaLike("roctracer", "privateuse1_runtime")
                .withKernelFields(Set.of("External id", "device", "stream", "correlation"))
                .withTransferFields(Set.of("External id", "bytes", "correlation", "device", "memory bandwidth (GB/s)", "stream"));
    }

    @Override
    protected String opWithDeviceWork() {
        return "app::mm";
    }

    @Override
    protected Traced produceTrace() throws Exception {
        dir = scratch("roctracer-contract");
        capture = dir.resolve("roc.fltrbuf");
        Path trace = dir.resolve("roc.json");
        tracer = new RoctracerTracer(FakeVendorLibrary.build("fake_roctracer").toString(), 4096);
        assertTrue(tracer.available(), tracer.unavailableReason());
        assertEquals(0, tracer.invoke("fakeHipLaunchKernel", 0), "no pool before the session: nothing recorded");
        tracer.invoke("fakeTruthReset", 0);
        long opened = RealtimeClock.nowNs();
        ProfilerSession session = Profiler.start(tracer, SessionOptions.to(trace).withDumpBuffers(capture));
        openTookNs = RealtimeClock.nowNs() - opened;
        try {
            // Backdated from the session's opening, not from the call: on two cores beside two CPU hogs the
            // session took over half a second to open, and work backdated half a second from the call lay
            // inside the window. 1 ms before the opening: before the window, and within the vendor clock's
            // 1 s of slack unless the tracer's start (where the clock starts) came a second after the
            // opening (once in 200 load-loop runs it came more than 0.8 s after: see openTookNs).
            tracer.invoke("fakeBackdate", RealtimeClock.nowNs() - opened + 1_000_000L); // in flight before the session: plausible, outside the window
            backdated = tracer.invoke("fakeHipLaunchKernel", 0);
            tracer.invoke("fakeBackdate", RealtimeClock.nowNs() - opened + 5_000_000_000L); // not this session's at all: implausible
            implausible = tracer.invoke("fakeHipLaunchKernel", 1);
            tracer.invoke("fakeBackdate", 0);
            outsideOps = tracer.invoke("fakeHipLaunchKernel", 2);
            launches.put(outsideOps, -1L);
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                threads.add(new Thread(() -> {
                    try {
                        work(session, thread);
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "hip-worker-" + t));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), failures.toString());
        } finally {
            session.close();
        }
        assertEquals(0, tracer.invoke("fakeHipLaunchKernel", 0), "no pool after the session: nothing recorded");
        accounting = session.accounting();
        truth = new ArrayList<>();
        long rows = tracer.invoke("fakeTruthCount", 0);
        for (long row = 0; row < rows; row++) {
            long[] r = new long[10];
            for (int f = 0; f < r.length; f++) {
                r[f] = tracer.invoke("fakeTruthField", row * 16 + f);
            }
            truth.add(r);
        }
        return new Traced(TraceJson.MAPPER.readTree(trace.toFile()), session.summary());
    }

    private void work(ProfilerSession session, int thread) {
        for (int i = 0; i < ITERATIONS; i++) {
            try (OpScope step = session.op("app::step")) {
                call(step, "fakeHipLaunchKernel", thread % KERNELS.length);
                try (OpScope mm = session.op("app::mm")) {
                    call(mm, "fakeHipLaunchKernel", 2);
                    call(mm, "fakeHipMemcpyAsync", 4096L * (thread + 1));
                }
                try (OpScope fill = session.op("app::fill")) {
                    call(fill, "fakeHipMemsetAsync", 1024);
                }
                call(step, "fakeHipDeviceSynchronize", 0);
            }
        }
    }

    private void call(OpScope op, String symbol, long argument) {
        long correlation = tracer.invoke(symbol, argument);
        assertTrue(correlation > 0, symbol + " recorded");
        launches.put(correlation, op.externalId());
    }

    private List<long[]> truthOf(int domain) {
        List<long[]> rows = new ArrayList<>();
        for (long[] r : truth) {
            if (r[T_DOMAIN] == domain && r[T_CORRELATION] != backdated && r[T_CORRELATION] != implausible) {
                rows.add(r);
            }
        }
        return rows;
    }

    private Map<Long, List<JsonNode>> byCorrelation(String category) {
        Map<Long, List<JsonNode>> out = new HashMap<>();
        for (JsonNode e : trace().category(category)) {
            out.computeIfAbsent(e.get("args").get("correlation").asLong(), k -> new ArrayList<>()).add(e);
        }
        return out;
    }

    private BigDecimal micros(long ns) {
        return BigDecimal.valueOf(ns).movePointLeft(3);
    }

    private void assertTimes(JsonNode e, long[] row, DeviceClockMapping clock, long base) {
        long start = clock.toEpoch(row[T_BEGIN]);
        long end = clock.toEpoch(row[T_END]);
        assertEquals(0, micros(start - base).compareTo(e.get("ts").decimalValue()), "ts of " + e);
        assertEquals(0, micros(end - start).compareTo(e.get("dur").decimalValue()), "dur of " + e);
    }

    private void assertExternalId(JsonNode e, long correlation) {
        long expected = launches.get(correlation);
        if (expected < 0) {
            assertFalse(e.get("args").has("External id"), "a call outside any op has no External id: " + e);
        } else {
            assertEquals(expected, e.get("args").get("External id").asLong(), "External id of " + e);
        }
    }

    @Test
    void everyRecordOfTheWorkloadIsInTheTraceOnceWithItsTimesNameAndExternalId() throws Exception {
        trace();
        DeviceClockMapping clock = DeviceClockFile.read(DeviceClockFile.besides(capture));
        assertFalse(clock.isIdentity(), "ROCtracer's BOOTTIME clock is mapped to epoch");
        long base = trace().trace().get("baseTimeNanoseconds").asLong();
        int calls = 1 + THREADS * ITERATIONS * 5;
        assertEquals(calls, launches.size());

        List<long[]> api = truthOf(RoctracerRecord.DOMAIN_HIP_API);
        List<long[]> ops = truthOf(RoctracerRecord.DOMAIN_HIP_OPS);
        List<long[]> ext = truthOf(RoctracerRecord.DOMAIN_EXT_API);
        assertEquals(calls, api.size());
        assertEquals(calls, ops.size());
        assertEquals(calls - 1, ext.size(), "one binding per call made inside an op");
        for (long[] r : ext) {
            assertEquals((long) launches.get(r[T_CORRELATION]), r[T_EXTERNAL], "the fake bound the innermost op's id");
        }

        Map<Long, List<JsonNode>> runtime = byCorrelation("privateuse1_runtime");
        assertEquals(calls, trace().category("privateuse1_runtime").size(), "nothing but the workload's calls");
        for (long[] r : api) {
            List<JsonNode> found = runtime.get(r[T_CORRELATION]);
            assertNotNull(found, "HIP call " + r[T_CORRELATION]);
            assertEquals(1, found.size());
            JsonNode e = found.get(0);
            assertEquals(API_NAMES.get((int) r[T_OP]), e.get("name").asText());
            assertEquals(r[T_OP], e.get("args").get("cbid").asLong());
            assertEquals(r[T_THREAD], e.get("tid").asLong());
            assertEquals(ProcessHandle.current().pid(), e.get("pid").asLong());
            assertTimes(e, r, clock, base);
            assertExternalId(e, r[T_CORRELATION]);
        }

        Map<String, Map<Long, List<JsonNode>>> device = Map.of("kernel", byCorrelation("kernel"),
                "gpu_memcpy", byCorrelation("gpu_memcpy"), "gpu_memset", byCorrelation("gpu_memset"));
        int deviceRecords = 0;
        for (long[] r : ops) {
            String category = r[T_OP] == RoctracerRecord.OP_DISPATCH ? "kernel"
                    : r[T_OP] == RoctracerRecord.OP_BARRIER ? null
                    : r[T_KIND] == RoctracerRecord.CMD_FILL_BUFFER ? "gpu_memset" : "gpu_memcpy";
            if (category == null) {
                for (Map<Long, List<JsonNode>> events : device.values()) {
                    assertFalse(events.containsKey(r[T_CORRELATION]), "a barrier is no device work");
                }
                continue;
            }
            deviceRecords++;
            List<JsonNode> found = device.get(category).get(r[T_CORRELATION]);
            assertNotNull(found, category + " of call " + r[T_CORRELATION]);
            assertEquals(1, found.size());
            JsonNode e = found.get(0);
            assertTimes(e, r, clock, base);
            assertExternalId(e, r[T_CORRELATION]);
            assertEquals(1, e.get("pid").asLong(), "the device id the record carries");
            assertEquals(r[T_THREAD] % 2, e.get("tid").asLong(), "the queue id, as the stream");
            switch (category) {
                case "kernel":
                    assertEquals(ItaniumDemangler.demangle(KERNELS[(int) r[T_NAME]]), e.get("name").asText());
                    break;
                case "gpu_memcpy":
                    assertEquals("Memcpy HtoD", e.get("name").asText());
                    assertEquals(r[T_BYTES], e.get("args").get("bytes").asLong());
                    break;
                default:
                    assertEquals("Memset", e.get("name").asText());
                    assertEquals(r[T_BYTES], e.get("args").get("bytes").asLong());
            }
        }
        int deviceEvents = 0;
        for (Map<Long, List<JsonNode>> events : device.values()) {
            for (List<JsonNode> list : events.values()) {
                deviceEvents += list.size();
            }
        }
        assertEquals(deviceRecords, deviceEvents, "no device event the workload did not make");
        assertEquals("vector_add(float const*, float const*, float*, int)",
                ItaniumDemangler.demangle(KERNELS[0]), "kernel names are demangled");

        Set<Long> starts = new HashSet<>();
        Set<Long> finishes = new HashSet<>();
        for (JsonNode e : trace().category("ac2g")) {
            assertTrue((e.get("ph").asText().equals("s") ? starts : finishes).add(e.get("id").asLong()));
        }
        assertEquals(deviceRecords, finishes.size(), "one arrow per device record");
        assertEquals(starts, finishes, "every arrow paired");
    }

    @Test
    void nothingOutsideTheWindowAndEveryDropCounted() {
        trace();
        for (JsonNode e : trace().events()) {
            long correlation = e.path("args").path("correlation").asLong(-1);
            assertTrue(correlation != backdated && correlation != implausible, "out-of-session work in the trace: " + e);
        }
        assertEquals(4, accounting.droppedOutsideWindow(EventKind.KERNEL) + accounting.droppedOutsideWindow(EventKind.RUNTIME)
                + accounting.decode().invalidRecords(), "the two backdated kernels and their calls, each counted once");
        if (openTookNs < VendorClock.SLACK_NS - 1_000_000L) { // else the backdated pair may lie before the clock's slack
            assertEquals(1, accounting.droppedOutsideWindow(EventKind.KERNEL), "the kernel in flight before the session");
            assertEquals(1, accounting.droppedOutsideWindow(EventKind.RUNTIME), "and its HIP call");
            assertEquals(2, accounting.decode().invalidRecords(), "the implausible kernel and call: " + accounting.decode().problems());
        }
        assertEquals(Map.of(2002, (long) THREADS * ITERATIONS), accounting.decode().skippedByVendorKind(), "barriers");
        assertEquals(THREADS * ITERATIONS * 5, accounting.decode().bindings());
        assertTrue(accounting.lateJoined() > 0, "device records reached the join before their bindings");
        assertEquals(0, accounting.decode().unnamedKernels());
        assertEquals(0, tracer.pushFailures());
        assertEquals(0, tracer.popFailures());
    }

    @Test
    void theDumpReplaysToTheLiveTraceInAnyFrameOrder() throws Exception {
        trace();
        KernelNameFile names = KernelNameFile.read(KernelNameFile.besides(capture));
        API_NAMES.forEach((op, name) -> assertEquals(name, names.lookup(ApiNameHandle.of(RoctracerRecord.DOMAIN_HIP_API, op))));
        assertEquals(API_NAMES.size() + KERNELS.length, names.size(), "every API and kernel name the records point at, once");
        CaptureReplay.Request request = CaptureReplay.request(capture, OpsJsonlWriter.besides(capture), null, List.of(), Map.of());
        List<String> live = TraceJson.sortedEventsWithoutRowLabels(trace().trace());
        assertEquals(live, TraceJson.sortedEventsWithoutRowLabels(replay(request)));
        CaptureReplay.Request reversed = CaptureReplay.Request.of(request.capture(), request.source())
                .ops(request.ops()).kernelNames(request.kernelNames()).devices(request.devices())
                .metadata(request.metadata()).traceName(request.traceName())
                .frameOrder(frames -> {
                    List<CaptureReplay.Frame> copy = new ArrayList<>(frames);
                    Collections.reverse(copy);
                    return copy;
                })
                .ringSize(request.ringSize()).clock(request.clock()).build();
        assertEquals(live, TraceJson.sortedEventsWithoutRowLabels(replay(reversed)));
    }

    private static JsonNode replay(CaptureReplay.Request request) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.run(request, out);
        return TraceJson.MAPPER.readTree(out.toByteArray());
    }

}
