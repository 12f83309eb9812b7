package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import org.flagos.trace.capture.CaptureReplay;

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
