package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.model.UnifiedMemoryCounter;
import org.junit.jupiter.api.Test;

/**
 * A capture's unified-memory totals: records per counter, bytes for the three transfers, fault
 * groups for GPU page faults and nothing for the counters whose value is not an amount (a CPU page
 * fault's value is a process id, thrashing's and remote map's are flags); a sum past 2^63 saturates
 * instead of wrapping negative.
 */
class UnifiedMemoryTotalsTest {
    private static TraceRecord um(UnifiedMemoryCounter counter, long value) {
        TraceRecord r = new TraceRecord();
        r.umCounter = counter;
        r.umValue = value;
        return r;
    }

    @Test
    void recordsPerCounterAndAmountsOnlyWhereTheValueIsOne() {
        UnifiedMemoryTotals t = new UnifiedMemoryTotals();
        for (UnifiedMemoryCounter c : UnifiedMemoryCounter.values()) {
            assertEquals(0, t.records(c));
            assertEquals(0, t.amount(c));
        }
        assertEquals(0, t.total());
        t.add(um(UnifiedMemoryCounter.BYTES_HTOD, 4096));
        t.add(um(UnifiedMemoryCounter.BYTES_HTOD, 2 * 1024 * 1024));
        t.add(um(UnifiedMemoryCounter.BYTES_DTOH, 65536));
        t.add(um(UnifiedMemoryCounter.BYTES_DTOD, 0));
        t.add(um(UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP, 3));
        t.add(um(UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP, 7));
        t.add(um(UnifiedMemoryCounter.CPU_PAGE_FAULT, 31337)); // the faulting process
        t.add(um(UnifiedMemoryCounter.THRASHING, 1));
        t.add(um(UnifiedMemoryCounter.THROTTLING, 500));
        t.add(um(UnifiedMemoryCounter.REMOTE_MAP, 2));
        assertEquals(2, t.records(UnifiedMemoryCounter.BYTES_HTOD));
        assertEquals(4096 + 2 * 1024 * 1024, t.amount(UnifiedMemoryCounter.BYTES_HTOD));
        assertEquals(65536, t.amount(UnifiedMemoryCounter.BYTES_DTOH));
        assertEquals(1, t.records(UnifiedMemoryCounter.BYTES_DTOD));
        assertEquals(0, t.amount(UnifiedMemoryCounter.BYTES_DTOD));
        assertEquals(2, t.records(UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP));
        assertEquals(10, t.amount(UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP));
        for (UnifiedMemoryCounter c : new UnifiedMemoryCounter[] {UnifiedMemoryCounter.CPU_PAGE_FAULT, UnifiedMemoryCounter.THRASHING,
            UnifiedMemoryCounter.THROTTLING, UnifiedMemoryCounter.REMOTE_MAP}) {
            assertEquals(1, t.records(c), c.name());
            assertEquals(0, t.amount(c), c + ": its value is not an amount");
        }
        assertEquals(10, t.total());
    }

    @Test
    void aSumPast2To63Saturates() {
        UnifiedMemoryTotals t = new UnifiedMemoryTotals();
        t.add(um(UnifiedMemoryCounter.BYTES_DTOH, Long.MAX_VALUE - 5));
        assertEquals(Long.MAX_VALUE - 5, t.amount(UnifiedMemoryCounter.BYTES_DTOH));
        t.add(um(UnifiedMemoryCounter.BYTES_DTOH, 6));
        assertEquals(Long.MAX_VALUE, t.amount(UnifiedMemoryCounter.BYTES_DTOH), "saturated, not negative");
        t.add(um(UnifiedMemoryCounter.BYTES_DTOH, Long.MAX_VALUE));
        assertEquals(Long.MAX_VALUE, t.amount(UnifiedMemoryCounter.BYTES_DTOH), "and stays there");
        t.add(um(UnifiedMemoryCounter.BYTES_DTOH, 0));
        assertEquals(Long.MAX_VALUE, t.amount(UnifiedMemoryCounter.BYTES_DTOH));
        assertEquals(4, t.records(UnifiedMemoryCounter.BYTES_DTOH));
        assertEquals(0, t.amount(UnifiedMemoryCounter.BYTES_HTOD), "the other counters untouched");
    }
}
