package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KeyAveragesJson}, the one summary schema: the rows of torch 1.13's legacy trace are torch's own
 * {@code key_averages()} (count, CPU total and self CPU to the digit torch gives), the totals run over every row
 * whatever the limit, times are plain decimals to the nanosecond; the summary the walk computed while replaying the
 * bundled H200 capture and the summary read back from the trace it wrote are the same document but for the reader's
 * counts.
 */
class KeyAveragesJsonTest {
    private static final List<String> ROW_FIELDS = List.of("name", "kind", "count", "self_cpu_time_total_us", "cpu_time_total_us",
            "cpu_time_avg_us", "self_device_time_total_us", "device_time_total_us", "device_time_avg_us");

    @TempDir
    Path dir;

    private static JsonNode write(TraceFile file, SortKey sort, int limit) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        KeyAveragesJson.write(file, file.averages(), sort, limit, out);
        return TraceJson.MAPPER.readTree(out.toByteArray());
    }

    @Test
    void theRowsAreTorchsKeyAveragesAndTheTotalsRunOverEveryRow() throws Exception {
        TraceFile file = TraceFile.read(FlagtraceLegacyTorchTest.resource("shapes.json"));
        JsonNode torch = TraceJson.MAPPER.readTree(FlagtraceLegacyTorchTest.resource("shapes.key_averages.json").toFile());
        JsonNode all = write(file, SortKey.SELF_CPU_TIME_TOTAL, -1);
        assertEquals("self_cpu_time_total", all.get("sort").asText());
        assertEquals(file.averages().deviceLabel(), all.get("device_label").asText());
        assertEquals(file.events(), all.get("events").asLong());
        assertEquals(file.otherEvents(), all.get("other_events").asLong());
        assertEquals(0, all.get("invalid_events").asLong());
        assertEquals(0, all.get("spilled_bytes").asLong());
        Map<String, JsonNode> rows = new HashMap<>();
        double selfCpu = 0;
        double previous = Double.MAX_VALUE;
        for (JsonNode r : all.get("rows")) {
            List<String> fields = new ArrayList<>();
            r.fieldNames().forEachRemaining(fields::add);
            assertEquals(ROW_FIELDS, fields, "torch's field names, in this order");
            assertEquals("host", r.get("kind").asText(), "a CPU-only trace");
            assertEquals(0.0, r.get("self_device_time_total_us").asDouble());
            assertTrue(r.get("self_cpu_time_total_us").asDouble() <= previous, "sorted by self CPU, largest first");
            previous = r.get("self_cpu_time_total_us").asDouble();
            selfCpu += previous;
            rows.put(r.get("name").asText(), r);
        }
        assertEquals(torch.get("rows").size(), all.get("rows_total").asInt());
        assertEquals(torch.get("rows").size(), rows.size());
        for (JsonNode want : torch.get("rows")) {
            String key = want.get("key").asText();
            JsonNode got = rows.get(key);
            assertNotNull(got, key);
            assertEquals(want.get("count").asLong(), got.get("count").asLong(), key + ": count");
            assertEquals(want.get("cpu_time_total").asDouble(), got.get("cpu_time_total_us").asDouble(), 0.0, key + ": CPU total");
            assertEquals(want.get("self_cpu_time_total").asDouble(), got.get("self_cpu_time_total_us").asDouble(), 0.0, key + ": self CPU");
            assertEquals(want.get("cpu_time_total").asDouble() / want.get("count").asLong(), got.get("cpu_time_avg_us").asDouble(), 5e-4,
                    key + ": CPU average");
        }
        assertEquals(selfCpu, all.get("self_cpu_time_total_us").asDouble(), 1e-6, "torch's footer: the sum over every row");

        JsonNode three = write(file, SortKey.SELF_CPU_TIME_TOTAL, 3);
        assertEquals(3, three.get("rows").size());
        assertEquals(all.get("rows_total"), three.get("rows_total"), "rows_total counts every row");
        assertEquals(all.get("self_cpu_time_total_us"), three.get("self_cpu_time_total_us"), "the totals do not follow the limit");
        for (int i = 0; i < 3; i++) {
            assertEquals(all.get("rows").get(i), three.get("rows").get(i));
        }
        JsonNode byCount = write(file, SortKey.COUNT, 1);
        assertEquals("aten::empty", byCount.get("rows").get(0).get("name").asText(), "25 calls, the most");
    }

    @Test
    void timesArePlainDecimalsToTheNanosecond() throws Exception {
        // torch's own kineto trace: times in µs with fractions, device rows too
        TraceFile file = TraceFile.read(TorchKeyAveragesTest.resource("torch_trace.json"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        KeyAveragesJson.write(file, file.averages(), SortKey.SELF_DEVICE_TIME_TOTAL, -1, out);
        String text = out.toString(StandardCharsets.UTF_8);
        JsonNode doc = TraceJson.MAPPER.readTree(text);
        Matcher m = Pattern.compile("\"[a-z_]+_us\" : (-?[0-9.eE+]+)").matcher(text);
        int numbers = 0;
        int fractions = 0;
        while (m.find()) {
            String n = m.group(1);
            assertTrue(n.matches("-?[0-9]+(\\.[0-9]{1,3})?"), "plain, at most 3 decimals: " + n);
            assertFalse(n.contains(".") && n.endsWith("0"), "trailing zeros stripped: " + n);
            fractions += n.contains(".") ? 1 : 0;
            numbers++;
        }
        assertEquals(2 + 6 * doc.get("rows").size(), numbers);
        assertTrue(fractions > 100, "the trace has sub-µs times: " + fractions);
        boolean device = false;
        for (JsonNode r : doc.get("rows")) {
            KeyAveragesRow row = file.averages().row(r.get("name").asText(), r.get("kind").asText().equals("device"));
            assertNotNull(row, r.get("name").asText());
            device |= row.device();
            assertEquals(row.selfDeviceUs(), r.get("self_device_time_total_us").asDouble(), 0.0005, row.name());
            assertEquals(row.cpuTotalUs(), r.get("cpu_time_total_us").asDouble(), 0.0005, row.name());
            assertEquals(new java.math.BigDecimal(row.cpuAvgUs()).setScale(3, java.math.RoundingMode.HALF_EVEN).doubleValue(),
                    r.get("cpu_time_avg_us").asDouble(), 0.0, row.name() + ": rounded half-even to the ns");
        }
        assertTrue(device, "device rows are written with kind device");
    }

    @Test
    void theWalksSummaryAndTheTraceFilesAreOneDocument() throws Exception {
        String name = "h200-app-tiny2k";
        Path trace = dir.resolve("tiny.json");
        CaptureReplay.Result result;
        try (var out = Files.newOutputStream(trace)) {
            result = CaptureReplay.run(CaptureReplay.request(Captures.capture(name), Captures.ops(name), null, List.of(), Map.of()), out);
        }
        ByteArrayOutputStream walk = new ByteArrayOutputStream();
        KeyAveragesJson.write(result.summary(), walk);
        JsonNode fromWalk = TraceJson.MAPPER.readTree(walk.toByteArray());
        TraceFile file = TraceFile.read(trace);
        JsonNode fromFile = write(file, SortKey.SELF_DEVICE_TIME_TOTAL, -1);
        assertEquals("self_device_time_total", fromWalk.get("sort").asText(), "a capture with device time sorts by it");
        for (String read : List.of("events", "other_events", "invalid_events", "spilled_bytes")) {
            assertFalse(fromWalk.has(read), "the walk read no file: " + read);
            assertTrue(fromFile.has(read), read);
        }
        assertTrue(fromWalk.get("rows_total").asInt() > 10, fromWalk.toString());
        assertEquals(fromFile.get("rows_total"), fromWalk.get("rows_total"));
        assertEquals(fromFile.get("self_cpu_time_total_us"), fromWalk.get("self_cpu_time_total_us"));
        assertEquals(fromFile.get("self_device_time_total_us"), fromWalk.get("self_device_time_total_us"));
        // the same rows to the ns; rows that tie on the sort key keep each source's own order (the walk's: ops, then
        // runtime calls, then device rows; the file's: its events'), as torch's stable sort keeps its events' order
        assertEquals(byName(fromFile), byName(fromWalk), "row for row, to the ns");
        double previous = Double.MAX_VALUE;
        for (JsonNode r : fromWalk.get("rows")) {
            assertTrue(r.get("self_device_time_total_us").asDouble() <= previous, "sorted by self device time");
            previous = r.get("self_device_time_total_us").asDouble();
        }
    }

    private static Map<String, JsonNode> byName(JsonNode summary) {
        Map<String, JsonNode> rows = new HashMap<>();
        for (JsonNode r : summary.get("rows")) {
            assertEquals(null, rows.put(r.get("kind").asText() + " " + r.get("name").asText(), r), "one row a name and kind");
        }
        return rows;
    }
}
