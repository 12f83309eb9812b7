package org.flagos.trace.viewer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.junit.jupiter.api.Test;

/**
 * The unified-memory events of the real H200 managed-memory capture load in Perfetto's trace processor
 * from both formats without a problem, each of the 3,495 a slice (an instant is one of no duration) of
 * category {@code unified_memory} on the row or track named {@code Unified Memory}, with the same
 * args in both formats; the {@code .pftrace}'s slices are the writer's count.
 */
class UnifiedMemoryInPerfettoTest {
    private static final String NAME = "h200-managed/h200-managed";
    /**
     * Each arg key of the unified-memory events and how many distinct arg sets carry it: the trace
     * processor keeps one arg set for slices whose args are identical (48 of the 2,999 transfers repeat
     * another's bytes, address and cause; one GPU fault group another's), so these are the capture's
     * 3,495 events less their repeats, the same from both formats.
     */
    private static final Map<String, Long> ARG_KEYS = Map.of("address", 3446L, "migration cause", 2951L, "dst id", 2951L,
            "src id", 3062L, "fault groups", 111L, "access type", 495L, "PC", 384L);

    @Test
    void unifiedMemoryLoadsFromJsonAndProtobufAlike() throws IOException, InterruptedException {
        Browser.requireTraceProcessor();
        Path dir = Files.createDirectories(Browser.outputDir().resolve("perfetto-unified-memory"));
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(NAME)), NAME)
                .ops(OpsJsonlReader.read(Captures.ops(NAME))).kernelNames(KernelNameFile.read(Captures.names(NAME)))
                .devices(TestDevices.h200()).ringSize(1 << 12).build();
        List<String> files = new ArrayList<>(List.of(dir.toString()));
        files.add(Files.write(dir.resolve("h200-managed.json"), TraceJson.replay(request).bytes()).toString());
        Path pftrace = dir.resolve("h200-managed.pftrace");
        long written;
        try (AtomicOutput out = new AtomicOutput(pftrace)) {
            written = CaptureReplay.run(request.withFormat(TraceFormat.PERFETTO), out.stream()).traceEvents();
            out.commit();
        }
        files.add(pftrace.toString());
        Map<String, JsonNode> loaded = new HashMap<>();
        for (JsonNode t : Browser.traceProcessor(files)) {
            loaded.put(t.get("file").asText(), t);
        }
        assertEquals(written, loaded.get("h200-managed.pftrace").get("slices").asLong(), "the writer's count");
        for (String f : List.of("h200-managed.json", "h200-managed.pftrace")) {
            JsonNode t = loaded.get(f);
            assertEquals("[]", t.get("problems").toString(), f + ": trace processor problems");
            assertEquals(3495, t.get("sliceCategories").get("unified_memory").asLong(), f);
            String prefix = f.endsWith(".json") ? "args." : "debug.";
            ARG_KEYS.forEach((key, n) -> assertEquals(n.longValue(), t.get("argKeys").path(prefix + key).asLong(), f + ": " + key));
            long onRow = 0;
            for (String line : Files.readAllLines(dir.resolve(f + ".slices.tsv"))) {
                String[] cols = line.split("\t", -1);
                if (cols.length > 5 && "unified_memory".equals(cols[3])) {
                    assertEquals("Unified Memory", cols[5], f + ": " + line);
                    onRow++;
                }
            }
            assertEquals(3495, onRow, f);
        }
        assertTrue(loaded.get("h200-managed.json").get("slices").asLong() > 3495);
    }
}
