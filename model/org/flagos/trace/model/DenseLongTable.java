package org.flagos.trace.model;

import java.util.Arrays;
import org.agrona.collections.Long2LongHashMap;

/**
 * A map from ids (vendor correlation ids, External ids: both usually count up from a small
 * number) to long values. Ids below {@link #DENSE_IDS} live in a directory of fixed pages indexed
 * by the id itself: a lookup is two array reads, an entry costs eight bytes, and steady-state
 * streaming allocates only a new page per 4,096 new ids. Any other id (64-bit vendor ids, or ids
 * a hostile capture scatters) goes to a hash map beside the pages, so that an id read from a record
 * can never size memory: the pages hold at most {@link #DENSE_IDS} entries (32 MiB), the map one
 * entry per distinct id.
 */
public final class DenseLongTable {
    private static final int PAGE_BITS = 12;
    private static final int PAGE_SIZE = 1 << PAGE_BITS;
    /** Ids below this are paged: 4 Mi ids, 1,024 pages at most. */
    public static final long DENSE_IDS = 1L << 22;

    // Values are stored +1 so that a fresh page (all zeros) reads as absent.
    private long[][] pages = new long[16][];
    private final Long2LongHashMap sparseIndex = new Long2LongHashMap(16, 0.65f, -1, true);
    private long[] sparseValues = new long[16];
    private int size;

    /** Sets {@code id} to {@code value} unless present; returns whether it was absent. */
    public boolean putIfAbsent(long id, long value) {
        if (!isDense(id)) {
            if (sparseIndex.get(id) >= 0) {
                return false;
            }
            int slot = newSparseSlot(id); // first: it may replace sparseValues
            sparseValues[slot] = value;
            return true;
        }
        long[] page = page(id, true);
        int slot = (int) (id & (PAGE_SIZE - 1));
        if (page[slot] != 0) {
            return false;
        }
        page[slot] = value + 1;
        size++;
        return true;
    }

    /** Adds {@code delta} to {@code id}'s value (0 when absent). */
    public void add(long id, long delta) {
        if (!isDense(id)) {
            int slot = (int) sparseIndex.get(id);
            if (slot < 0) {
                slot = newSparseSlot(id); // before indexing: it may replace sparseValues
            }
            sparseValues[slot] += delta;
            return;
        }
        long[] page = page(id, true);
        int slot = (int) (id & (PAGE_SIZE - 1));
        if (page[slot] == 0) {
            size++;
            page[slot] = 1;
        }
        page[slot] += delta;
    }

    public boolean contains(long id) {
        if (!isDense(id)) {
            return sparseIndex.get(id) >= 0;
        }
        long[] page = page(id, false);
        return page != null && page[(int) (id & (PAGE_SIZE - 1))] != 0;
    }

    /** {@code id}'s value, or {@code absent}. */
    public long get(long id, long absent) {
        if (!isDense(id)) {
            int slot = (int) sparseIndex.get(id);
            return slot >= 0 ? sparseValues[slot] : absent;
        }
        long[] page = page(id, false);
        if (page == null) {
            return absent;
        }
        long stored = page[(int) (id & (PAGE_SIZE - 1))];
        return stored == 0 ? absent : stored - 1;
    }

    public int size() {
        return size + sparseIndex.size();
    }

    private static boolean isDense(long id) {
        return id >= 0 && id < DENSE_IDS;
    }

    /** Creates {@code id}'s entry in the map, value 0; returns its slot in {@code sparseValues}. */
    private int newSparseSlot(long id) {
        int slot = sparseIndex.size();
        if (slot == sparseValues.length) {
            sparseValues = Arrays.copyOf(sparseValues, slot * 2);
        }
        sparseValues[slot] = 0;
        sparseIndex.put(id, slot);
        return slot;
    }

    private long[] page(long id, boolean create) {
        int index = (int) (id >>> PAGE_BITS);
        if (index >= pages.length) {
            if (!create) {
                return null;
            }
            pages = Arrays.copyOf(pages, Math.max(index + 1, pages.length * 2));
        }
        long[] page = pages[index];
        if (page == null && create) {
            page = new long[PAGE_SIZE];
            pages[index] = page;
        }
        return page;
    }
}
