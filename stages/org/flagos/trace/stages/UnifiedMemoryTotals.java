package org.flagos.trace.stages;

import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.model.UnifiedMemoryCounter;

/**
 * What a capture's unified-memory records add up to, over the records drawn (inside the window):
 * per counter the records, and the bytes moved (transfers) or fault groups (a GPU page-fault event's value).
 * Read by the accounting's {@code unified_memory} block and the CLI's line.
 */
public final class UnifiedMemoryTotals {
    private static final UnifiedMemoryCounter[] COUNTERS = UnifiedMemoryCounter.values();

    private final long[] records = new long[COUNTERS.length];
    private final long[] amount = new long[COUNTERS.length];

    void add(TraceRecord r) {
        int c = r.umCounter.ordinal();
        records[c]++;
        if (r.umCounter.transfer() || r.umCounter == UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP) {
            amount[c] += r.umValue; // at most 2^63 each (checked when decoded); a sum past that saturates
            if (amount[c] < 0) {
                amount[c] = Long.MAX_VALUE;
            }
        }
    }

    /** Records of {@code counter} drawn. */
    public long records(UnifiedMemoryCounter counter) {
        return records[counter.ordinal()];
    }

    /** A transfer's bytes moved, a GPU page-fault event's fault groups, summed; 0 for the other counters. */
    public long amount(UnifiedMemoryCounter counter) {
        return amount[counter.ordinal()];
    }

    /** Every record drawn. */
    public long total() {
        long n = 0;
        for (long r : records) {
            n += r;
        }
        return n;
    }
}
