package org.flagos.trace.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Imports traces with the Catapult trace viewer's own importer ({@code tr.importer.Import} into a
 * {@code tr.Model}) in headless Chromium, and states what a trace that opens cleanly must show:
 * no import warning, a slice for every complete event of every category, and exactly one flow
 * arrow from a runtime call into every device event. The expected counts are read from the
 * trace's JSON here, independently of the viewer.
 */
public final class CatapultViewer {
    /** Device work: each is the end of exactly one arrow. */
    public static final Set<String> DEVICE = Set.of("kernel", "gpu_memcpy", "gpu_memset");
    private static final Pattern UNBOUND_FLOW_END = Pattern.compile("event id (\\d+) does not end at an actual slice, so cannot be created\\.");

    private CatapultViewer() {
    }

    /** What the viewer made of each file (keyed by the path given), after checking the page stayed offline. */
    public static Map<Path, JsonNode> importAll(List<Path> traces) {
        List<String> args = new ArrayList<>(List.of("traces"));
        traces.forEach(t -> args.add(t.toAbsolutePath().toString()));
        JsonNode out = Browser.run(args);
        assertEquals(0, out.get("refused").size(), "the viewer page asked for the network: " + out.get("refused"));
        for (JsonNode url : out.get("requests")) {
            assertTrue(url.asText().startsWith("file:"), "a request that is not a local file: " + url);
        }
        assertEquals(0, out.get("pageErrors").size(), "the viewer page threw: " + out.get("pageErrors"));
        assertEquals(0, out.get("consoleErrors").size(), "the viewer logged errors: " + out.get("consoleErrors"));
        Map<Path, JsonNode> byFile = new LinkedHashMap<>();
        for (JsonNode t : out.get("traces")) {
            byFile.put(Path.of(t.get("file").asText()), t);
            System.out.printf("catapult %-28s %9d bytes %5d ms: slices %d, device slices %d, flows %d, arrows per device"
                    + " slice %s, warnings %d%n", Path.of(t.get("file").asText()).getFileName(), t.get("bytes").asLong(),
                    t.get("importMs").asLong(), t.get("slices").asInt(), t.get("deviceSlices").asInt(), t.get("flows").asInt(),
                    t.get("arrowsPerDeviceSlice"), t.get("warnings").size());
        }
        assertEquals(traces.size(), byFile.size(), "one result per trace");
        return byFile;
    }

    /** Writes {@code trace} to {@code target/viewer/NAME.json} (kept for a look after a failure) and imports it alone. */
    public static JsonNode importOne(JsonNode trace, String name) {
        return importOne(trace, Browser.outputDir().resolve(name + ".json"));
    }

    /** Writes {@code trace} to {@code file} and imports it alone. */
    public static JsonNode importOne(JsonNode trace, Path file) {
        try {
            TraceJson.MAPPER.writeValue(file.toFile(), trace);
        } catch (IOException e) {
            throw new AssertionError("writing " + file + ": " + e, e);
        }
        return importAll(List.of(file)).values().iterator().next();
    }

    /** The number of complete ({@code "ph":"X"}) events per category in {@code trace}. */
    public static Map<String, Integer> completeEventsByCategory(JsonNode trace) {
        Map<String, Integer> counts = new TreeMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText())) {
                counts.merge(e.path("cat").asText(""), 1, Integer::sum);
            }
        }
        return counts;
    }

    /**
     * The events the viewer draws as slices, per category: complete events and thread-scoped
     * instants (torch's {@code [memory]}: {@code "ph":"i","s":"t"}, a slice of no duration on its
     * thread); global instants (the capture span's) are drawn as markers, not slices.
     */
    public static Map<String, Integer> slicedEventsByCategory(JsonNode trace) {
        Map<String, Integer> counts = completeEventsByCategory(trace);
        for (JsonNode e : trace.get("traceEvents")) {
            if ("i".equals(e.path("ph").asText()) && "t".equals(e.path("s").asText())) {
                counts.merge(e.path("cat").asText(""), 1, Integer::sum);
            }
        }
        return counts;
    }

    /** Complete events whose category is device work. */
    public static int deviceEvents(JsonNode trace) {
        int n = 0;
        for (Map.Entry<String, Integer> e : completeEventsByCategory(trace).entrySet()) {
            n += DEVICE.contains(e.getKey()) ? e.getValue() : 0;
        }
        return n;
    }

    /** The viewer's slice count per category, as the same sorted map. */
    public static Map<String, Integer> slicesByCategory(JsonNode imported) {
        Map<String, Integer> counts = new TreeMap<>();
        imported.get("sliceCategories").fields().forEachRemaining(e -> counts.put(e.getKey(), e.getValue().asInt()));
        return counts;
    }

    /**
     * How the viewer bound the arrows: device events whose start instant another device event on
     * the same row also covers (their arrow cannot be bound unambiguously by any writer of torch's
     * {@code s}/{@code f} flows: Catapult binds a flow end to the deepest slice whose closed
     * interval holds its instant), arrows that ended on a slice of another correlation, and arrows
     * the viewer's microsecond nesting kept from the event they end at ({@link #hiddenByRounding}), and the
     * synchronizations that partly overlap a slice of their row (whose arrow may bind to that slice).
     */
    public record Arrows(int deviceEvents, int ambiguousStarts, int misbound, int hiddenByRounding, int syncsPartlyOverlapped) {
    }

    /** A flagtrace trace opens without a warning, with every event a slice and one arrow per device event. */
    public static Arrows assertOpensCleanly(JsonNode trace, JsonNode imported, String what) {
        return assertOpensCleanly(trace, imported, true, what);
    }

    /**
     * No import warning; a slice for every complete event and thread-scoped instant, category by category; and, where the
     * vendor has flows, one {@code s}/{@code f} pair per device event (by its correlation) that
     * the viewer turns into one arrow from that launch's runtime call, ending on that device event
     * wherever its start is unambiguous (ambiguous starts are counted: real device streams, which
     * run one thing at a time, have none; the fakes' concurrent threads on one stream may), and
     * save the arrows {@link #hiddenByRounding} names: each of those may end on an enclosing slice or,
     * with exactly one {@code flow_slice_end_error} naming it, on none. A vendor that declares no
     * flows (none today) must show no arrow at all.
     */
    public static Arrows assertOpensCleanly(JsonNode trace, JsonNode imported, boolean flows, String what) {
        Map<Long, Long> correlations = deviceFlowIds(trace);
        Set<Long> hidden = flows ? hiddenByRounding(trace, correlations) : Set.of();
        Set<Long> startsHidden = flows ? startsHiddenByRounding(trace, correlations) : Set.of();
        Set<Long> unbound = new TreeSet<>();
        for (JsonNode w : imported.get("warnings")) {
            Matcher m = UNBOUND_FLOW_END.matcher(w.path("message").asText());
            assertTrue("flow_slice_end_error".equals(w.path("type").asText()) && m.matches()
                    && hidden.contains(Long.parseLong(m.group(1))) && unbound.add(Long.parseLong(m.group(1))),
                    what + ": the viewer's import warnings (only an arrow hidden by its microsecond nesting, once, may"
                    + " end at no slice; hidden: " + hidden + "): " + imported.get("warnings"));
        }
        assertEquals(unboundByRounding(trace, hidden), unbound, what + ": the arrows the viewer warns end at no slice");
        Map<String, Integer> complete = slicedEventsByCategory(trace);
        int x = complete.values().stream().mapToInt(Integer::intValue).sum();
        int device = deviceEvents(trace);
        assertTrue(device > 0, what + ": the trace has device work to draw");
        assertEquals(x, imported.get("slices").asInt(), what + ": slices = complete events");
        assertEquals(complete, slicesByCategory(imported), what + ": slices per category = complete events per category");
        assertEquals(device, imported.get("deviceSlices").asInt(), what + ": device slices");
        if (!flows) {
            assertEquals(0, imported.get("flows").asInt(), what + ": no arrows from a vendor without flows");
            return new Arrows(device, 0, 0, 0, 0);
        }
        Map<Long, Integer> starts = flowPhases(trace, "s");
        Map<Long, Integer> ends = flowPhases(trace, "f");
        assertEquals(device, correlations.size(), what + ": device events carry distinct flow ids");
        for (long c : correlations.keySet()) {
            assertEquals(1, starts.getOrDefault(c, 0), what + ": one flow start for device flow id " + c);
            assertEquals(1, ends.getOrDefault(c, 0), what + ": one flow end for device flow id " + c);
        }
        // a synchronizing call's arrow ends on its cuda_sync event (not device work)
        Set<Long> expected = new TreeSet<>(correlations.keySet());
        for (long c : syncCorrelations(trace)) {
            if (starts.containsKey(c)) {
                expected.add(c);
                correlations.putIfAbsent(c, c);
            }
        }
        int syncArrows = expected.size() - device;
        assertEquals(expected, starts.keySet(), what + ": flow starts only for device work and synchronizations");
        assertEquals(expected, ends.keySet(), what + ": flow ends only for device work and synchronizations");
        assertEquals(device + syncArrows - unbound.size(), imported.get("flows").asInt(),
                what + ": flows = device events + synchronizations - arrows ending at no slice");
        // A synchronization is the host waiting, drawn on the stream it waited for (torch's row) where it can
        // partly overlap the device work it waited on, or a span: its arrow may then bind to that slice.
        Set<Long> overlappingSyncs = partlyOverlappedSyncs(trace);
        int apiToDevice = imported.get("flowsApiToDevice").asInt();
        assertTrue(apiToDevice >= device - hidden.size() - startsHidden.size() && apiToDevice <= device + overlappingSyncs.size(), what
                + ": flows from a runtime call to device work: " + apiToDevice + " for " + device + " device events and "
                + overlappingSyncs.size() + " synchronizations partly overlapping a slice of their row");
        Set<Long> ambiguous = ambiguousDeviceStarts(trace);
        int misbound = 0;
        for (JsonNode flow : imported.get("flowEnds")) {
            long id = flow.get(0).asLong();
            long correlation = correlations.getOrDefault(id, id);
            if (flow.get(1).asLong(-1) != correlation) { // only where the viewer's µs nesting moved the call
                assertTrue(startsHidden.contains(id), what + ": arrow " + id + " starts on the runtime call of its launch"
                        + " (it starts on the slice of correlation " + flow.get(1) + "; calls the viewer's microsecond"
                        + " nesting moves: " + startsHidden + ")");
            }
            if (flow.get(2).asLong(-1) != correlation) {
                misbound++;
                assertTrue(ambiguous.contains(correlation) || overlappingSyncs.contains(id) || hidden.contains(id), what + ": arrow " + id + " ends on the device event of correlation "
                        + flow.get(2) + " though its own start is unambiguous; device slices not at one arrow: "
                        + imported.get("oddDeviceSlices"));
            }
        }
        if (ambiguous.isEmpty() && overlappingSyncs.isEmpty() && hidden.isEmpty()) {
            assertEquals("{\"1\":" + device + "}", imported.get("arrowsPerDeviceSlice").toString(),
                    what + ": device slices by the number of arrows arriving at each");
        }
        return new Arrows(device, ambiguous.size(), misbound, hidden.size(), overlappingSyncs.size());
    }

    /**
     * Flow ids (of device work and synchronizations) whose arrow the viewer keeps from the event it
     * ends at only because it nests slices at its display unit's precision ({@link CatapultSliceTree}):
     * at nanosecond precision the arrow binds to that event (the row nests properly and the end lies in
     * it), at the display unit's it binds elsewhere or nowhere. No writer of torch's format
     * ({@code "displayTimeUnit": "ms"}, flow ends bound by instant) can avoid it but by moving times:
     * work that starts less than a microsecond after the slice before it on its row ends, and itself
     * ends within the microsecond that slice ends in (rounded), is nested under that slice. Device work
     * queued back to back on a stream with sub-microsecond gaps and durations has it.
     */
    public static Set<Long> hiddenByRounding(JsonNode trace) {
        return hiddenByRounding(trace, deviceFlowIds(trace));
    }

    private static Set<Long> hiddenByRounding(JsonNode trace, Map<Long, Long> correlations) {
        Map<Long, JsonNode> exact = CatapultSliceTree.flowEnds(trace, CatapultSliceTree.Precision.NANOSECONDS);
        Map<Long, JsonNode> shown = CatapultSliceTree.flowEnds(trace, CatapultSliceTree.Precision.DISPLAY_UNIT);
        Set<Long> out = new TreeSet<>();
        exact.forEach((id, end) -> {
            boolean own = end != null && end.path("args").path("correlation").asLong(-1) == correlations.getOrDefault(id, id);
            if (own && shown.get(id) != end) {
                out.add(id);
            }
        });
        return out;
    }

    /**
     * Flow ids whose start the viewer binds to another slice than the runtime call it starts on, only
     * because it nests at its display unit ({@link CatapultSliceTree}): a call that starts less than
     * a microsecond after the call before it on its thread and ends within the microsecond that one
     * ends in is nested under it (the H200's {@code cudaEventQuery} polling loop: calls of ~0.4 µs,
     * 0.14 µs apart). At nanosecond precision the start binds to its own call.
     */
    private static Set<Long> startsHiddenByRounding(JsonNode trace, Map<Long, Long> correlations) {
        Map<Long, JsonNode> exact = CatapultSliceTree.flowStarts(trace, CatapultSliceTree.Precision.NANOSECONDS);
        Map<Long, JsonNode> shown = CatapultSliceTree.flowStarts(trace, CatapultSliceTree.Precision.DISPLAY_UNIT);
        Set<Long> out = new TreeSet<>();
        exact.forEach((id, start) -> {
            boolean own = start != null && start.path("args").path("correlation").asLong(-1) == correlations.getOrDefault(id, id);
            if (own && shown.get(id) != start) {
                out.add(id);
            }
        });
        return out;
    }

    /** Those of {@code hidden} the viewer binds to no slice at all. */
    private static Set<Long> unboundByRounding(JsonNode trace, Set<Long> hidden) {
        Map<Long, JsonNode> shown = CatapultSliceTree.flowEnds(trace, CatapultSliceTree.Precision.DISPLAY_UNIT);
        Set<Long> out = new TreeSet<>();
        for (long id : hidden) {
            if (shown.get(id) == null) {
                out.add(id);
            }
        }
        return out;
    }

    /** Flow ids of phase {@code ph} with how often each occurs. */
    static Map<Long, Integer> flowPhases(JsonNode trace, String ph) {
        Map<Long, Integer> ids = new TreeMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (ph.equals(e.path("ph").asText())) {
                ids.merge(e.get("id").asLong(), 1, Integer::sum);
            }
        }
        return ids;
    }

    /**
     * Each device event's flow id and its correlation: the correlation, or for a graph launch's
     * records correlation + (node + 1) * 2^32 (FlowIndex), node the low 20 bits of its graph node id.
     */
    static Map<Long, Long> deviceFlowIds(JsonNode trace) {
        Map<Long, Long> out = new TreeMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && DEVICE.contains(e.path("cat").asText())) {
                long correlation = e.path("args").path("correlation").asLong(-1);
                JsonNode node = e.path("args").path("graph node id");
                long id = node.isMissingNode() ? correlation : correlation + (((node.asLong() & 0xFFFFF) + 1) << 32);
                out.put(id, correlation);
            }
        }
        return out;
    }

    static Set<Long> syncCorrelations(JsonNode trace) {
        Set<Long> out = new TreeSet<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && "cuda_sync".equals(e.path("cat").asText())) {
                out.add(e.path("args").path("correlation").asLong(-1));
            }
        }
        return out;
    }

    /**
     * Correlations of synchronizations that partly overlap another complete event of their row (pid,
     * tid): each starts inside it and ends after it, or starts before it and ends inside it. Neither
     * nests in the other, so the viewer's slice tree cannot hold both and an arrow ending at the
     * synchronization's start may bind to the other. A real capture has them: a stream sync starts
     * while the kernel it waits for still runs on that stream, and ends after it.
     */
    static Set<Long> partlyOverlappedSyncs(JsonNode trace) {
        Map<String, List<long[]>> rows = new HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText())) {
                long start = nanos(e.get("ts"));
                long end = start + nanos(e.get("dur"));
                String row = e.path("pid").asText() + "/" + e.path("tid").asText();
                long sync = "cuda_sync".equals(e.path("cat").asText()) ? e.path("args").path("correlation").asLong(-1) : -1;
                rows.computeIfAbsent(row, k -> new ArrayList<>()).add(new long[] {start, end, sync});
            }
        }
        Set<Long> out = new TreeSet<>();
        for (List<long[]> row : rows.values()) {
            for (long[] y : row) {
                if (y[2] < 0) {
                    continue;
                }
                for (long[] o : row) {
                    boolean partly = (o[0] < y[0] && y[0] < o[1] && o[1] < y[1]) || (y[0] < o[0] && o[0] < y[1] && y[1] < o[1]);
                    if (o != y && partly) {
                        out.add(y[2]);
                        break;
                    }
                }
            }
        }
        return out;
    }

    /**
     * Correlations of device events whose start lies within the closed interval of another device
     * event of the same row (pid, tid): the viewer may bind their arrow to that other event.
     */
    public static Set<Long> ambiguousDeviceStarts(JsonNode trace) {
        Map<String, List<long[]>> rows = new HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && DEVICE.contains(e.path("cat").asText())) {
                long start = nanos(e.get("ts"));
                long end = start + nanos(e.get("dur"));
                rows.computeIfAbsent(e.path("pid").asText() + "/" + e.path("tid").asText(), k -> new ArrayList<>())
                        .add(new long[] {start, end, e.path("args").path("correlation").asLong(-1)});
            }
        }
        Set<Long> out = new TreeSet<>();
        for (List<long[]> row : rows.values()) {
            row.sort(Comparator.comparingLong((long[] r) -> r[0]));
            long reach = Long.MIN_VALUE; // the latest end among the events before this one
            for (int i = 0; i < row.size(); i++) {
                long[] r = row.get(i);
                boolean sameStart = (i > 0 && row.get(i - 1)[0] == r[0]) || (i + 1 < row.size() && row.get(i + 1)[0] == r[0]);
                if (reach >= r[0] || sameStart) {
                    out.add(r[2]);
                }
                reach = Math.max(reach, r[1]);
            }
        }
        return out;
    }

    private static long nanos(JsonNode micros) {
        return micros.decimalValue().movePointRight(3).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
    }
}
