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
 * Fuzz target: one CUPTI buffer holding UNIFIED_MEMORY_COUNTER records replayed whole, so the
 * unified-memory flyweight (counter kinds, flags, device ids, instants and slices) and every sink
 * step after it see hostile input. The trace must parse; the {@code unified_memory} events drawn are
 * the records decoded and the accounting's count, none lost and none invented; a slice has a duration
 * of zero or more, an instant none; addresses are hex strings. Any exception is a finding.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/CuptiUnifiedMemoryFuzzTestInputs/replay/}.
 */
class CuptiUnifiedMemoryFuzzTest {
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
            if (!"unified_memory".equals(e.path("cat").asText())) {
                continue;
            }
            drawn++;
            boolean slice = "X".equals(e.path("ph").asText());
            if (slice ? e.get("dur").asDouble() < 0 : !"i".equals(e.path("ph").asText()) || e.has("dur")) {
                throw new IllegalStateException("neither a slice nor an instant: " + e);
            }
            if (!e.path("args").path("address").asText().startsWith("0x")) {
                throw new IllegalStateException("address not hex: " + e);
            }
        }
        long decoded = trace.get("flagtrace").get("decoded").path("unified_memory").asLong(0);
        long counted = result.accounting().unifiedMemory() == null ? 0 : result.accounting().unifiedMemory().total();
        if (drawn != decoded || drawn != counted) {
            throw new IllegalStateException(decoded + " unified-memory records decoded, " + drawn + " drawn, " + counted + " counted");
        }
    }
}
