package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * One live H200 capture that holds every kind flagtrace records (issue 16, items 1-9): the kinds
 * workload from Java in torch's step schedule ({@code benchmarks/run-device-steps-twin.sh}: 5 steps,
 * wait 1, warmup 1, active 2), with NVTX ranges pushed from Java, Java stacks and unified-memory
 * records; captures/h200-java-steps/ holds the cycle's trace as written live, its buffer dump with
 * sidecars, and torch 2.11's trace of the same work under the same schedule (compared category by
 * category in {@code TorchStepsParityTest}). The dump replays to the live trace event for event; the
 * trace holds the two recorded steps and, inside them, each kind where torch puts it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiveStepsCaptureTest {
    private static final String NAME = "h200-java-steps/h200-java-steps";

    private JsonNode live;
    private JsonNode replayed;
    private final Map<Long, JsonNode> opById = new HashMap<>();

    @BeforeAll
    void load() throws Exception {
        try (InputStream in = Captures.open(Captures.dir().resolve(NAME + ".live.json.gz"))) {
            live = TraceJson.MAPPER.readTree(in);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.run(CaptureReplay.request(Captures.capture(NAME), Captures.ops(NAME), null, List.of(), Map.of()), out);
        replayed = TraceJson.MAPPER.readTree(out.toByteArray());
        for (String cat : List.of("cpu_op", "user_annotation")) {
            for (JsonNode e : category(cat)) {
                opById.put(e.get("args").get("External id").asLong(), e);
            }
        }
    }

    private List<JsonNode> category(String cat) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : live.get("traceEvents")) {
            if (cat.equals(e.path("cat").asText()) && !"f".equals(e.path("ph").asText()) && !"s".equals(e.path("ph").asText())) {
                out.add(e);
            }
        }
        return out;
    }

    private String opName(JsonNode e) {
        JsonNode op = opById.get(e.path("args").path("External id").asLong(-1));
        return op == null ? null : op.get("name").asText();
    }

    private static boolean encloses(JsonNode outer, JsonNode inner) {
        double s = outer.get("ts").asDouble();
        double t = inner.get("ts").asDouble();
        return s <= t && t + inner.path("dur").asDouble(0) <= s + outer.get("dur").asDouble() + 1e-3;
    }

    @Test
    void theDumpReplaysToTheLiveCycleEventForEvent() {
        assertEquals(TraceJson.sortedEventsWithoutRowLabels(live), TraceJson.sortedEventsWithoutRowLabels(replayed));
        assertEquals(live.get("flagtrace").get("decoded"), replayed.get("flagtrace").get("decoded"));
    }

    /** Item 8: the cycle is steps 2 and 3, each torch's ProfilerStep annotation around one kinds::step op. */
    @Test
    void theCycleHoldsTheTwoActiveStepsEachAroundItsWork() {
        List<JsonNode> steps = new ArrayList<>();
        for (JsonNode e : category("user_annotation")) {
            if (e.get("name").asText().startsWith("ProfilerStep#")) {
                steps.add(e);
            }
        }
        steps.sort((x, y) -> Double.compare(x.get("ts").asDouble(), y.get("ts").asDouble()));
        assertEquals(List.of("ProfilerStep#2", "ProfilerStep#3"), steps.stream().map(e -> e.get("name").asText()).toList());
        List<JsonNode> work = new ArrayList<>();
        for (JsonNode e : category("cpu_op")) {
            if (e.get("name").asText().equals("kinds::step")) {
                work.add(e);
            }
        }
        assertEquals(2, work.size(), "one kinds::step op per recorded step");
        for (JsonNode op : category("cpu_op")) {
            assertTrue(steps.stream().anyMatch(s -> encloses(s, op) && s.get("tid").equals(op.get("tid"))),
                    "every op lies in a recorded step on its thread: " + op);
        }
        for (String setUp : List.of("kinds::init", "kinds::alloc", "kinds::graph_capture", "kinds::teardown")) {
            assertTrue(category("cpu_op").stream().noneMatch(e -> e.get("name").asText().equals(setUp)), setUp + " is outside the cycle");
        }
    }

    /** Item 1: each synchronization type on the op that asked for it, in both steps. */
    @Test
    void everySynchronizationTypeIsACudaSyncOnItsOp() {
        Map<String, Set<String>> namesByOp = new HashMap<>();
        Map<String, Integer> perOp = new HashMap<>();
        for (JsonNode e : category("cuda_sync")) {
            String op = String.valueOf(opName(e));
            namesByOp.computeIfAbsent(op, k -> new TreeSet<>()).add(e.get("name").asText());
            perOp.merge(op + "/" + e.get("name").asText(), 1, Integer::sum);
        }
        assertEquals(Set.of("Stream Sync"), namesByOp.get("kinds::stream_sync"));
        assertEquals(2, perOp.get("kinds::stream_sync/Stream Sync"), "one per step");
        assertTrue(namesByOp.get("kinds::event_sync").contains("Event Sync"));
        assertTrue(namesByOp.get("kinds::stream_wait_event").contains("Stream Wait Event"));
        assertTrue(namesByOp.get("kinds::event_query").contains("Event Sync"));
        assertTrue(namesByOp.get("kinds::device_sync").contains("Context Sync"));
        assertEquals(Set.of("Context Sync"), namesByOp.get("null"), "cuCtxSynchronize: a driver call, drawn without its op");
    }

    /** Item 2: the graph captured once at set-up, launched 3 times a step: its records under each launch's op. */
    @Test
    void theGraphsRecordsCarryTheirIdsUnderTheLaunchingOp() {
        Map<Long, Integer> perLaunch = new HashMap<>();
        Set<Long> graphIds = new HashSet<>();
        for (String cat : List.of("kernel", "gpu_memcpy", "gpu_memset")) {
            for (JsonNode e : category(cat)) {
                if (e.get("args").has("graph id")) {
                    assertEquals("kinds::graph_launch", opName(e));
                    perLaunch.merge(e.get("args").get("External id").asLong(), 1, Integer::sum);
                    graphIds.add(e.get("args").get("graph id").asLong());
                }
            }
        }
        assertEquals(6, perLaunch.size(), "3 launches in each of 2 steps");
        assertEquals(Set.of(5), new HashSet<>(perLaunch.values()), "3 kernels, a copy and a set per launch");
        assertEquals(1, graphIds.size(), "one executable graph");
    }

    /** Item 3: managed memory's migrations on the device's Unified Memory row (transfer counters, no faults armed). */
    @Test
    void managedMemoryMigratesBothWays() {
        Set<String> kinds = new TreeSet<>();
        for (JsonNode e : category("unified_memory")) {
            kinds.add(e.get("name").asText());
        }
        assertTrue(kinds.stream().anyMatch(n -> n.contains("HtoD")) && kinds.stream().anyMatch(n -> n.contains("DtoH")), kinds.toString());
    }

    /** Item 4: CUPTI's overhead drawn in torch's category and counted. */
    @Test
    void cuptisOverheadIsDrawnAndCounted() {
        List<JsonNode> overhead = category("overhead");
        assertFalse(overhead.isEmpty());
        assertEquals(overhead.size(), live.get("flagtrace").get("profiler_overhead").get("records").asLong());
    }

    /** Item 5: NVTX ranges pushed from Java as user annotations inside kinds::nvtx, two in a named domain, and the marks. */
    @Test
    void nvtxRangesFromJavaNestInTheirOp() {
        Map<String, Integer> ranges = new HashMap<>();
        List<JsonNode> nvtxOps = new ArrayList<>();
        category("cpu_op").stream().filter(e -> e.get("name").asText().equals("kinds::nvtx")).forEach(nvtxOps::add);
        assertEquals(2, nvtxOps.size());
        for (JsonNode e : category("user_annotation")) {
            String name = e.get("name").asText();
            if (!name.startsWith("nvtx::")) {
                continue;
            }
            ranges.merge(name, 1, Integer::sum);
            assertEquals(name.startsWith("nvtx::domain"), e.get("args").has("domain"), name);
            if (!name.equals("nvtx::no_op")) {
                assertTrue(nvtxOps.stream().anyMatch(op -> encloses(op, e)), name + " inside its kinds::nvtx op");
            }
        }
        assertEquals(Map.of("nvtx::outer", 2, "nvtx::inner", 2, "nvtx::start_end", 2, "nvtx::push_ex", 2,
                "nvtx::domain_range", 2, "nvtx::domain_start_end", 2, "nvtx::no_op", 2), ranges);
        long marks = category("cpu_instant_event").stream().filter(e -> e.get("name").asText().equals("nvtx::mark")).count();
        assertEquals(2, marks);
    }

    /** Item 6: each step's span on the streams its work ran on. */
    @Test
    void gpuAnnotationSpansCoverEachStepsDeviceWork() {
        Set<String> spanned = new TreeSet<>();
        for (JsonNode e : category("gpu_user_annotation")) {
            spanned.add(e.get("name").asText());
        }
        assertTrue(spanned.containsAll(List.of("ProfilerStep#2", "ProfilerStep#3", "kinds::step", "kinds::graph_launch")), spanned.toString());
    }

    /** Item 7: device memory instants; what the steps allocate they free. */
    @Test
    void deviceMemoryComesBackWithinTheCycle() {
        long sum = 0;
        int n = 0;
        for (JsonNode e : category("cpu_instant_event")) {
            if (e.get("name").asText().equals("[memory]")) {
                sum += e.get("args").get("Bytes").asLong();
                n++;
            }
        }
        assertTrue(n > 0);
        assertEquals(0, sum, "every allocation of the two steps freed in them");
    }

    /** Item 9: torch-style arguments under the schedule, and each op's Java stack from the program's frame, 8 frames. */
    @Test
    void opsCarryArgumentsAndTheirJavaStack() {
        List<JsonNode> ops = category("cpu_op");
        for (JsonNode e : ops) {
            String stack = e.get("args").get("Call stack").asText();
            assertTrue(stack.startsWith("org.flagos.trace.vendors.cupti.workload.KindsWorkload."), e.get("name") + ": " + stack);
            assertEquals(8, stack.split(";").length, stack);
        }
        KindsOpArguments.assertFillAndMalloc(ops);
    }
}
