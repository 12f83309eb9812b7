package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.stages.OpSummaryRow;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The summary read back from flagtrace's own traces agrees with the OpSummary the writer computed
 * while writing them, wherever the two measure the same thing: calls, CPU total, self device time
 * and device total of every op. (Self CPU differs by design: torch, and this summary, also subtract
 * the runtime calls an op makes; OpSummary subtracts nested ops only.) The device total is compared
 * on the trace without its profiler-overhead events: the reader, as torch, credits an overhead event
 * inside an op with the op's device time (KeyAverages), which the writer's summary does not.
 */
class FlagtraceTraceSummaryTest {
    @TempDir
    Path dir;

    static List<String> captures() {
        return Captures.EVERY;
    }

    @ParameterizedTest
    @MethodSource("captures")
    void agreesWithTheWritersOpSummary(String name) throws Exception {
        Path trace = dir.resolve(Captures.stem(name) + ".json");
        CaptureReplay.Result result;
        try (OutputStream out = Files.newOutputStream(trace)) {
            result = CaptureReplay.run(CaptureReplay.request(Captures.capture(name), Captures.ops(name), null, List.of(), Map.of()), out);
        }
        TraceFile file = TraceFile.read(trace);
        KeyAverages averages = KeyAverages.of(file);
        KeyAverages withoutOverhead = KeyAverages.of(TraceFile.read(withoutOverheadEvents(trace)));
        assertTrue(result.summary().rows().size() > 0);
        for (OpSummaryRow op : result.summary().rows()) {
            KeyAveragesRow row = averages.row(op.name());
            String what = name + " " + op.name();
            assertEquals(op.count(), row.count(), what + ": calls");
            assertEquals(op.cpuTimeTotalUs(), row.cpuTotalUs(), 1e-3 * op.count(), what + ": CPU total");
            assertEquals(op.selfDeviceTimeTotalUs(), row.selfDeviceUs(), 1e-3 * op.count(), what + ": self device");
            assertEquals(op.deviceTimeTotalUs(), withoutOverhead.row(op.name()).deviceTotalUs(), 1e-3 * op.count(),
                    what + ": device total");
            assertTrue(row.selfCpuUs() <= op.selfCpuTimeTotalUs() + 1e-3 * op.count(), what + ": self CPU less runtime calls");
        }
        assertEquals(result.accounting().decode().bindings(), (long) file.accounting().get("decoded.correlation_bindings"));
    }

    private Path withoutOverheadEvents(Path trace) throws java.io.IOException {
        com.fasterxml.jackson.databind.node.ObjectNode root =
                (com.fasterxml.jackson.databind.node.ObjectNode) TraceJson.MAPPER.readTree(trace.toFile());
        com.fasterxml.jackson.databind.node.ArrayNode kept = TraceJson.MAPPER.createArrayNode();
        root.get("traceEvents").forEach(e -> {
            if (!"overhead".equals(e.path("cat").asText())) {
                kept.add(e);
            }
        });
        root.set("traceEvents", kept);
        Path out = trace.resolveSibling(trace.getFileName() + ".without-overhead.json");
        TraceJson.MAPPER.writeValue(out.toFile(), root);
        return out;
    }
}
