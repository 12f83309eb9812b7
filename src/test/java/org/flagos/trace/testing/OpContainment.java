package org.flagos.trace.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a trace against causality, at zero tolerance: every runtime call lies inside the op whose
 * External id it carries, every device record starts no earlier than that op, and no earlier than
 * the runtime call that launched it (paired by correlation). Times are compared in exact
 * nanoseconds (the trace's microseconds carry three decimals).
 */
public final class OpContainment {
    /** What the check found; {@code violations} lists the first offenders. */
    public record Result(int runtimeChecked, int deviceChecked, List<String> violations) {
    }

    private record Span(long start, long end) {
    }

    public static Result check(JsonNode trace) {
        Map<Long, Span> ops = new HashMap<>();
        Map<Long, Span> launches = new HashMap<>();
        List<JsonNode> runtime = new ArrayList<>();
        List<JsonNode> device = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            String cat = e.path("cat").asText("");
            if (!"X".equals(e.path("ph").asText())) {
                continue;
            }
            switch (cat) {
                case "cpu_op":
                    if (e.path("args").has("External id")) {
                        ops.put(e.get("args").get("External id").asLong(), span(e));
                    }
                    break;
                case "cuda_runtime":
                case "cuda_driver":
                    runtime.add(e);
                    if (e.path("args").has("correlation")) {
                        launches.put(e.get("args").get("correlation").asLong(), span(e));
                    }
                    break;
                case "kernel":
                case "gpu_memcpy":
                case "gpu_memset":
                    device.add(e);
                    break;
                default:
                    break;
            }
        }
        List<String> violations = new ArrayList<>();
        int runtimeChecked = 0;
        for (JsonNode e : runtime) {
            Span op = ops.get(externalId(e));
            if (op == null) {
                continue;
            }
            runtimeChecked++;
            Span call = span(e);
            if (call.start < op.start || call.end > op.end) {
                violations.add(describe(e, call, "outside op " + externalId(e), op));
            }
        }
        int deviceChecked = 0;
        for (JsonNode e : device) {
            Span work = span(e);
            Span op = ops.get(externalId(e));
            Span launch = e.path("args").has("correlation") ? launches.get(e.get("args").get("correlation").asLong()) : null;
            if (op == null && launch == null) {
                continue;
            }
            deviceChecked++;
            if (op != null && work.start < op.start) {
                violations.add(describe(e, work, "starts before op " + externalId(e), op));
            }
            if (launch != null && work.start < launch.start) {
                violations.add(describe(e, work, "starts before its launch", launch));
            }
        }
        return new Result(runtimeChecked, deviceChecked, violations);
    }

    private static Long externalId(JsonNode e) {
        JsonNode id = e.path("args").path("External id");
        return id.isNumber() ? id.asLong() : null;
    }

    private static Span span(JsonNode e) {
        long start = nanos(e.get("ts"));
        return new Span(start, start + nanos(e.get("dur")));
    }

    private static long nanos(JsonNode micros) {
        return new BigDecimal(micros.asText()).movePointRight(3).longValueExact();
    }

    private static String describe(JsonNode e, Span s, String what, Span other) {
        return e.path("cat").asText() + " '" + e.path("name").asText() + "' [" + s.start + ", " + s.end + "] ns " + what
                + " [" + other.start + ", " + other.end + "]";
    }

    private OpContainment() {
    }
}
