package org.flagos.trace.stages;

import org.flagos.trace.pipeline.LongIntHashMap;

/** Maps an ops file's thread ids to the rows (vendor thread ids) their API calls were drawn on. */
final class TraceRowLayout {
    private final LongIntHashMap index = new LongIntHashMap(16, -1);
    private long[] rows = new long[16];
    private int size;

    void learn(long opThread, long apiThread) {
        if (opThread == Long.MAX_VALUE) {
            return; // no key for it (ops without a thread are -1, keys are thread + 1): it keeps its own row
        }
        long key = opThread + 1; // ops without a thread are -1; keys must be non-negative
        if (index.get(key) != -1) {
            return;
        }
        if (size == rows.length) {
            rows = java.util.Arrays.copyOf(rows, size * 2);
        }
        rows[size] = apiThread;
        index.put(key, size++);
    }

    long hostRow(long opThread) {
        int i = opThread == Long.MAX_VALUE ? -1 : index.get(opThread + 1);
        if (i >= 0) {
            return rows[i];
        }
        return opThread < 0 ? 0 : opThread;
    }
}
