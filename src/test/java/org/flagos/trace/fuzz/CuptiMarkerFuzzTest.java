package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.flagos.trace.capture.CaptureFailedException;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.model.KernelNames;

/**
 * Fuzz target: one CUPTI buffer holding MARKER and MARKER_DATA records (NVTX ranges and marks, with
 * the runtime calls and kernels a range may enclose) replayed whole, so the marker flyweights and
 * the walk's {@code MarkerRanges} (the open table, pairing by id, claiming calls and their device
 * work) see hostile input. The trace must parse; every marker decoded is accounted for exactly once
 * (two per range drawn, one per mark, one per end without start, duplicate start, start never closed
 * or start past the open table); the ranges and marks drawn are the ones counted; no range has a
 * negative duration. Any exception is a finding.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/CuptiMarkerFuzzTestInputs/replay/}: the
 * H200 kinds capture's buffer, nested ranges around launches, unpaired markers.
 */
class CuptiMarkerFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final byte[] MAGIC = "FLTRBUF1".getBytes(StandardCharsets.US_ASCII);

    @FuzzTest(maxDuration = "3m")
    void replay(byte[] buffer) throws IOException, InterruptedException {
        ByteBuffer capture = ByteBuffer.allocate(MAGIC.length + 16 + buffer.length).order(ByteOrder.LITTLE_ENDIAN);
        capture.put(MAGIC).putInt(1).putInt(0).putLong(buffer.length).put(buffer).flip();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            CaptureReplay.run(new CaptureReplay.Request(capture, "fuzz.fltrbuf", null, KernelNames.NONE,
                    List.of(), Map.of(), "fuzz.fltrbuf", UnaryOperator.identity(), 1 << 8), out);
        } catch (CaptureFormatException | CaptureFailedException expected) {
            return;
        }
        JsonNode trace = JSON.readTree(out.toByteArray());
        long ranges = 0;
        long marks = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            String cat = e.path("cat").asText();
            if ("user_annotation".equals(cat)) {
                ranges++;
                if (e.get("dur").asDouble() < 0) {
                    throw new IllegalStateException("negative range: " + e);
                }
            } else if ("cpu_instant_event".equals(cat) && !"[memory]".equals(e.path("name").asText())) {
                marks++;
            }
        }
        JsonNode flagtrace = trace.get("flagtrace");
        long decoded = flagtrace.get("decoded").path("user_annotation").asLong(0);
        JsonNode a = flagtrace.path("annotations");
        long accounted = 2 * a.path("ranges").asLong(0) + a.path("marks").asLong(0) + a.path("ends_without_start").asLong(0)
                + a.path("duplicate_starts").asLong(0) + a.path("never_closed").asLong(0) + a.path("open_at_capacity").asLong(0);
        if (decoded != accounted || ranges != a.path("ranges").asLong(0) || marks != a.path("marks").asLong(0)) {
            throw new IllegalStateException(decoded + " markers decoded, " + accounted + " accounted for, " + ranges
                    + " ranges and " + marks + " marks drawn: " + a);
        }
    }
}
