package org.flagos.trace.stages;

import org.agrona.collections.Long2LongHashMap;

/** Maps an ops file's thread ids to the rows (vendor thread ids) their API calls were drawn on. */
final class TraceRowLayout {
    private final Long2LongHashMap index = new Long2LongHashMap(16, 0.65f, -1, true);
    private long[] rows = new long[16];
    private long[] opThreads = new long[16];
    private int size;

    /** Ops without a thread ({@code -1}) are one key like any other: the map takes every long. */
    void learn(long opThread, long apiThread) {
        if (index.get(opThread) != -1) {
            return;
        }
        if (size == rows.length) {
            rows = java.util.Arrays.copyOf(rows, size * 2);
            opThreads = java.util.Arrays.copyOf(opThreads, size * 2);
        }
        rows[size] = apiThread;
        opThreads[size] = opThread;
        index.put(opThread, size++);
    }

    /** Whether a row was learned for {@code opThread}. */
    boolean knows(long opThread) {
        return index.get(opThread) != -1;
    }

    /**
     * The first ops-file thread learned to draw on row {@code apiThread}, or {@code apiThread} itself
     * when none was: a range the vendor reports on its API thread nests with that thread's ops.
     */
    long opThreadOf(long apiThread) {
        for (int i = 0; i < size; i++) { // one entry per host thread
            if (rows[i] == apiThread) {
                return opThreads[i];
            }
        }
        return apiThread;
    }

    long hostRow(long opThread) {
        int i = (int) index.get(opThread);
        if (i >= 0) {
            return rows[i];
        }
        return opThread < 0 ? 0 : opThread;
    }
}
