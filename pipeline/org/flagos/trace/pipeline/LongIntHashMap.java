package org.flagos.trace.pipeline;

import java.util.Arrays;

/**
 * Open-addressing map from any long key to an int value, without boxing: the stages' per-record
 * lookups (correlation to slot index, name handle to name id) must not allocate. Grows by doubling,
 * which allocates only when the number of distinct keys doubles. Keys come from records (64-bit
 * vendor correlation ids, pointers with the top bit set), so every long is a key: the one value
 * the table uses to mark an empty slot is kept beside it.
 */
public final class LongIntHashMap {
    private static final long EMPTY = -1;

    private final int missing;
    private long[] keys;
    private int[] values;
    private int size;
    private int mask;
    private boolean hasEmptyKey;
    private int emptyKeyValue;

    /** @param missing the value {@link #get} returns for an absent key */
    public LongIntHashMap(int expected, int missing) {
        int capacity = Integer.highestOneBit(Math.max(16, expected * 2) - 1) << 1;
        this.missing = missing;
        this.keys = new long[capacity];
        this.values = new int[capacity];
        this.mask = capacity - 1;
        Arrays.fill(keys, EMPTY);
    }

    public int get(long key) {
        if (key == EMPTY) {
            return hasEmptyKey ? emptyKeyValue : missing;
        }
        int i = index(key);
        while (true) {
            long k = keys[i];
            if (k == key) {
                return values[i];
            }
            if (k == EMPTY) {
                return missing;
            }
            i = (i + 1) & mask;
        }
    }

    /** Sets {@code key} to {@code value}; returns the previous value or {@code missing}. */
    public int put(long key, int value) {
        if (key == EMPTY) {
            int old = hasEmptyKey ? emptyKeyValue : missing;
            if (!hasEmptyKey) {
                hasEmptyKey = true;
                size++;
            }
            emptyKeyValue = value;
            return old;
        }
        int i = index(key);
        while (true) {
            long k = keys[i];
            if (k == key) {
                int old = values[i];
                values[i] = value;
                return old;
            }
            if (k == EMPTY) {
                keys[i] = key;
                values[i] = value;
                if (++size * 2 > keys.length) {
                    grow();
                }
                return missing;
            }
            i = (i + 1) & mask;
        }
    }

    /** Removes {@code key}; returns its value or {@code missing}. Backward-shift deletion: no tombstones. */
    public int remove(long key) {
        if (key == EMPTY) {
            if (!hasEmptyKey) {
                return missing;
            }
            hasEmptyKey = false;
            size--;
            return emptyKeyValue;
        }
        int i = index(key);
        while (true) {
            long k = keys[i];
            if (k == EMPTY) {
                return missing;
            }
            if (k == key) {
                break;
            }
            i = (i + 1) & mask;
        }
        int removed = values[i];
        int hole = i;
        int j = (i + 1) & mask;
        while (keys[j] != EMPTY) {
            int home = index(keys[j]);
            // Move keys[j] into the hole unless its home lies cyclically in (hole, j].
            boolean stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
            if (!stays) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
            j = (j + 1) & mask;
        }
        keys[hole] = EMPTY;
        size--;
        return removed;
    }

    public int size() {
        return size;
    }

    /** Visits every entry. */
    public void forEach(LongIntConsumer consumer) {
        if (hasEmptyKey) {
            consumer.accept(EMPTY, emptyKeyValue);
        }
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != EMPTY) {
                consumer.accept(keys[i], values[i]);
            }
        }
    }

    /** Receives one entry. */
    @FunctionalInterface
    public interface LongIntConsumer {
        void accept(long key, int value);
    }

    private int index(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        mask = keys.length - 1;
        Arrays.fill(keys, EMPTY);
        size = hasEmptyKey ? 1 : 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }
}
