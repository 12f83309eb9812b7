package org.flagos.trace.pipeline;

import java.util.Arrays;

/**
 * A map from dense non-negative ids (vendor correlation ids, External ids: both count up from a
 * small number) to long values, stored as a directory of fixed pages indexed by the id itself.
 * A lookup is two array reads; an entry costs eight bytes that are never copied or freed while a
 * capture runs, so steady-state streaming allocates only a new page per 4,096 new ids.
 */
public final class DenseLongTable {
    private static final int PAGE_BITS = 12;
    private static final int PAGE_SIZE = 1 << PAGE_BITS;
    /** Ids above this would need a directory of more than 2^24 pages. */
    public static final long MAX_ID = (1L << 36) - 1;

    // Values are stored +1 so that a fresh page (all zeros) reads as absent.
    private long[][] pages = new long[16][];
    private int size;

    /** Sets {@code id} to {@code value} if absent; returns false (and changes nothing) if present. */
    public boolean putIfAbsent(long id, long value) {
        long[] page = page(id, true);
        int slot = (int) (id & (PAGE_SIZE - 1));
        if (page[slot] != 0) {
            return false;
        }
        page[slot] = value + 1;
        size++;
        return true;
    }

    /** Adds {@code delta} to {@code id}'s value, starting from 0 when absent. */
    public void add(long id, long delta) {
        long[] page = page(id, true);
        int slot = (int) (id & (PAGE_SIZE - 1));
        if (page[slot] == 0) {
            size++;
            page[slot] = 1;
        }
        page[slot] += delta;
    }

    public boolean contains(long id) {
        long[] page = page(id, false);
        return page != null && page[(int) (id & (PAGE_SIZE - 1))] != 0;
    }

    /** The value of {@code id}, or {@code absent} when it has none. */
    public long get(long id, long absent) {
        long[] page = page(id, false);
        if (page == null) {
            return absent;
        }
        long stored = page[(int) (id & (PAGE_SIZE - 1))];
        return stored == 0 ? absent : stored - 1;
    }

    public int size() {
        return size;
    }

    private long[] page(long id, boolean create) {
        if (id < 0 || id > MAX_ID) {
            throw new IllegalArgumentException("id out of range for a dense table: " + id);
        }
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
