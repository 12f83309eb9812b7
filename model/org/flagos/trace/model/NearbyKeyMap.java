package org.flagos.trace.model;

import java.util.Arrays;
import org.agrona.collections.Long2LongHashMap;

/**
 * A long-to-long map for keys that arrive nearly in sequence, as vendor correlation ids do: a
 * direct-mapped window (a key's low bits are its slot, no probing) in front of a hash map that takes
 * the keys whose slot is already held by another key. The window holds at least twice as many slots
 * as keys, so keys within that distance of each other never collide, and a stage walking the ids in
 * order touches the window's memory in order.
 *
 * <p>Why not Agrona's {@code Long2LongHashMap} alone: it scatters consecutive keys about 2 KiB apart,
 * so every lookup in a table of a horizon's worth of ids (8 MiB) missed the cache and the TLB. Its
 * {@code get} was 30% of all CPU samples of a 10M-record replay (JFR; 81% of the join's thread),
 * the join's binding lookups nearly all of that (docs/benchmarks.md, "Where the time goes"). Nor
 * linear probing from the low bits: consecutive keys fill long unbroken runs, and one colliding key
 * then probes the whole run (tried: the 10M-record replay's join went from 1.6 s to 34 s of CPU).
 * Keys without locality (ids in the high bits, say) end up in the hash map: no worse than before.
 */
public final class NearbyKeyMap {
    private static final int MAX_SLOTS = 1 << 28;

    private final long missing;
    /**
     * Key at {@code 2i}, value at {@code 2i + 1} stored as {@code value ^ missing}, so that a slot is
     * empty when it holds 0: a new window needs no filling beyond the JVM's zeroing (filling it with
     * {@code missing} was a third of the join thread's samples in a warm replay of the 30k capture,
     * where the maps grow afresh each replay).
     */
    private long[] window;
    private int mask;
    private int inWindow;
    private final Long2LongHashMap overflow;

    /**
     * @param initialCapacity keys held before the window first grows
     * @param missing         the value {@link #get} returns for an absent key; never stored
     */
    public NearbyKeyMap(int initialCapacity, long missing) {
        this.missing = missing;
        this.overflow = new Long2LongHashMap(16, 0.65f, missing, true);
        allocate(Math.min(MAX_SLOTS, Integer.highestOneBit(Math.max(8, initialCapacity * 2 - 1)) << 1));
    }

    private void allocate(int slots) {
        window = new long[slots * 2];
        mask = slots - 1;
        inWindow = 0;
    }

    public long get(long key) {
        int i = (int) key & mask;
        long stored = window[2 * i + 1];
        if (stored != 0 && window[2 * i] == key) {
            return stored ^ missing;
        }
        return overflow.isEmpty() ? missing : overflow.get(key);
    }

    /** Stores {@code value} (never {@code missing}) for {@code key}; returns the previous value or {@code missing}. */
    public long put(long key, long value) {
        if (value == missing) {
            throw new IllegalArgumentException("the missing value cannot be stored");
        }
        int i = (int) key & mask;
        long held = window[2 * i + 1];
        if (held != 0 && window[2 * i] == key) {
            window[2 * i + 1] = value ^ missing;
            return held ^ missing;
        }
        if (!overflow.isEmpty() && overflow.containsKey(key)) {
            return overflow.put(key, value);
        }
        if (held == 0) {
            window[2 * i] = key;
            window[2 * i + 1] = value ^ missing;
            inWindow++;
        } else {
            overflow.put(key, value);
        }
        if (size() > (mask + 1) / 2 && mask + 1 < MAX_SLOTS) {
            grow();
        }
        return missing;
    }

    /** Removes {@code key}; returns its value or {@code missing}. */
    public long remove(long key) {
        int i = (int) key & mask;
        long stored = window[2 * i + 1];
        if (stored != 0 && window[2 * i] == key) {
            window[2 * i + 1] = 0;
            inWindow--;
            return stored ^ missing;
        }
        return overflow.isEmpty() ? missing : overflow.remove(key);
    }

    /** Empties the map, keeping its tables (a steady state allocates nothing). */
    public void clear() {
        if (inWindow > 0) {
            Arrays.fill(window, 0);
            inWindow = 0;
        }
        overflow.clear();
    }

    public int size() {
        return inWindow + overflow.size();
    }

    private void grow() {
        long[] old = window;
        long[] spilled = new long[overflow.size() * 2];
        int n = 0;
        for (Long2LongHashMap.EntryIterator it = overflow.entrySet().iterator(); it.hasNext(); ) {
            it.next();
            spilled[n++] = it.getLongKey();
            spilled[n++] = it.getLongValue();
        }
        overflow.clear();
        allocate(old.length); // twice the slots: old.length is 2 * slots
        for (int i = 0; i < old.length; i += 2) {
            if (old[i + 1] != 0) {
                put(old[i], old[i + 1] ^ missing);
            }
        }
        for (int i = 0; i < n; i += 2) {
            put(spilled[i], spilled[i + 1]);
        }
    }
}
