package org.flagos.trace.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

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

    /** A flagtrace trace opens without a warning, with every event a slice and one arrow per device event. */
    public static void assertOpensCleanly(JsonNode trace, JsonNode imported, String what) {
        assertOpensCleanly(trace, imported, true, what);
    }

    /**
     * As above; a vendor that declares no flows (none today) must show no arrow at all rather than
     * one per device event.
     */
    public static void assertOpensCleanly(JsonNode trace, JsonNode imported, boolean flows, String what) {
        assertEquals("[]", imported.get("warnings").toString(), what + ": the viewer's import warnings");
        Map<String, Integer> complete = completeEventsByCategory(trace);
        int x = complete.values().stream().mapToInt(Integer::intValue).sum();
        int device = deviceEvents(trace);
        assertTrue(device > 0, what + ": the trace has device work to draw");
        assertEquals(x, imported.get("slices").asInt(), what + ": slices = complete events");
        assertEquals(complete, slicesByCategory(imported), what + ": slices per category = complete events per category");
        assertEquals(device, imported.get("deviceSlices").asInt(), what + ": device slices");
        int arrows = flows ? device : 0;
        assertEquals(arrows, imported.get("flows").asInt(), what + ": flows = device events");
        assertEquals(arrows, imported.get("flowsApiToDevice").asInt(), what + ": flows from a runtime call to device work");
        assertEquals("{\"" + (flows ? 1 : 0) + "\":" + device + "}", imported.get("arrowsPerDeviceSlice").toString(),
                what + ": device slices by the number of arrows arriving at each");
    }
}
