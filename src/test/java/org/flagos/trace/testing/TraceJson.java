package org.flagos.trace.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;

/** Replays a bundled capture in memory and parses the trace with an independent JSON parser. */
public final class TraceJson {
    public static final ObjectMapper MAPPER = new ObjectMapper();

    /** A replay's parsed trace and its result. */
    public record Replayed(JsonNode trace, CaptureReplay.Result result, byte[] bytes) {
        public List<JsonNode> events() {
            List<JsonNode> events = new ArrayList<>();
            trace.get("traceEvents").forEach(events::add);
            return events;
        }

        public List<JsonNode> category(String cat) {
            List<JsonNode> out = new ArrayList<>();
            for (JsonNode e : events()) {
                if (cat.equals(e.path("cat").asText(null))) {
                    out.add(e);
                }
            }
            return out;
        }
    }

    /**
     * The trace's events other than row labels ({@code "ph":"M"}), each as its JSON text, sorted: what
     * a live trace and the replay of its dump must share (the labels name the process: {@code java
     * <pid>} live, {@code flagtrace} replayed).
     */
    public static List<String> sortedEventsWithoutRowLabels(JsonNode trace) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (!"M".equals(e.path("ph").asText())) {
                out.add(e.toString());
            }
        }
        java.util.Collections.sort(out);
        return out;
    }

    public static Replayed replay(String capture) {
        return replay(capture, UnaryOperator.identity());
    }

    public static Replayed replay(String capture, UnaryOperator<List<CaptureReplay.Frame>> order) {
        CaptureReplay.Request base = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(capture)), capture)
                .ops(OpsJsonlReader.read(Captures.ops(capture)))
                .kernelNames(KernelNameFile.read(Captures.names(capture))).devices(TestDevices.h200())
                .metadata(java.util.Map.of()).frameOrder(order).ringSize(1 << 12).build();
        return replay(base);
    }

    public static Replayed replay(CaptureReplay.Request request) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            CaptureReplay.Result result = CaptureReplay.run(request, out);
            byte[] bytes = out.toByteArray();
            return new Replayed(MAPPER.readTree(bytes), result, bytes);
        } catch (IOException e) {
            throw new AssertionError("trace does not parse as JSON: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private TraceJson() {
    }
}
