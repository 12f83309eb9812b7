package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzz target: one CUPTI buffer holding MEMCPY2 records (copies between two GPUs,
 * {@code CUpti_ActivityMemcpyPtoP4}) with the runtime calls and bindings they correlate with,
 * replayed whole, so the peer-copy flyweight, the join and both writers' peer branch see hostile
 * input. The trace must parse; every copy decoded is drawn (none lost, none invented); every peer
 * copy carries kineto's args in kineto's order, on the row of the device that ran it. Any exception
 * is a finding.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/CuptiPeerCopyFuzzTestInputs/replay/}:
 * the real h200-managed capture's first buffer with synthetic peer copies after it, the peer copies
 * alone (device 0 to 1, 1 to 0, a graph node), agitators (a copy before its call, one without a call,
 * a duplicate, a zero-length and a reversed one), a lone record.
 */
class CuptiPeerCopyFuzzTest {
    /** kineto's PtoP args after the optional External id, before the optional correlation and graph ids. */
    private static final List<String> PEER_HEAD = List.of("fromDevice", "inDevice", "toDevice", "fromContext", "inContext",
            "toContext", "stream");

    @FuzzTest(maxDuration = "3m")
    void replay(byte[] buffer) throws IOException, InterruptedException {
        OneCuptiBuffer.Replayed replayed = OneCuptiBuffer.replay(buffer);
        if (replayed == null) {
            return;
        }
        JsonNode trace = replayed.trace();
        long drawn = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            if (!"gpu_memcpy".equals(e.path("cat").asText())) {
                continue;
            }
            drawn++;
            JsonNode args = e.get("args");
            if (!args.has("fromDevice")) {
                continue;
            }
            List<String> keys = new ArrayList<>();
            args.fieldNames().forEachRemaining(keys::add);
            if (keys.get(0).equals("External id")) {
                keys.remove(0);
            }
            if (!keys.subList(0, Math.min(keys.size(), PEER_HEAD.size())).equals(PEER_HEAD) || args.has("device")
                    || args.has("context")) {
                throw new IllegalStateException("not kineto's PtoP args: " + e);
            }
            if (args.get("inDevice").asLong() != (e.get("pid").asLong() & 0xFFFF_FFFFL)) {
                throw new IllegalStateException("not on the row of the device that ran it: " + e);
            }
        }
        long decoded = trace.get("flagtrace").get("decoded").path("gpu_memcpy").asLong(0);
        if (drawn != decoded) {
            throw new IllegalStateException(decoded + " copies decoded, " + drawn + " drawn");
        }
    }
}
