package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.stages.TraceSink;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * The row labels ({@code M} events) against the ones torch wrote in its own trace
 * ({@code torch-reference/torch_trace.json}: process 448 "python3", its thread 448, GPU 0's stream 7),
 * and what torch's trace does not show: each row labelled once, in sorted order, a program's thread
 * name kept (the first one given), the device row, the unified-memory row, devices past 8.
 */
class TraceRowsTest {
    private static final long TS = 5_124_820_244_823_328L; // torch's label time, ns after its base

    private static JsonNode write(TraceRows rows, long hostPid, String process, long tsNs, int[] count) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(bytes)) {
            g.writeStartArray();
            count[0] = rows.writeLabels(g, hostPid, process, tsNs);
            g.writeEndArray();
        }
        return TraceJson.MAPPER.readTree(bytes.toByteArray());
    }

    private static String key(JsonNode e) {
        return e.get("name").asText() + "/" + e.get("pid").asText() + "/" + e.get("tid").asText();
    }

    @Test
    void theRowsOfTorchsTraceAreLabelledAsTorchLabelsThem() throws IOException {
        Map<String, JsonNode> torch = new HashMap<>();
        try (InputStream in = TraceRowsTest.class.getResourceAsStream("/torch-reference/torch_trace.json")) {
            for (JsonNode e : TraceJson.MAPPER.readTree(in).get("traceEvents")) {
                if ("M".equals(e.path("ph").asText()) && e.get("pid").isNumber()) {
                    torch.putIfAbsent(key(e), e);
                }
            }
        }
        TraceRows rows = new TraceRows();
        for (int i = 0; i < 3; i++) {
            rows.hostThread(448);
            rows.deviceStream(0, 7);
        }
        int[] count = new int[1];
        JsonNode ours = write(rows, 448, "python3", TS, count);
        assertEquals(10, count[0], "3 for the process, 3 for GPU 0, 2 for the stream, 2 for the thread");
        assertEquals(count[0], ours.size());
        List<String> keys = new ArrayList<>();
        for (JsonNode e : ours) {
            JsonNode expected = torch.get(key(e));
            assertEquals(expected == null ? null : expected.toString(), e.toString(), key(e));
            keys.add(key(e));
        }
        assertEquals(List.of("process_name/448/0", "process_labels/448/0", "process_sort_index/448/0",
                "process_name/0/0", "process_labels/0/0", "process_sort_index/0/0",
                "thread_name/0/7", "thread_sort_index/0/7", "thread_name/448/448", "thread_sort_index/448/448"), keys);
    }

    @Test
    void rowsAreSortedNamedOnceAndDevicesGrow() throws IOException {
        TraceRows rows = new TraceRows();
        rows.hostThread(30);
        rows.hostThread(10);
        rows.hostThread(30);
        rows.hostThreadName(10, "main");
        rows.hostThreadName(10, "renamed later");
        rows.deviceStream(12, 3); // past the first 8 devices
        rows.deviceStream(0, 15);
        rows.deviceStream(0, 7);
        rows.deviceStream(0, -1); // a sync on no stream: the device's own row
        rows.deviceStream(0, TraceSink.UNIFIED_MEMORY_ROW);
        rows.deviceStream(0, 7);
        int[] count = new int[1];
        JsonNode ours = write(rows, 4242, "java", 0, count);
        assertEquals(ours.size(), count[0]);
        List<String> threadNames = new ArrayList<>();
        List<String> gpus = new ArrayList<>();
        for (JsonNode e : ours) {
            if (e.get("name").asText().equals("thread_name")) {
                threadNames.add(e.get("pid").asLong() + "/" + e.get("tid").asLong() + "=" + e.get("args").get("name").asText());
            }
            if (e.get("name").asText().equals("process_labels")) {
                gpus.add(e.get("args").get("labels").asText());
            }
            if (e.get("name").asText().equals("thread_sort_index") && e.get("tid").asLong() == TraceSink.DEVICE_ROW) {
                assertEquals(-1, e.get("args").get("sort_index").asLong(), "the device's row sorts first");
            }
        }
        assertEquals(List.of("CPU", "GPU 0", "GPU 12"), gpus);
        // written by device, then stream as unsigned (the device row, stream -1, last of its device: its
        // sort index, not its place in the file, puts it first in a viewer)
        assertEquals(List.of("0/7=stream 7 ", "0/15=stream 15 ", "0/" + TraceSink.UNIFIED_MEMORY_ROW + "=Unified Memory",
                "0/" + TraceSink.DEVICE_ROW + "=Device 0", "12/3=stream 3 ",
                "4242/10=main", "4242/30=thread 30 (java)"), threadNames);
        assertEquals(3 * 3 + 5 * 2 + 2 * 2, count[0]);
        assertEquals(0.0, ours.get(0).get("ts").asDouble());
    }
}
