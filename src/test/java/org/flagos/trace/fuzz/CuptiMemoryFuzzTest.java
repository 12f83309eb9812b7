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
 * Fuzz target: one CUPTI buffer holding MEMORY2 records (and the runtime calls and bindings they
 * correlate with) replayed whole, so the decoder's memory flyweight and the walk's
 * {@code MemoryRows} (held records, time order, per-device totals) see hostile input. The trace
 * must parse; every {@code [memory]} event has a total at or above zero; the events drawn are the
 * memory records decoded, none lost and none invented. Any exception is a finding.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/CuptiMemoryFuzzTestInputs/replay/}.
 */
class CuptiMemoryFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final byte[] MAGIC = "FLTRBUF1".getBytes(StandardCharsets.US_ASCII);

    @FuzzTest(maxDuration = "3m")
    void replay(byte[] buffer) throws IOException, InterruptedException {
        ByteBuffer capture = ByteBuffer.allocate(MAGIC.length + 16 + buffer.length).order(ByteOrder.LITTLE_ENDIAN);
        capture.put(MAGIC).putInt(1).putInt(0).putLong(buffer.length).put(buffer).flip();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.Result result;
        try {
            result = CaptureReplay.run(new CaptureReplay.Request(capture, "fuzz.fltrbuf", null, KernelNames.NONE,
                    List.of(), Map.of(), "fuzz.fltrbuf", UnaryOperator.identity(), 1 << 8), out);
        } catch (CaptureFormatException | CaptureFailedException expected) {
            return;
        }
        JsonNode trace = JSON.readTree(out.toByteArray());
        long drawn = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            if ("[memory]".equals(e.path("name").asText())) {
                drawn++;
                if (e.get("args").get("Total Allocated").asLong() < 0) {
                    throw new IllegalStateException("negative total: " + e);
                }
            }
        }
        long decoded = trace.get("flagtrace").get("decoded").path("cpu_instant_event").asLong(0);
        if (drawn != decoded || drawn != result.accounting().memoryDrawn()) {
            throw new IllegalStateException(decoded + " memory records decoded, " + drawn + " drawn, "
                    + result.accounting().memoryDrawn() + " counted");
        }
    }
}
