package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.EnumSet;
import java.util.Set;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TruthRecord;
import org.junit.jupiter.api.Test;

/** Unified-memory counters: their trace names, which last (have a duration) and which are transfers (carry bytes). */
class UnifiedMemoryCounterTest {
    @Test
    void labels() {
        assertEquals("Unified Memory memcpy HtoD", UnifiedMemoryCounter.BYTES_HTOD.label());
        assertEquals("Unified Memory memcpy DtoH", UnifiedMemoryCounter.BYTES_DTOH.label());
        assertEquals("Unified Memory memcpy DtoD", UnifiedMemoryCounter.BYTES_DTOD.label());
        assertEquals("CPU page fault", UnifiedMemoryCounter.CPU_PAGE_FAULT.label());
        assertEquals("GPU page fault group", UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP.label());
        assertEquals("Unified Memory thrashing", UnifiedMemoryCounter.THRASHING.label());
        assertEquals("Unified Memory throttling", UnifiedMemoryCounter.THROTTLING.label());
        assertEquals("Unified Memory remote map", UnifiedMemoryCounter.REMOTE_MAP.label());
    }

    @Test
    void transfersAreTheThreeCopiesAndAllOfThemLast() {
        Set<UnifiedMemoryCounter> transfers = EnumSet.noneOf(UnifiedMemoryCounter.class);
        Set<UnifiedMemoryCounter> lasting = EnumSet.noneOf(UnifiedMemoryCounter.class);
        for (UnifiedMemoryCounter c : UnifiedMemoryCounter.values()) {
            if (c.transfer()) {
                transfers.add(c);
            }
            if (c.lasting()) {
                lasting.add(c);
            }
        }
        assertEquals(EnumSet.of(UnifiedMemoryCounter.BYTES_HTOD, UnifiedMemoryCounter.BYTES_DTOH, UnifiedMemoryCounter.BYTES_DTOD), transfers);
        assertEquals(EnumSet.of(UnifiedMemoryCounter.BYTES_HTOD, UnifiedMemoryCounter.BYTES_DTOH, UnifiedMemoryCounter.BYTES_DTOD,
                UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP, UnifiedMemoryCounter.THROTTLING), lasting);
    }

    @Test
    void whatLastsIsWhatCuptiGaveAnEndInTheH200ManagedCapture() {
        // CUpti_ActivityUnifiedMemoryCounterKind numbering: 1 HtoD, 2 DtoH, 3 CPU page fault, 4 GPU page fault group
        UnifiedMemoryCounter[] byCuptiKind = {null, UnifiedMemoryCounter.BYTES_HTOD, UnifiedMemoryCounter.BYTES_DTOH,
            UnifiedMemoryCounter.CPU_PAGE_FAULT, UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP};
        Set<UnifiedMemoryCounter> seen = EnumSet.noneOf(UnifiedMemoryCounter.class);
        for (JsonNode t : TruthRecord.read(Captures.truth("h200-managed/h200-managed"))) {
            if (t.get("kind").asText().equals("unified_memory")) {
                UnifiedMemoryCounter c = byCuptiKind[t.get("counterKind").asInt()];
                assertEquals(c.lasting(), t.get("end").asLong() != 0, c + " at " + t.get("start"));
                seen.add(c);
            }
        }
        assertEquals(EnumSet.of(UnifiedMemoryCounter.BYTES_HTOD, UnifiedMemoryCounter.BYTES_DTOH, UnifiedMemoryCounter.CPU_PAGE_FAULT,
                UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP), seen, "the four counters the capture holds (3495 records)");
    }
}
