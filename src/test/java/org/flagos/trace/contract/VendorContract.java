package org.flagos.trace.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.OpSummaryRow;
import org.flagos.trace.testing.CatapultViewer;
import org.flagos.trace.testing.TargetScratch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The seven parity assertions as a contract every vendor's trace satisfies, gated by the vendor's
 * declared {@link Capabilities}. Each gate has an unconditional floor, so that no row can turn an
 * assertion into one that checks nothing: a vendor without flows must still have no dangling
 * halves; one without linkage must still reconcile its summary with its trace; and so on.
 *
 * <p>An eighth check is what a user sees: the trace imports into the Catapult trace viewer (the
 * engine of chrome://tracing) in a real browser without a warning ({@link CatapultViewer}).
 *
 * <p>A vendor's test extends this class and supplies its trace (from its fake library through the
 * native path, or from a capture replayed) and its row. Structure only, never counts that drift.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class VendorContract {
    private static final Set<String> DEVICE_CATEGORIES = Set.of("kernel", "gpu_memcpy", "gpu_memset");
    /** Every category a flagtrace trace may hold. */
    private static final Set<String> KNOWN_CATEGORIES = Set.of("cpu_op", "kernel", "gpu_memcpy", "gpu_memset", "ac2g",
            "Trace", "cuda_runtime", "cuda_driver", "privateuse1_runtime", "privateuse1_driver", "cuda_sync", "overhead", "cpu_instant_event",
            "user_annotation", "gpu_user_annotation", "unified_memory");
    /** What a flow arrow may end on: device work, or the synchronization a synchronizing call asked for. */
    private static final Set<String> FLOW_END_CATEGORIES = Set.of("kernel", "gpu_memcpy", "gpu_memset", "cuda_sync");
    /** Kinds a vendor may declare beyond the seven assertions' rows ({@link #declaredKinds}). */
    protected static final String SYNC = "cuda_sync";
    protected static final String OVERHEAD = "overhead";
    protected static final String GRAPH_IDS = "graph ids";
    /** NVTX ranges and marks (CUPTI's MARKER): {@code user_annotation} ranges and thread instants. */
    protected static final String ANNOTATIONS = "user_annotation";
    /** Unified-memory migrations and page faults (CUPTI's UNIFIED_MEMORY_COUNTER), on each device's Unified Memory row. */
    protected static final String UNIFIED_MEMORY = "unified_memory";
    /** The names a unified-memory event may have. */
    private static final Set<String> UNIFIED_MEMORY_NAMES = Set.of("Unified Memory memcpy HtoD", "Unified Memory memcpy DtoH",
            "Unified Memory memcpy DtoD", "CPU page fault", "GPU page fault group", "Unified Memory thrashing",
            "Unified Memory throttling", "Unified Memory remote map");
    /** torch's args of a {@code user_annotation} range, in its order; a range in a named NVTX domain adds {@code domain}. */
    private static final List<String> ANNOTATION_ARGS = List.of("External id", "Record function id", "Ev Idx");
    /** Copies between two GPUs (CUPTI's MEMCPY2): {@code gpu_memcpy} events with kineto's PtoP args. */
    protected static final String PEER_COPIES = "peer copies";
    /** kineto's args of a peer copy in place of a copy's device and context, in its order. */
    private static final List<String> PEER_ARGS = List.of("fromDevice", "inDevice", "toDevice", "fromContext", "inContext",
            "toContext");
    /** kineto's args of every cuda_sync event, and of an event synchronization's in addition. */
    private static final Set<String> SYNC_ARGS = Set.of("cuda_sync_kind", "stream", "correlation", "device", "context");
    private static final Set<String> EVENT_SYNC_ARGS = Set.of("wait_on_stream", "wait_on_cuda_event_record_corr_id",
            "wait_on_cuda_event_id");
    /** Newer kineto's graph args, on kernels, copies and sets launched from a CUDA graph. */
    private static final Set<String> GRAPH_ARGS = Set.of("graph id", "graph node id");
    /** torch 2.11's {@code [memory]} args, in its order. */
    private static final List<String> MEMORY_ARGS = List.of("Total Reserved", "Total Allocated", "Bytes", "Device Id",
            "Device Type", "Addr", "finished", "Ev Idx");

    /** A trace to check: its parsed JSON and the summary flagtrace computed beside it. */
    public record Traced(JsonNode trace, OpSummary summary) {
        public List<JsonNode> events() {
            List<JsonNode> events = new ArrayList<>();
            trace.get("traceEvents").forEach(events::add);
            return events;
        }

        public List<JsonNode> category(String cat) {
            List<JsonNode> out = new ArrayList<>();
            for (JsonNode e : trace.get("traceEvents")) {
                if (cat.equals(e.path("cat").asText(null))) {
                    out.add(e);
                }
            }
            return out;
        }
    }

    private Traced traced;

    /**
     * The class's own scratch directory under target/ (its tests share the one trace), removed after
     * the class. Not a {@code @TempDir} field: JUnit gives an instance field a fresh directory per
     * test even in a per-class lifecycle, and the trace is made once.
     */
    private TargetScratch scratch;

    @BeforeAll
    void makeScratch() {
        scratch = TargetScratch.of(getClass().getSimpleName());
    }

    @AfterAll
    void removeScratch() {
        if (scratch != null) {
            scratch.close();
        }
    }

    /** A new empty directory {@code name} in the class's scratch directory, for a session's trace and capture. */
    protected final Path scratch(String name) {
        try {
            return Files.createDirectory(scratch.dir().resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The vendor's declared row. */
    protected abstract Capabilities capabilities();

    /** Produces the trace once per test class. */
    protected abstract Traced produceTrace() throws Exception;

    /**
     * Whether the vendor's trace holds device-memory events (CUPTI's MEMORY2); false unless a
     * vendor's test declares it, and only for a trace whose workload allocates while traced.
     */
    protected boolean declaresDeviceMemory() {
        return false;
    }

    /** An op whose launches the workload knows produce device work ({@code app::mm} and the like). */
    protected abstract String opWithDeviceWork();

    /**
     * The kinds beyond the seven rows this vendor's trace has ({@link #SYNC}, {@link #OVERHEAD},
     * {@link #GRAPH_IDS}, {@link #ANNOTATIONS}, {@link #PEER_COPIES}); none unless a vendor says otherwise, and a kind not declared must be
     * absent from its trace.
     */
    protected Set<String> declaredKinds() {
        return Set.of();
    }

    protected final Traced trace() {
        if (traced == null) {
            try {
                traced = produceTrace();
            } catch (Exception e) {
                throw new AssertionError("producing the trace failed: " + e, e);
            }
        }
        return traced;
    }

    private boolean isApi(String category) {
        return category.endsWith("_runtime") || category.endsWith("_driver");
    }

    // 1
    @Test
    void categoryCoverage() {
        Capabilities c = capabilities();
        Set<String> ours = new HashSet<>();
        boolean metadataRows = false;
        for (JsonNode e : trace().events()) {
            if (e.has("cat")) {
                ours.add(e.get("cat").asText());
            }
            metadataRows |= "M".equals(e.path("ph").asText());
        }
        // Floor: process/thread rows, host ops, the window, and no category outside the schema.
        assertTrue(metadataRows, "process/thread M rows");
        assertTrue(ours.contains("cpu_op") && ours.contains("Trace"), "host ops and the capture window: " + ours);
        assertTrue(KNOWN_CATEGORIES.containsAll(ours), "unknown categories in " + ours);
        Map<String, Boolean> gated = Map.of("kernel", c.kernels(), "gpu_memcpy", c.memcpy(), "gpu_memset", c.memset(),
                c.runtimeCategory(), c.runtime(), "ac2g", c.flows());
        gated.forEach((category, declared) -> {
            if (declared) {
                assertTrue(ours.contains(category), c.vendor() + " declares " + category + " but the trace has " + ours);
            }
        });
        for (String category : ours) {
            if (isApi(category)) {
                assertEquals(c.runtimeCategory(), category.replace("_driver", "_runtime"), "API records under the vendor's category");
            }
        }
    }

    // 2
    @Test
    void everyFlowArrowIsPairedRuntimeToDevice() {
        Map<Long, JsonNode> starts = new HashMap<>();
        Map<Long, JsonNode> finishes = new HashMap<>();
        Map<String, String> xCategoryAt = new HashMap<>();
        for (JsonNode e : trace().events()) {
            String ph = e.path("ph").asText();
            if (ph.equals("X") && e.path("args").has("correlation")) {
                xCategoryAt.put(at(e, e.get("args").get("correlation").asText()), e.get("cat").asText());
            }
            if ("ac2g".equals(e.path("cat").asText())) {
                assertTrue(ph.equals("s") || ph.equals("f"), "ac2g with ph " + ph);
                Map<Long, JsonNode> side = ph.equals("s") ? starts : finishes;
                assertTrue(side.put(e.get("id").asLong(), e) == null, "duplicate " + ph + " half for id " + e.get("id"));
                assertTrue(e.get("id").asLong() != 0, "flow id 0");
            }
        }
        // Floor: never a dangling half, whatever the row says.
        assertEquals(starts.keySet(), finishes.keySet(), "every s has its f and every f its s");
        for (Map.Entry<Long, JsonNode> s : starts.entrySet()) {
            JsonNode f = finishes.get(s.getKey());
            assertEquals("e", f.path("bp").asText(), "f halves bind to the enclosing slice");
            String correlation = flowCorrelation(s.getKey(), s.getValue(), xCategoryAt);
            String sCat = xCategoryAt.get(at(s.getValue(), correlation));
            String fCat = xCategoryAt.get(at(f, correlation));
            assertNotNull(sCat, "s half on no slice with its correlation: " + s.getValue());
            assertTrue(isApi(sCat), "s half sits on an API call: " + sCat);
            assertTrue(FLOW_END_CATEGORIES.contains(fCat), "f half sits on device work or a synchronization: " + fCat);
        }
        if (capabilities().flows()) {
            assertFalse(starts.isEmpty(), "no flow arrows");
            Set<String> launched = new HashSet<>();
            for (JsonNode e : trace().events()) {
                if (isApi(e.path("cat").asText()) && e.path("args").has("correlation")) {
                    launched.add(e.get("args").get("correlation").asText());
                }
            }
            long devicesWithLaunch = trace().events().stream()
                    .filter(e -> FLOW_END_CATEGORIES.contains(e.path("cat").asText()))
                    .filter(e -> launched.contains(e.path("args").path("correlation").asText("-")))
                    .count();
            assertEquals(devicesWithLaunch, finishes.size(), "one arrow per device record whose launch is in the trace");
            assertTrue(devicesWithLaunch > 0);
        }
    }

    /**
     * The correlation an arrow's id stands for: the id itself, or for a graph record's arrow its low
     * 32 bits (FlowIndex: correlation + (node + 1) * 2^32).
     */
    private static String flowCorrelation(long id, JsonNode s, Map<String, String> xCategoryAt) {
        String whole = Long.toUnsignedString(id);
        return xCategoryAt.containsKey(at(s, whole)) ? whole : Long.toString(id & 0xFFFF_FFFFL);
    }

    private static String at(JsonNode e, String correlation) {
        return e.get("pid").asText() + "/" + e.get("tid").asText() + "@" + e.get("ts").asText() + "#" + correlation;
    }

    // 3
    @Test
    void argKeysAreTheVendorsDeclaredSubsetOfTorchs() {
        Capabilities c = capabilities();
        Map<String, Set<String>> ours = new HashMap<>();
        for (JsonNode e : trace().events()) {
            String cat = e.path("cat").asText("None");
            e.path("args").fieldNames().forEachRemaining(k -> ours.computeIfAbsent(cat, x -> new TreeSet<>()).add(k));
        }
        // Floor: host ops carry their External id; device work names its device and stream.
        assertTrue(ours.getOrDefault("cpu_op", Set.of()).contains("External id"));
        for (String cat : DEVICE_CATEGORIES) {
            if (ours.containsKey(cat)) {
                Set<String> keys = ours.get(cat);
                assertTrue(keys.contains("stream") && (keys.contains("device") || keys.contains("inDevice")), cat + " " + keys);
            }
        }
        // The declared fields are present; nothing outside torch's schema is invented.
        Set<String> kernelWant = new HashSet<>(c.kernelFields());
        kernelWant.removeAll(Set.of("blocks per SM", "warps per SM", "est. achieved occupancy %")); // need device properties
        if (c.kernels()) {
            assertTrue(ours.get("kernel").containsAll(kernelWant), "kernel args " + ours.get("kernel") + " lack some of " + kernelWant);
            Set<String> kernelArgs = new TreeSet<>(ours.get("kernel"));
            kernelArgs.removeAll(GRAPH_ARGS); // gated below
            assertTrue(Capabilities.TORCH_KERNEL_FIELDS.containsAll(kernelArgs), "kernel args outside torch's: " + kernelArgs);
            Set<String> undeclared = new TreeSet<>(kernelArgs);
            undeclared.removeAll(c.kernelFields());
            assertTrue(undeclared.isEmpty(), "kernel args the vendor does not report, invented: " + undeclared);
        }
        for (String cat : List.of("gpu_memcpy", "gpu_memset")) {
            if (ours.containsKey(cat)) {
                Set<String> want = new HashSet<>(c.transferFields());
                want.remove("External id"); // only on transfers issued inside an op
                assertTrue(ours.get(cat).containsAll(want), cat + " args " + ours.get(cat) + " lack some of " + want);
                Set<String> extra = new TreeSet<>(ours.get(cat));
                extra.removeAll(c.transferFields());
                extra.remove("value");
                extra.removeAll(GRAPH_ARGS); // gated below
                extra.removeAll(PEER_ARGS); // gated below
                assertTrue(extra.isEmpty(), cat + " args not declared: " + extra);
            }
        }
        if (c.runtime()) {
            Set<String> api = ours.get(c.runtimeCategory());
            assertTrue(api.contains("correlation"), "API args " + api);
            assertEquals(c.cbid(), api.contains("cbid"), "cbid present exactly when declared: " + api);
        }
    }

    // 4
    @Test
    void selfDeviceTimeEqualsTheLinkedDeviceEventsInTheTrace() {
        Map<Long, String> opNameByExternalId = new HashMap<>();
        List<JsonNode> hostRanges = new ArrayList<>(trace().category("cpu_op"));
        hostRanges.addAll(trace().category(ANNOTATIONS)); // NVTX ranges own the launches no op encloses
        for (JsonNode op : hostRanges) {
            String previous = opNameByExternalId.put(op.get("args").get("External id").asLong(), op.get("name").asText());
            assertTrue(previous == null, "External ids are unique per op and range");
        }
        Map<String, BigDecimal> expected = new HashMap<>();
        for (JsonNode e : trace().events()) {
            if (DEVICE_CATEGORIES.contains(e.path("cat").asText()) && e.get("args").has("External id")) {
                String op = opNameByExternalId.get(e.get("args").get("External id").asLong());
                if (op != null) {
                    expected.merge(op, e.get("dur").decimalValue(), BigDecimal::add);
                }
            }
        }
        // Floor: the summary reconciles with the trace, whatever is linked.
        for (OpSummaryRow row : trace().summary().rows()) {
            BigDecimal want = expected.getOrDefault(row.name(), BigDecimal.ZERO);
            assertEquals(want.doubleValue(), row.selfDeviceTimeTotalUs(), 1e-6, row.name());
        }
        if (capabilities().linkage()) {
            OpSummaryRow op = trace().summary().row(opWithDeviceWork());
            assertNotNull(op, opWithDeviceWork() + " in the summary");
            assertTrue(op.selfDeviceTimeTotalUs() > 0, opWithDeviceWork() + " owns the device work it launched");
        }
    }

    // 5
    @Test
    void kernelNamesAreDemangledAndResolved() {
        List<JsonNode> kernels = trace().category("kernel");
        if (capabilities().kernels()) {
            assertFalse(kernels.isEmpty());
        }
        for (JsonNode k : kernels) { // floor: whatever kernels there are
            String name = k.get("name").asText();
            assertFalse(name.isEmpty());
            assertFalse(name.matches("(?s).*\\b_Z[A-Za-z0-9_]+.*"), "mangled kernel name: " + name);
            assertFalse(name.startsWith("<unresolved"), name);
        }
    }

    // 6
    @Test
    void runtimeNamesAreRealApiNames() {
        List<JsonNode> api = new ArrayList<>();
        for (JsonNode e : trace().events()) {
            if (isApi(e.path("cat").asText())) {
                api.add(e);
            }
        }
        if (capabilities().runtime()) {
            assertFalse(api.isEmpty());
        }
        Set<String> names = new HashSet<>();
        for (JsonNode e : api) { // floor: every API record has a name
            String name = e.get("name").asText();
            assertFalse(name.isEmpty());
            names.add(name);
            if (capabilities().cbid()) {
                assertTrue(e.get("args").has("cbid"), "cbid declared: " + e);
            }
        }
        if (!api.isEmpty()) {
            assertTrue(names.size() > 1, "distinct runtime calls stay distinguishable: " + names);
        }
    }

    // 6b
    /**
     * A thread's ops and the API calls they launched share one row, whatever ids the ops file and the vendor's records
     * give the thread (a live Java session names it by its Java id, CUPTI's records by a cut of pthread_self).
     */
    @Test
    void eachOpIsOnTheRowOfTheApiCallsItLaunched() {
        Map<Long, Set<String>> apiRows = new HashMap<>();
        for (JsonNode e : trace().events()) {
            if (isApi(e.path("cat").asText()) && e.path("args").has("External id")) {
                apiRows.computeIfAbsent(e.get("args").get("External id").asLong(), k -> new HashSet<>()).add(row(e));
            }
        }
        int launched = 0;
        for (JsonNode op : trace().category("cpu_op")) {
            Set<String> rows = apiRows.get(op.get("args").get("External id").asLong());
            if (rows != null) {
                assertEquals(Set.of(row(op)), rows, "the rows of the API calls of " + op);
                launched++;
            }
        }
        if (capabilities().runtime() && capabilities().linkage()) {
            assertTrue(launched > 0, "some op launched an API call");
        }
    }

    private static String row(JsonNode e) {
        return e.get("pid").asText() + "/" + e.get("tid").asText();
    }

    // 7
    @Test
    void everyEventLiesInsideTheCaptureWindow() {
        JsonNode span = trace().category("Trace").get(0);
        BigDecimal lo = span.get("ts").decimalValue();
        BigDecimal hi = lo.add(span.get("dur").decimalValue());
        int checked = 0;
        for (JsonNode e : trace().events()) {
            if (!"X".equals(e.path("ph").asText()) || "Trace".equals(e.path("cat").asText())) {
                continue;
            }
            BigDecimal ts = e.get("ts").decimalValue();
            BigDecimal end = ts.add(e.get("dur").decimalValue());
            assertTrue(ts.compareTo(lo) >= 0 && end.compareTo(hi) <= 0, "outside the window: " + e);
            checked++;
        }
        assertTrue(checked > 0);
    }

    // Gates of the kinds beyond the seven rows: declared, they are there in torch's shape; not, absent.
    @Test
    void synchronizationsAreTorchsCudaSyncEventsWhenDeclared() {
        List<JsonNode> syncs = trace().category(SYNC);
        assertEquals(declaredKinds().contains(SYNC), !syncs.isEmpty(), "cuda_sync events exactly when declared");
        for (JsonNode e : syncs) { // floor: whatever synchronizations there are
            Set<String> args = new TreeSet<>();
            e.get("args").fieldNames().forEachRemaining(args::add);
            assertTrue(args.containsAll(SYNC_ARGS), "kineto's cuda_sync args: " + e);
            String kind = e.get("args").get("cuda_sync_kind").asText();
            assertEquals(kind, e.get("name").asText(), "named by its kind");
            assertEquals(kind.equals("Event Sync") || kind.equals("Stream Wait Event"), args.containsAll(EVENT_SYNC_ARGS),
                    "the event args on event synchronizations only: " + e);
            long stream = e.get("args").get("stream").asLong();
            assertEquals(stream == -1 ? 1 : stream, e.get("tid").asLong(), "on its stream's row, or torch's device row: " + e);
        }
    }

    @Test
    void overheadIsOnTorchsOverheadRowWhenDeclared() {
        List<JsonNode> overhead = trace().category(OVERHEAD);
        assertEquals(declaredKinds().contains(OVERHEAD), !overhead.isEmpty(), "overhead events exactly when declared");
        for (JsonNode e : overhead) {
            assertEquals(-1, e.get("pid").asLong(), e.toString());
            assertEquals(0, e.get("tid").asLong(), e.toString());
            assertFalse(e.get("name").asText().isEmpty());
        }
        JsonNode counted = trace().trace().path("flagtrace").path("profiler_overhead");
        assertEquals(overhead.size(), counted.path("records").asLong(0), "the accounting counts what the trace draws");
    }

    @Test
    void graphIdsAreOnDeviceWorkWhenDeclared() {
        long withGraph = 0;
        for (JsonNode e : trace().events()) {
            JsonNode args = e.path("args");
            boolean id = args.has("graph id");
            assertEquals(id, args.has("graph node id"), "graph id and node id together: " + e);
            if (id) {
                assertTrue(DEVICE_CATEGORIES.contains(e.path("cat").asText()), "graph ids on device work only: " + e);
                withGraph++;
            }
        }
        assertEquals(declaredKinds().contains(GRAPH_IDS), withGraph > 0, "graph ids exactly when declared");
    }

    @Test
    void peerCopiesAreKinetosPtoPCopiesWhenDeclared() {
        List<JsonNode> peer = new ArrayList<>();
        for (JsonNode e : trace().events()) {
            JsonNode args = e.path("args");
            if (PEER_ARGS.stream().anyMatch(args::has)) {
                assertEquals("gpu_memcpy", e.path("cat").asText(), "peer args on copies only: " + e);
                peer.add(e);
            }
        }
        assertEquals(declaredKinds().contains(PEER_COPIES), !peer.isEmpty(), "peer copies exactly when declared");
        for (JsonNode e : peer) { // kineto's GpuActivity<CUpti_ActivityMemcpyPtoP>: its name, its args in its order
            assertTrue(e.get("name").asText().startsWith("Memcpy PtoP ("), e.toString());
            List<String> keys = new ArrayList<>();
            e.get("args").fieldNames().forEachRemaining(keys::add);
            keys.remove("External id");
            assertEquals(PEER_ARGS, keys.subList(0, Math.min(keys.size(), PEER_ARGS.size())), e.toString());
            assertEquals("stream", keys.get(PEER_ARGS.size()), e.toString());
            assertFalse(keys.contains("device") || keys.contains("context"), e.toString());
            assertEquals(e.get("args").get("inDevice").asLong(), e.get("pid").asLong(), "on the row of the device that ran it");
        }
    }

    @Test
    void nvtxRangesAreTorchsUserAnnotationsWhenDeclared() {
        List<JsonNode> ranges = trace().category(ANNOTATIONS);
        List<JsonNode> marks = new ArrayList<>();
        for (JsonNode e : trace().category("cpu_instant_event")) {
            if (!"[memory]".equals(e.path("name").asText())) {
                marks.add(e);
            }
        }
        boolean declared = declaredKinds().contains(ANNOTATIONS);
        assertEquals(declared, !ranges.isEmpty(), "user_annotation ranges exactly when declared");
        if (!declared) {
            assertTrue(marks.isEmpty(), "no NVTX marks undeclared: " + marks);
            assertFalse(trace().trace().path("flagtrace").has("annotations"), "no annotations block undeclared");
        }
        Set<Long> devicePids = new HashSet<>();
        for (JsonNode e : trace().events()) {
            if (DEVICE_CATEGORIES.contains(e.path("cat").asText())) {
                devicePids.add(e.get("pid").asLong());
            }
        }
        for (JsonNode e : ranges) { // floor: torch's shape, on a host row
            assertEquals("X", e.get("ph").asText(), e.toString());
            List<String> keys = new ArrayList<>();
            e.get("args").fieldNames().forEachRemaining(keys::add);
            assertEquals(ANNOTATION_ARGS, keys.subList(0, Math.min(keys.size(), ANNOTATION_ARGS.size())), e.toString());
            assertTrue(keys.size() == ANNOTATION_ARGS.size() || keys.get(ANNOTATION_ARGS.size()).equals("domain"), e.toString());
            assertFalse(devicePids.contains(e.get("pid").asLong()), "on a host row: " + e);
            assertTrue(e.get("dur").asDouble() >= 0, e.toString());
        }
        for (JsonNode m : marks) {
            assertEquals("i", m.get("ph").asText(), m.toString());
            assertEquals("t", m.get("s").asText(), m.toString());
        }
        JsonNode counted = trace().trace().path("flagtrace").path("annotations");
        assertEquals(ranges.size(), counted.path("ranges").asLong(0), "the accounting counts what the trace draws");
        assertEquals(marks.size(), counted.path("marks").asLong(0));
    }

    @Test
    void unifiedMemoryIsOnItsDevicesRowWhenDeclared() {
        List<JsonNode> um = trace().category(UNIFIED_MEMORY);
        assertEquals(declaredKinds().contains(UNIFIED_MEMORY), !um.isEmpty(), "unified_memory events exactly when declared");
        Map<String, String> rowNames = new HashMap<>();
        for (JsonNode e : trace().events()) {
            if ("thread_name".equals(e.path("name").asText()) && "M".equals(e.path("ph").asText())) {
                rowNames.put(e.get("pid").asLong() + "/" + e.get("tid").asLong(), e.path("args").path("name").asText());
            }
        }
        for (JsonNode e : um) { // floor: a named slice or instant on its device's Unified Memory row, no arrow, no op
            assertTrue(UNIFIED_MEMORY_NAMES.contains(e.get("name").asText()), e.toString());
            assertEquals("Unified Memory", rowNames.get(e.get("pid").asLong() + "/" + e.get("tid").asLong()), e.toString());
            String ph = e.get("ph").asText();
            assertTrue(ph.equals("X") && e.get("dur").asDouble() >= 0 || ph.equals("i") && "t".equals(e.path("s").asText()), e.toString());
            assertTrue(e.get("args").has("address"), e.toString());
            assertFalse(e.get("args").has("correlation") || e.get("args").has("External id"), e.toString());
        }
        JsonNode counted = trace().trace().path("flagtrace").path("unified_memory");
        assertEquals(um.size(), counted.path("events").asLong(0), "the accounting counts what the trace draws");
    }

    // 8: what a user sees
    @Test
    void opensInTheCatapultViewerWithoutWarning() {
        String what = capabilities().vendor() + " trace in the Catapult viewer";
        JsonNode imported = CatapultViewer.importOne(trace().trace(), "vendor-" + capabilities().vendor());
        CatapultViewer.Arrows arrows = CatapultViewer.assertOpensCleanly(trace().trace(), imported, capabilities().flows(), what);
        System.out.println(what + ": " + arrows);
    }

    // 9: device memory, gated by declaresDeviceMemory
    @Test
    void deviceMemoryEventsAreTorchsInstantsInsideTheWindow() {
        JsonNode span = trace().category("Trace").get(0);
        BigDecimal lo = span.get("ts").decimalValue();
        BigDecimal hi = lo.add(span.get("dur").decimalValue());
        List<JsonNode> memory = new ArrayList<>();
        for (JsonNode e : trace().category("cpu_instant_event")) {
            if ("[memory]".equals(e.path("name").asText()) || !declaredKinds().contains(ANNOTATIONS)) {
                memory.add(e); // an NVTX mark is an instant too, gated below
            }
        }
        // Floor: whatever memory events there are, torch's shape, in the window, totals never negative.
        for (JsonNode m : memory) {
            assertEquals("[memory]", m.path("name").asText());
            assertEquals("i", m.path("ph").asText());
            List<String> keys = new ArrayList<>();
            m.path("args").fieldNames().forEachRemaining(keys::add);
            assertEquals(MEMORY_ARGS, keys);
            BigDecimal ts = m.get("ts").decimalValue();
            assertTrue(ts.compareTo(lo) >= 0 && ts.compareTo(hi) <= 0, "outside the window: " + m);
            assertTrue(m.get("args").get("Total Allocated").asLong() >= 0, m.toString());
        }
        if (declaresDeviceMemory()) {
            assertFalse(memory.isEmpty(), capabilities().vendor() + " declares device memory");
        } else {
            assertTrue(memory.isEmpty(), capabilities().vendor() + " declares no device memory, yet its trace has " + memory.size());
        }
    }
}
