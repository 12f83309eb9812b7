package org.flagos.trace.viewer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
import org.flagos.trace.vendors.cupti.MemoryCapture;
import org.junit.jupiter.api.Test;

/**
 * Device-memory instants load in Perfetto's trace processor from both formats without a problem:
 * the h200-app capture with a MEMORY2 record beside each malloc and free ({@link MemoryCapture}),
 * written as JSON and as {@code .pftrace}; the trace processor counts 11 more slices (an instant is
 * a slice of no duration) in each than in the same capture without them, and the writer's own count.
 */
class MemoryInPerfettoTest {
    @Test
    void memoryInstantsLoadFromJsonAndProtobufAlike() throws IOException, InterruptedException {
        Browser.requireTraceProcessor();
        Path dir = Files.createDirectories(Browser.outputDir().resolve("perfetto-memory"));
        List<String> files = new ArrayList<>(List.of(dir.toString()));
        long[] written = new long[2];
        for (int withMemory = 0; withMemory < 2; withMemory++) {
            String name = "h200-app";
            String file = name + (withMemory == 1 ? ".memory" : ".plain");
            CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(name)), name)
                    .ops(OpsJsonlReader.read(Captures.ops(name))).kernelNames(KernelNameFile.read(Captures.names(name)))
                    .devices(TestDevices.h200())
                    .frameOrder(withMemory == 1 ? MemoryCapture.injected(MemoryCapture.Placement.BEFORE_CALL) : CaptureReplay.IN_FILE_ORDER)
                    .ringSize(1 << 12).build();
            files.add(Files.write(dir.resolve(file + ".json"), TraceJson.replay(request).bytes()).toString());
            Path pftrace = dir.resolve(file + ".pftrace");
            try (AtomicOutput out = new AtomicOutput(pftrace)) {
                written[withMemory] = CaptureReplay.run(request.withFormat(TraceFormat.PERFETTO), out.stream()).traceEvents();
                out.commit();
            }
            files.add(pftrace.toString());
        }
        Map<String, JsonNode> loaded = new java.util.HashMap<>();
        for (JsonNode t : Browser.traceProcessor(files)) {
            loaded.put(Path.of(t.get("file").asText()).getFileName().toString(), t);
        }
        for (String f : List.of("h200-app.memory.json", "h200-app.memory.pftrace")) {
            assertEquals("[]", loaded.get(f).get("problems").toString(), f + ": trace processor problems");
        }
        assertEquals(written[1], loaded.get("h200-app.memory.pftrace").get("slices").asLong(),
                "the writer's count, memory instants included");
        assertEquals(written[0] + 11, written[1]);
        for (String format : List.of(".json", ".pftrace")) {
            assertEquals(loaded.get("h200-app.plain" + format).get("slices").asLong() + 11,
                    loaded.get("h200-app.memory" + format).get("slices").asLong(), format + ": one slice per memory instant");
            assertEquals(loaded.get("h200-app.plain" + format).get("args").asLong() + 11 * 8,
                    loaded.get("h200-app.memory" + format).get("args").asLong(), format + ": eight args per memory instant");
        }
    }
}
