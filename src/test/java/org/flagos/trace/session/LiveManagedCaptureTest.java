package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Unified memory captured live by flagtrace's own tracer in a JVM on the H200 (2026-12-02:
 * {@code WORKLOAD=kinds FLAGTRACE_JAVA_OPTS=-Dflagtrace.cupti.unifiedMemoryFaults=true} (the kind itself was armed by default that day;
 * since, {@code -Dflagtrace.cupti.unifiedMemory=true} arms it) {@code
 * benchmarks/run-device-record.sh}, captures/h200-java-managed/): the kinds workload's managed
 * section (64 MiB of managed memory written on the host, touched by a kernel, read back, prefetched
 * both ways, copied) armed UNIFIED_MEMORY_COUNTER per session, with page faults. The dump replays to
 * the live trace event for event, and the live trace draws every migration and fault on the device's
 * Unified Memory row with the totals of its accounting block.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiveManagedCaptureTest {
    private static final String NAME = "h200-java-managed/h200-java-managed";
    /** The device row flagtrace draws unified memory on (sorted after the streams). */
    private static final int UNIFIED_MEMORY_TID = 2147483646;

    private JsonNode live;
    private JsonNode replayed;

    @BeforeAll
    void load() throws Exception {
        try (InputStream in = Captures.open(Captures.dir().resolve(NAME + ".live.json.gz"))) {
            live = TraceJson.MAPPER.readTree(in);
        }
        CaptureReplay.Request request = CaptureReplay.request(Captures.capture(NAME), Captures.ops(NAME), null,
                List.of(), Map.of());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.run(request, out);
        replayed = TraceJson.MAPPER.readTree(out.toByteArray());
    }


    @Test
    void theDumpReplaysToTheLiveTrace() {
        assertEquals(TraceJson.sortedEventsWithoutRowLabels(live), TraceJson.sortedEventsWithoutRowLabels(replayed));
        assertEquals(live.get("flagtrace").get("decoded"), replayed.get("flagtrace").get("decoded"));
        assertEquals(live.get("flagtrace").get("unified_memory"), replayed.get("flagtrace").get("unified_memory"));
    }

    @Test
    void everyMigrationAndFaultIsOnTheDevicesUnifiedMemoryRowWithItsTotals() {
        Map<String, Integer> byName = new TreeMap<>();
        long htodBytes = 0;
        long dtohBytes = 0;
        long faultGroups = 0;
        for (JsonNode e : live.get("traceEvents")) {
            if (!"unified_memory".equals(e.path("cat").asText())) {
                continue;
            }
            assertEquals(0, e.get("pid").asInt(), e::toString);
            assertEquals(UNIFIED_MEMORY_TID, e.get("tid").asInt(), e::toString);
            String name = e.get("name").asText();
            byName.merge(name, 1, Integer::sum);
            if (name.equals("Unified Memory memcpy HtoD")) {
                htodBytes += e.get("args").get("bytes").asLong();
            } else if (name.equals("Unified Memory memcpy DtoH")) {
                dtohBytes += e.get("args").get("bytes").asLong();
            } else if (name.equals("GPU page fault group")) {
                faultGroups += e.get("args").get("fault groups").asLong();
            }
        }
        assertEquals(Map.of("Unified Memory memcpy HtoD", 2096, "Unified Memory memcpy DtoH", 384,
                "CPU page fault", 384, "GPU page fault group", 98), byName);
        JsonNode totals = live.get("flagtrace").get("unified_memory");
        assertEquals(2962, totals.get("events").asInt());
        assertEquals(htodBytes, totals.get("htod").get("bytes").asLong());
        assertEquals(64L << 20, htodBytes, "the 64 MiB the kernel touched and the prefetch moved, once each way in pages");
        assertEquals(dtohBytes, totals.get("dtoh").get("bytes").asLong());
        assertEquals(faultGroups, totals.get("gpu_page_fault_groups").asLong());
    }

    @Test
    void theManagedCopiesAreCopiesOfManagedMemoryOnTheirOp() {
        List<String> managed = new ArrayList<>();
        for (JsonNode e : live.get("traceEvents")) {
            if ("gpu_memcpy".equals(e.path("cat").asText()) && e.get("name").asText().contains("Managed")) {
                managed.add(e.get("name").asText());
                assertTrue(e.get("args").has("External id"), e::toString);
            }
        }
        assertEquals(List.of("Memcpy DtoD (Managed -> Device)", "Memcpy DtoD (Device -> Managed)"), managed);
    }
}
