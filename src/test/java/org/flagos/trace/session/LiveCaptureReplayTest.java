package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * The capture flagtrace recorded in a JVM on the H200 ({@code flagtrace record --workload parity
 * --dump-buffers}) replays offline to the trace the live session wrote, event for event. The dump
 * carries its ops, kernel name table and device properties beside it.
 */
class LiveCaptureReplayTest {
    private static final String NAME = "h200-java-parity";


    @Test
    void theDumpReplaysToTheLiveTrace() throws Exception {
        JsonNode live = TraceJson.MAPPER.readTree(Captures.dir().resolve(NAME + ".live.json").toFile());
        // the live trace was recorded before GPU annotations were drawn: its replay without them
        CaptureReplay.Request request = CaptureReplay.request(Captures.capture(NAME), Captures.ops(NAME), null,
                List.of(), Map.of()).withoutGpuAnnotations();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.Result result = CaptureReplay.run(request, out);
        JsonNode replayed = TraceJson.MAPPER.readTree(out.toByteArray());
        assertEquals(live.get("deviceProperties"), replayed.get("deviceProperties"), "device properties saved beside the dump");
        List<String> a = TraceJson.sortedEventsWithoutRowLabels(live);
        List<String> b = TraceJson.sortedEventsWithoutRowLabels(replayed);
        assertEquals(a.size(), b.size());
        assertEquals(a, b);
        assertEquals(live.get("flagtrace").get("decoded"), replayed.get("flagtrace").get("decoded"));
        assertTrue(result.summary().row("app::mm").selfDeviceTimeTotalUs() > 0);
    }

    @Test
    void theLiveDevicePropertiesAreTheH200sOfTheTorchBaseline() throws Exception {
        JsonNode live = TraceJson.MAPPER.readTree(Captures.dir().resolve(NAME + ".live.json").toFile());
        JsonNode bundled = TraceJson.MAPPER.readTree(
                LiveCaptureReplayTest.class.getResourceAsStream("/org/flagos/trace/devices/nvidia-h200.json"));
        assertEquals(bundled.get("deviceProperties"), live.get("deviceProperties"),
                "cudaGetDeviceProperties through JavaCPP reads what torch wrote on the same machine");
    }
}
