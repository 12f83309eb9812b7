package org.flagos.trace.viewer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.flagos.trace.vendors.cupti.SyncGraphOverheadTest;
import org.junit.jupiter.api.Test;

/**
 * The trace with synchronizations, overhead and a graph launch ({@link SyncGraphOverheadTest}'s
 * buffers beside h200-app) in Perfetto's own trace processor, as {@code .pftrace} and as JSON:
 * no problem reported, and the slices the writer counted.
 */
class SyncGraphOverheadPerfettoTest {
    @Test
    void bothFormatsLoadWithoutAProblem() throws Exception {
        Browser.requireTraceProcessor();
        Path dir = Files.createDirectories(Browser.outputDir().resolve("perfetto-sync-graph-overhead"));
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture("h200-app")), "h200-app")
                .ops(OpsJsonlReader.read(Captures.ops("h200-app")))
                .kernelNames(KernelNameFile.read(Captures.names("h200-app"))).devices(TestDevices.h200())
                .frameOrder(SyncGraphOverheadTest.addedBuffers()).ringSize(1 << 12).build();
        Path pftrace = dir.resolve("sync-graph-overhead.pftrace");
        long written;
        try (AtomicOutput out = new AtomicOutput(pftrace)) {
            written = CaptureReplay.run(request.withFormat(TraceFormat.PERFETTO), out.stream()).traceEvents();
            out.commit();
        }
        TraceJson.Replayed json = TraceJson.replay(request);
        Path jsonFile = Files.write(dir.resolve("sync-graph-overhead.json"), json.bytes());
        Map<String, JsonNode> loaded = new HashMap<>();
        List<String> files = new ArrayList<>(List.of(dir.toString(), pftrace.toString(), jsonFile.toString()));
        for (JsonNode t : Browser.traceProcessor(files)) {
            loaded.put(Path.of(t.get("file").asText()).getFileName().toString(), t);
        }
        for (JsonNode t : loaded.values()) {
            System.out.println("trace processor: " + t.get("file").asText() + " slices " + t.get("slices") + " flows "
                    + t.get("flows") + " problems " + t.get("problems"));
            assertEquals("[]", t.get("problems").toString(), t.get("file").asText() + ": trace processor problems");
        }
        assertEquals(written, loaded.get("sync-graph-overhead.pftrace").get("slices").asLong(), "the writer's count");
        assertTrue(loaded.get("sync-graph-overhead.json").get("flows").asLong() >= 39, "every arrow of the JSON trace");
    }
}
