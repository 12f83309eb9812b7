package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A trace's header: user metadata may not set a key the trace's own top level uses, nor a key a strict JSON parser refuses. */
class TraceHeaderTest {
    @Test
    void everyReservedKeyIsRefused() {
        for (String key : List.of("schemaVersion", "deviceProperties", "traceName", "displayTimeUnit", "baseTimeNanoseconds",
                "traceEvents", "flagtrace", "distributedInfo", "flagtrace_process")) {
            assertEquals("metadata cannot set the reserved key " + key, assertThrows(IllegalArgumentException.class,
                    () -> new TraceHeader("t", List.of(), null, Map.of(key, "v"), "p", 1)).getMessage());
        }
    }

    @Test
    void aKeyWithALoneSurrogateIsRefusedAndOneWithAPairIsNot() {
        assertEquals("metadata key 'run\ud800' holds a lone UTF-16 surrogate", assertThrows(IllegalArgumentException.class,
                () -> new TraceHeader("t", List.of(), null, Map.of("run\ud800", "v"), "p", 1)).getMessage());
        TraceHeader ok = new TraceHeader("t", List.of(), 5L, Map.of("run \ud83d\ude80", "v\ud800", "Schemaversion", "x"), "p", 7);
        assertEquals(Map.of("run \ud83d\ude80", "v\ud800", "Schemaversion", "x"), ok.metadata(),
                "a value may hold one; keys compare exactly");
    }

    @Test
    void theShortConstructorHasNoIdentity() {
        TraceHeader h = new TraceHeader("train", List.of(), 1_000L, Map.of("k", "v"), "python", 4242);
        assertNull(h.identity());
        assertEquals("train", h.traceName());
        assertEquals(1_000L, h.baseTimeNs());
        assertEquals(4242, h.processId());
        assertEquals("python", h.processName());
    }
}
