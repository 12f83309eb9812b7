package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import org.flagos.trace.capture.CaptureReplay;

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

    @FuzzTest(maxDuration = "3m")
    void replay(byte[] buffer) throws IOException, InterruptedException {
        OneCuptiBuffer.Replayed replayed = OneCuptiBuffer.replay(buffer);
        if (replayed == null) {
            return;
        }
        JsonNode trace = replayed.trace();
        CaptureReplay.Result result = replayed.result();
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
