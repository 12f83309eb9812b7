package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, item 6: a trace of thousands of one-kernel streams draws at most
 * {@link DeviceStreams#MAX_ROWS} strips and one folded strip that says how many it holds, so the
 * page's size and the report's memory do not grow with the count of streams.
 */
class StreamRowBoundTest {
    @TempDir
    Path dir;

    @Test
    void manyStreamsFoldIntoOneCountedRow() throws Exception {
        int streams = 3_000;
        Path trace = dir.resolve("streams.json");
        try (JsonGenerator g = new JsonFactory().createGenerator(trace.toFile(), JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeArrayFieldStart("traceEvents");
            for (int s = 0; s < streams; s++) { // each kernel spans the whole device span: every slice drawn
                g.writeStartObject();
                g.writeStringField("ph", "X");
                g.writeStringField("cat", "kernel");
                g.writeStringField("name", "k");
                g.writeNumberField("pid", 0);
                g.writeNumberField("tid", 10 + s);
                g.writeNumberField("ts", 100);
                g.writeNumberField("dur", 1000);
                g.writeObjectFieldStart("args");
                g.writeNumberField("device", 0);
                g.writeNumberField("stream", 10 + s);
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        TraceFile file = TraceFile.read(trace);
        DeviceStreams drawn = file.streams();
        assertEquals(DeviceStreams.MAX_ROWS + 1, drawn.streams().size(), "the first rows, then one folded row");
        assertEquals(streams - DeviceStreams.MAX_ROWS, drawn.folded());
        ByteArrayOutputStream page = new ByteArrayOutputStream();
        HtmlReport.write("streams.json", file, KeyAverages.of(file), page);
        String html = page.toString(StandardCharsets.UTF_8);
        assertTrue(html.contains((streams - DeviceStreams.MAX_ROWS) + " more streams"), "the page says how many were folded");
        assertTrue(page.size() < 2_000_000, "the page is bounded: " + page.size() + " bytes");
    }
}
