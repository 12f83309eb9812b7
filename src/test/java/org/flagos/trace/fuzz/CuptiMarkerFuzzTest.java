package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

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

    @FuzzTest(maxDuration = "3m")
    void replay(byte[] buffer) throws IOException, InterruptedException {
        OneCuptiBuffer.Replayed replayed = OneCuptiBuffer.replay(buffer);
        if (replayed == null) {
            return;
        }
        JsonNode trace = replayed.trace();
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
