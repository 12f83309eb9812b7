package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.OpContainment;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.api.Test;

/**
 * A launch cannot begin before the op that issued it: on every trace flagtrace recorded live, each
 * runtime call lies inside its op and each device record starts after its op and after its launch,
 * at zero tolerance, as in torch's own trace from the same H200.
 */
class LiveClockAlignmentTest {
    static final java.util.List<String> LIVE = Captures.LIVE;

    @Test
    void torchsOwnTraceHasNoViolationAndTheCheckSeesItsEvents() throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/baseline/torch_trace.json")) {
            OpContainment.Result result = OpContainment.check(TraceJson.MAPPER.readTree(in));
            assertEquals(47, result.runtimeChecked(), "torch's runtime calls that carry an op's External id");
            assertEquals(33, result.deviceChecked());
            assertEquals(java.util.List.of(), result.violations());
        }
    }

    @ParameterizedTest
    @FieldSource("LIVE")
    void everyLiveCallAndDeviceRecordLiesWhereCausalityPutsIt(String name) throws IOException {
        JsonNode trace = TraceJson.MAPPER.readTree(Captures.dir().resolve(name + ".live.json").toFile());
        OpContainment.Result result = OpContainment.check(trace);
        assertTrue(result.runtimeChecked() > 100 && result.deviceChecked() > 100, "the check saw the capture's work");
        assertEquals(java.util.List.of(), result.violations().subList(0, Math.min(5, result.violations().size())),
                result.violations().size() + " violations");
        JsonNode clock = trace.get("flagtrace").get("host_clock");
        assertTrue(clock != null && clock.get("samples").asInt() > 100, "the alignment is reported");
        assertTrue(clock.get("error_bound_ns").asLong() < 1_000, "aligned well below a launch's own duration");
    }

    @Test
    void oneOpMovedLaterByOneNanosecondIsCaught() throws IOException {
        JsonNode trace = TraceJson.MAPPER.readTree(Captures.dir().resolve(LIVE.get(0) + ".live.json").toFile());
        OpContainment.Result before = OpContainment.check(trace);
        // Move the op of the first checked runtime call so that it starts 1 ns after the call.
        JsonNode call = null;
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cuda_runtime".equals(e.path("cat").asText()) && e.path("args").has("External id")) {
                call = e;
                break;
            }
        }
        long id = call.get("args").get("External id").asLong();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText()) && e.get("args").get("External id").asLong() == id) {
                java.math.BigDecimal callTs = new java.math.BigDecimal(call.get("ts").asText());
                java.math.BigDecimal end = new java.math.BigDecimal(e.get("ts").asText()).add(new java.math.BigDecimal(e.get("dur").asText()));
                java.math.BigDecimal moved = callTs.add(new java.math.BigDecimal("0.001"));
                ((ObjectNode) e).put("ts", moved);
                ((ObjectNode) e).put("dur", end.subtract(moved));
            }
        }
        OpContainment.Result after = OpContainment.check(trace);
        assertFalse(after.violations().isEmpty());
        assertTrue(after.violations().size() > before.violations().size());
    }
}
