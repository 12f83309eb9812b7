package org.flagos.trace.vendors.mspti;

import org.agrona.collections.Long2LongHashMap;

/**
 * A long-to-int table that remembers only the keys put in recently: two generations of at most
 * {@code generation} keys each; when the young one is full the old one is cleared (its table kept)
 * and they swap. A key stays known for at least {@code generation} later new keys, and what it
 * forgets is counted, so memory is bounded by the horizon, not by the capture's length.
 */
final class RecentFlows {
    private static final long ABSENT = Long.MIN_VALUE;

    private final int generation;
    private final int missing;
    private Long2LongHashMap young;
    private Long2LongHashMap old;
    private long forgotten;

    /** @param missing what {@link #get} returns for a key not known (any longer) */
    RecentFlows(int generation, int missing) {
        this.generation = generation;
        this.missing = missing;
        int initial = Math.min(generation, 1 << 12);
        this.young = new Long2LongHashMap(initial, 0.65f, ABSENT, true);
        this.old = new Long2LongHashMap(initial, 0.65f, ABSENT, true);
    }

    int get(long key) {
        long value = young.get(key);
        if (value == ABSENT) {
            value = old.get(key);
        }
        return value == ABSENT ? missing : (int) value;
    }

    /** Sets {@code key}; a key new to the young generation may push the old one out. */
    void put(long key, int value) {
        if (young.containsKey(key)) {
            young.put(key, value);
            return;
        }
        if (young.size() >= generation) {
            forgotten += old.size();
            Long2LongHashMap cleared = old;
            cleared.clear();
            old = young;
            young = cleared;
        }
        old.remove(key);
        young.put(key, value);
    }

    /** Keys dropped so far because newer ones pushed them past the horizon. */
    long forgotten() {
        return forgotten;
    }

    int size() {
        return young.size() + old.size();
    }
}
