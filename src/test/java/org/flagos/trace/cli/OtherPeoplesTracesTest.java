package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code summary --json} on traces flagtrace did not write, each checked against a recount done
 * here from the trace's own events: the 2021 schema (torch 1.8-1.9, TensorBoard's samples),
 * inductor's kernels named like their ops, and ops that cross without nesting.
 */
class OtherPeoplesTracesTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Map<String, String> OLD_CATEGORIES = Map.of("cpu_op", "Operator", "cuda_runtime", "Runtime",
            "kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset");

    @TempDir
    Path dir;
    final CliRunner cli = new CliRunner();

    JsonNode summary(Path trace) throws IOException {
        Path json = dir.resolve(trace.getFileName() + ".summary.json");
        assertEquals(0, cli.run("summary", trace.toString(), "--json", json.toString()), cli.stderr());
        return JSON.readTree(json.toFile());
    }

    /** Rows of a summary by kind and name ("device:NAME" or "host:NAME"). */
    static Map<String, JsonNode> rows(JsonNode summary) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode r : summary.get("rows")) {
            out.put(r.get("kind").asText() + ":" + r.get("name").asText(), r);
        }
        return out;
    }

    static boolean device(String cat) {
        return cat.equals("kernel") || cat.equals("gpu_memcpy") || cat.equals("gpu_memset")
                || cat.equals("Kernel") || cat.equals("Memcpy") || cat.equals("Memset");
    }

    /** Recount of the device rows: calls and microseconds of every device event, by name; "" holds the total. */
    static Map<String, BigDecimal[]> deviceRecount(JsonNode events) {
        Map<String, BigDecimal[]> out = new HashMap<>();
        out.put("", new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
        for (JsonNode e : events) {
            if ("X".equals(e.path("ph").asText()) && device(e.path("cat").asText())) {
                BigDecimal dur = new BigDecimal(e.get("dur").asText());
                for (String key : new String[] {e.get("name").asText(), ""}) {
                    BigDecimal[] a = out.computeIfAbsent(key, k -> new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
                    a[0] = a[0].add(BigDecimal.ONE);
                    a[1] = a[1].add(dur);
                }
            }
        }
        return out;
    }

    static void assertDeviceRowsMatch(Map<String, BigDecimal[]> recount, JsonNode summary) {
        Map<String, JsonNode> rows = rows(summary);
        int deviceRows = 0;
        for (Map.Entry<String, BigDecimal[]> e : recount.entrySet()) {
            if (e.getKey().isEmpty()) {
                continue;
            }
            JsonNode row = rows.get("device:" + e.getKey());
            assertNotNull(row, "a device row for " + e.getKey());
            assertEquals(e.getValue()[0].intValue(), row.get("count").asInt(), e.getKey());
            assertEquals(e.getValue()[1].doubleValue(), row.get("self_device_time_total_us").asDouble(), 5e-4, e.getKey());
            assertEquals(e.getValue()[1].doubleValue(), row.get("device_time_total_us").asDouble(), 5e-4, e.getKey());
            deviceRows++;
        }
        long inSummary = 0;
        for (String key : rows.keySet()) {
            inSummary += key.startsWith("device:") ? 1 : 0;
        }
        assertEquals(deviceRows, inSummary, "device rows");
        assertEquals(recount.get("")[1].doubleValue(), summary.get("self_device_time_total_us").asDouble(), 5e-4, "footer");
    }

    /** torch's trace with its categories renamed to the 2021 schema, and the runtime/device External id spelled as then. */
    static JsonNode oldSchema(JsonNode trace) {
        JsonNode copy = trace.deepCopy();
        for (JsonNode e : copy.get("traceEvents")) {
            String cat = e.path("cat").asText();
            if (OLD_CATEGORIES.containsKey(cat)) {
                ((ObjectNode) e).put("cat", OLD_CATEGORIES.get(cat));
                JsonNode args = e.get("args");
                if (!cat.equals("cpu_op") && args != null && args.has("External id")) {
                    ((ObjectNode) args).set("external id", ((ObjectNode) args).remove("External id"));
                }
            }
        }
        return copy;
    }

    @Test
    void the2021SchemaGivesTodaysTableAsObjectBareArrayAndGzip() throws IOException {
        JsonNode trace = JSON.readTree(SummaryCommandTest.torchTrace().toFile());
        JsonNode old = oldSchema(trace);
        Path object = dir.resolve("old.json");
        JSON.writeValue(object.toFile(), old);
        Path bare = dir.resolve("old-array.json.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(bare))) {
            JSON.writeValue(out, old.get("traceEvents"));
        }
        JsonNode today = summary(SummaryCommandTest.torchTrace());
        assertDeviceRowsMatch(deviceRecount(trace.get("traceEvents")), today);
        for (Path p : new Path[] {object, bare}) {
            JsonNode s = summary(p);
            assertEquals(39, s.get("rows_total").asInt(), p.toString());
            assertEquals(today.get("rows"), s.get("rows"), p + ": every row as in today's schema");
            assertEquals(today.get("self_cpu_time_total_us"), s.get("self_cpu_time_total_us"));
            assertEquals(337.595, s.get("self_device_time_total_us").asDouble(), 1e-9);
            assertEquals("CUDA", s.get("device_label").asText(), "cuda* runtime names tell a CUDA trace");
            assertDeviceRowsMatch(deviceRecount(old.get("traceEvents")), s);
        }
    }

    @Test
    void aKernelNamedLikeItsOpIsADeviceRowOfItsOwn() throws IOException {
        // torch's real trace, each kernel renamed after the op that launched it (the External id
        // they share), as inductor names its triton_* kernels after its ops
        JsonNode trace = JSON.readTree(SummaryCommandTest.torchTrace().toFile());
        Map<Long, String> opOfId = new HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText()) && e.path("args").has("External id")) {
                opOfId.putIfAbsent(e.get("args").get("External id").asLong(), e.get("name").asText());
            }
        }
        int renamed = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            if ("kernel".equals(e.path("cat").asText())) {
                String op = opOfId.get(e.get("args").get("External id").asLong());
                ((ObjectNode) e).put("name", op);
                renamed++;
            }
        }
        assertEquals(25, renamed);
        Path triton = dir.resolve("triton.json");
        JSON.writeValue(triton.toFile(), trace);
        JsonNode before = summary(SummaryCommandTest.torchTrace());
        JsonNode s = summary(triton);
        assertDeviceRowsMatch(deviceRecount(trace.get("traceEvents")), s);
        assertEquals(337.595, s.get("self_device_time_total_us").asDouble(), 1e-9, "the footer keeps every kernel");
        Map<String, JsonNode> was = rows(before);
        Map<String, JsonNode> now = rows(s);
        JsonNode mmDevice = now.get("device:aten::mm");
        assertNotNull(mmDevice);
        assertEquals(10, mmDevice.get("count").asInt(), "the ten kernels aten::mm launched");
        for (String key : was.keySet()) {
            if (key.startsWith("host:")) {
                JsonNode a = was.get(key);
                JsonNode b = now.get(key);
                assertEquals(a.get("count"), b.get("count"), key + " keeps its own count");
                assertEquals(a.get("self_device_time_total_us"), b.get("self_device_time_total_us"), key);
                assertEquals(a.get("device_time_total_us"), b.get("device_time_total_us"), key);
            }
        }
    }

    @Test
    void tritonOpAndKernelOfOneName() throws IOException {
        // the smallest case: op, launch and kernel, all "triton_poi_fused_add_0" but the launch
        ArrayNode ev = JSON.createArrayNode();
        for (int i = 0; i < 3; i++) {
            long t = 100L * i;
            ev.add(event("cpu_op", "triton_poi_fused_add_0", 1, t, "10", i));
            ev.add(event("cuda_runtime", "cudaLaunchKernel", 1, t + 2, "3", i));
            ev.add(event("kernel", "triton_poi_fused_add_0", 7, t + 20, "1.760", i));
        }
        Path p = dir.resolve("tiny-triton.json");
        JSON.writeValue(p.toFile(), JSON.createObjectNode().set("traceEvents", ev));
        JsonNode s = summary(p);
        Map<String, JsonNode> rows = rows(s);
        assertEquals(3, rows.size(), rows.keySet().toString());
        assertEquals(3, rows.get("host:triton_poi_fused_add_0").get("count").asInt());
        assertEquals(3, rows.get("device:triton_poi_fused_add_0").get("count").asInt());
        assertEquals(5.28, rows.get("host:triton_poi_fused_add_0").get("self_device_time_total_us").asDouble(), 1e-9);
        assertEquals(5.28, rows.get("device:triton_poi_fused_add_0").get("self_device_time_total_us").asDouble(), 1e-9);
        assertEquals(21.0, rows.get("host:triton_poi_fused_add_0").get("self_cpu_time_total_us").asDouble(), 1e-9);
        assertEquals(5.28, s.get("self_device_time_total_us").asDouble(), 1e-9);
        assertDeviceRowsMatch(deviceRecount(ev), s);
    }

    static ObjectNode event(String cat, String name, int tid, long ts, String dur, long externalId) {
        ObjectNode e = JSON.createObjectNode();
        e.put("ph", "X").put("cat", cat).put("name", name).put("pid", tid == 7 ? 0 : 1).put("tid", tid).put("ts", ts);
        e.set("dur", JSON.getNodeFactory().numberNode(new BigDecimal(dur)));
        if (externalId >= 0) {
            e.putObject("args").put("External id", externalId);
        }
        return e;
    }

    @Test
    void crossingOpsNeverGetANegativeSelfTime() throws IOException {
        // outer [0, 10] holds a [0, 8] and b [2, 10], which overlap: the children's union is
        // [0, 10], so outer's self time is 0 (their durations sum to 16, which would make it -6);
        // c [20, 25] and d [23, 30] cross at the top level: neither holds the other
        ArrayNode ev = JSON.createArrayNode();
        ev.add(event("cpu_op", "outer", 1, 0, "10", -1));
        ev.add(event("cpu_op", "a", 1, 0, "8", -1));
        ev.add(event("cpu_op", "b", 1, 2, "8", -1));
        ev.add(event("cpu_op", "c", 1, 20, "5", -1));
        ev.add(event("cpu_op", "d", 1, 23, "7", -1));
        Path p = dir.resolve("crossing.json");
        JSON.writeValue(p.toFile(), JSON.createObjectNode().set("traceEvents", ev));
        JsonNode s = summary(p);
        Map<String, JsonNode> rows = rows(s);
        // recount: self = duration less the union of the spans of the events directly inside it
        Map<String, Double> expected = new LinkedHashMap<>();
        expected.put("outer", 10.0 - unionLength(new long[][] {{0, 8}, {2, 10}}));
        expected.put("a", 8.0);
        expected.put("b", 8.0);
        expected.put("c", 5.0);
        expected.put("d", 7.0);
        for (Map.Entry<String, Double> e : expected.entrySet()) {
            JsonNode row = rows.get("host:" + e.getKey());
            assertEquals(e.getValue(), row.get("self_cpu_time_total_us").asDouble(), 1e-9, e.getKey());
        }
        for (JsonNode row : s.get("rows")) {
            assertFalse(row.get("self_cpu_time_total_us").asDouble() < 0, row.toString());
        }
        assertEquals(0 + 8 + 8 + 5 + 7, s.get("self_cpu_time_total_us").asDouble(), 1e-9);
    }

    static long unionLength(long[][] spans) {
        long covered = 0;
        for (long t = 0; t < 1000; t++) { // unit steps: plain and independent of the code under test
            for (long[] s : spans) {
                if (s[0] <= t && t < s[1]) {
                    covered++;
                    break;
                }
            }
        }
        return covered;
    }

    @Test
    void aTraceWithNothingToSummariseSaysWhatItHolds() throws IOException {
        ArrayNode ev = JSON.createArrayNode();
        ev.add(event("gpu_user_annotation", "step", 7, 0, "5", -1));
        ev.add(event("Trace", "PyTorch Profiler", 1, 0, "9", -1));
        Path p = dir.resolve("nothing.json");
        JSON.writeValue(p.toFile(), JSON.createObjectNode().set("traceEvents", ev));
        assertEquals(1, cli.run("summary", p.toString()));
        String err = cli.stderr();
        assertEquals(1, err.strip().split("\n").length, err);
        assertTrue(err.startsWith("flagtrace: error: " + p + " holds nothing to summarise"), err);
        assertTrue(err.contains("gpu_user_annotation (1), Trace (1)"), err);
        assertTrue(err.contains("Operator"), "names the categories that would work: " + err);
        assertEquals("", cli.stdout());
        assertEquals(1, cli.run("report", p.toString(), "-o", dir.resolve("r.html").toString()));
        assertFalse(Files.exists(dir.resolve("r.html")));
    }

    @Test
    void aDirectoryIsNamedAsOne() throws IOException {
        Path traces = Files.createDirectories(dir.resolve("traces")); // the report's output beside it, not inside it (that is usage, exit 2)
        for (String[] args : new String[][] {{"summary", traces.toString()}, {"report", traces.toString(), "-o", dir.resolve("r.html").toString()}}) {
            assertEquals(1, cli.run(args), cli.stderr());
            String err = cli.stderr().strip();
            assertEquals("flagtrace: error: " + traces + " is a directory, not a trace; name one trace file"
                    + " (TRACE.json, TRACE.json.gz or TRACE.pftrace)", err);
        }
    }
}
