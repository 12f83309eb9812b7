package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * CuptiTracer's rules that hold without a GPU: the unified-memory counters it configures are CUDA
 * 13.0's transfer counters (and page faults only on request), checked against the enum values dumped
 * beside the H200 managed capture; a driver-calls setting it does not know is said in its words and
 * read as the default; where no CUDA runtime with CUPTI loads, the tracer is unavailable with one
 * sentence saying so and profiling goes on without it.
 */
class CuptiTracerTest {
    private static int counter(JsonNode kinds, String name) {
        return kinds.get("CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_" + name).asInt();
    }

    @Test
    void theUnifiedMemoryCountersAreCudasTransfersAndOnRequestItsPageFaults() throws Exception {
        JsonNode kinds = TraceJson.MAPPER.readTree(Captures.dir().resolve("h200-managed/h200-managed.enums.json").toFile())
                .get("CUpti_ActivityUnifiedMemoryCounterKind");
        int[] transfers = {counter(kinds, "BYTES_TRANSFER_HTOD"), counter(kinds, "BYTES_TRANSFER_DTOH"),
            counter(kinds, "BYTES_TRANSFER_DTOD")};
        assertArrayEquals(transfers, CuptiTracer.unifiedMemoryCounters(false));
        int[] withFaults = Arrays.copyOf(transfers, 5);
        withFaults[3] = counter(kinds, "CPU_PAGE_FAULT_COUNT");
        withFaults[4] = counter(kinds, "GPU_PAGE_FAULT");
        assertArrayEquals(withFaults, CuptiTracer.unifiedMemoryCounters(true));
    }

    @Test
    void aDriverSettingItDoesNotKnowIsSaidAndReadAsLaunches() {
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        String read;
        try {
            read = CuptiTracer.driverCalls("sometimes");
        } finally {
            System.setErr(saved);
        }
        assertEquals("launches", read);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains(
                "flagtrace: -Dflagtrace.cupti.driver=sometimes is not launches, all or none: launches recorded"), err.toString());
        assertEquals("all", CuptiTracer.driverCalls("True"));
        assertEquals("none", CuptiTracer.driverCalls(" NONE\n"));
    }

    @Test
    void withoutACudaRuntimeTheTracerIsUnavailableInOneSentence() {
        CuptiTracer tracer = CuptiTracer.instance();
        org.junit.jupiter.api.Assumptions.assumeFalse(tracer.available(), "a machine with CUDA: the live and device tests cover it");
        String why = tracer.unavailableReason();
        assertTrue(why.startsWith("no NVIDIA driver or CUDA 13 runtime with CUPTI could be loaded: ")
                || why.startsWith("cannot load FLAGOS_TRACER_LIBRARY="), why);
        assertTrue(!why.contains("\n"), "one line: " + why);
        assertEquals("cupti", tracer.name());
    }
}
