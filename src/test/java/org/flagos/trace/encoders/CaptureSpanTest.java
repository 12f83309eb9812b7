package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * The profiled region's events against the ones torch wrote in its own trace
 * ({@code torch-reference/torch_trace.json}): the same four events, field for field, for torch's own
 * window (its span's start and duration; flagtrace puts "Record Window End" at the span's end).
 */
class CaptureSpanTest {

    private static List<JsonNode> torchSpanEvents() throws IOException {
        JsonNode trace;
        try (InputStream in = CaptureSpanTest.class.getResourceAsStream("/torch-reference/torch_trace.json")) {
            trace = TraceJson.MAPPER.readTree(in);
        }
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            String name = e.path("name").asText();
            if ("Trace".equals(e.path("cat").asText()) || ("process_sort_index".equals(name) && "Spans".equals(e.path("pid").asText()))
                    || name.startsWith("Iteration Start") || "Record Window End".equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    @Test
    void writesTheFourEventsTorchWritesForItsWindow() throws IOException {
        List<JsonNode> torch = torchSpanEvents();
        assertEquals(CaptureSpan.EVENTS, torch.size());
        long base = 1_790_857_026_000_000_000L; // torch's baseTimeNanoseconds
        long start = base + 5_124_820_244_715_919L; // its span: ts 5124820244715.919, dur 14781.584 (µs)
        long end = start + 14_781_584L;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(bytes)) {
            g.writeStartArray();
            new CaptureSpan().write(g, start, end, base);
            g.writeEndArray();
        }
        JsonNode ours = TraceJson.MAPPER.readTree(bytes.toByteArray());
        assertEquals(CaptureSpan.EVENTS, ours.size());
        for (int i = 0; i < CaptureSpan.EVENTS; i++) {
            ObjectNode expected = torch.get(i).deepCopy();
            if ("Record Window End".equals(expected.path("name").asText())) {
                expected.put("ts", 5_124_820_259_497.503); // the span's end, where flagtrace closes the window
            }
            assertEquals(expected.toString(), ours.get(i).toString(), "event " + i);
        }
        // the times are written as torch writes them: microseconds with the nanoseconds as 3 decimals
        String text = bytes.toString(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(true, text.contains("\"ts\":5124820244715.919,\"dur\":14781.584,"), text);
    }

    @Test
    void timesAreRelativeToTheBaseAndMayPrecedeIt() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(bytes)) {
            g.writeStartArray();
            new CaptureSpan().write(g, 1_000L, 2_500L, 2_000L);
            g.writeEndArray();
        }
        JsonNode ours = TraceJson.MAPPER.readTree(bytes.toByteArray());
        assertEquals(-1.0, ours.get(0).get("ts").asDouble());
        assertEquals(1.5, ours.get(0).get("dur").asDouble());
        assertEquals(-1.0, ours.get(2).get("ts").asDouble());
        assertEquals(0.5, ours.get(3).get("ts").asDouble());
    }
}
