package org.flagos.trace.model;

import org.agrona.collections.Long2LongHashMap;

/**
 * A map from any long key to an int value without boxing, kept as a thin adapter over Agrona's
 * {@link Long2LongHashMap} for the vendor code that uses it (new code uses Agrona's maps
 * directly). Every long is a key, 64-bit vendor ids and pointers with the top bit set included.
 * Storing the {@code missing} value removes the key: Agrona reserves it to mark absence.
 */
public final class LongIntHashMap {
    private final int missing;
    private final Long2LongHashMap map;

    /** @param missing the value {@link #get} returns for an absent key */
    public LongIntHashMap(int expected, int missing) {
        this.missing = missing;
        this.map = new Long2LongHashMap(Math.max(8, expected), 0.65f, missing, true);
    }

    public int get(long key) {
        return (int) map.get(key);
    }

    /** Sets {@code key} to {@code value}; returns the previous value or {@code missing}. */
    public int put(long key, int value) {
        return (int) (value == missing ? map.remove(key) : map.put(key, value));
    }

    /** Removes {@code key}; returns its value or {@code missing}. */
    public int remove(long key) {
        return (int) map.remove(key);
    }

    public int size() {
        return map.size();
    }

    /** Visits every entry. */
    public void forEach(LongIntConsumer consumer) {
        map.forEachLong((k, v) -> consumer.accept(k, (int) v));
    }

    /** Receives one entry. */
    @FunctionalInterface
    public interface LongIntConsumer {
        void accept(long key, int value);
    }
}
