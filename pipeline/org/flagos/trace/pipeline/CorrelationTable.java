package org.flagos.trace.pipeline;

import java.util.Arrays;

/**
 * Vendor correlation id to External id, for the join. Vendor correlation ids are dense and
 * increasing (CUPTI counts from 1), so the table is a directory of fixed pages indexed by the id
 * itself: a lookup is two array reads, no hashing, and an entry costs eight bytes that are never
 * copied or freed while the capture runs. The key type is the vendor's correlation id and the
 * value the host op's External id; the two are never interchangeable.
 */
public final class CorrelationTable {
    private static final int PAGE_BITS = 12;
    private static final int PAGE_SIZE = 1 << PAGE_BITS;
    private static final long UNBOUND = 0;

    // Stored as externalId + 1 so that a fresh page (all zeros) reads as unbound; 0 is a valid id.
    private long[][] pages = new long[64][];
    private int size;

    /** Binds {@code correlation} to {@code externalId}; returns false if it was already bound. */
    public boolean bind(long correlation, long externalId) {
        long[] page = page(correlation, true);
        int slot = (int) (correlation & (PAGE_SIZE - 1));
        if (page[slot] != UNBOUND) {
            return false;
        }
        page[slot] = externalId + 1;
        size++;
        return true;
    }

    /** True when {@code correlation} is bound. */
    public boolean isBound(long correlation) {
        long[] page = page(correlation, false);
        return page != null && page[(int) (correlation & (PAGE_SIZE - 1))] != UNBOUND;
    }

    /** The External id bound to {@code correlation}; only valid when {@link #isBound}. */
    public long externalId(long correlation) {
        return page(correlation, false)[(int) (correlation & (PAGE_SIZE - 1))] - 1;
    }

    public int size() {
        return size;
    }

    private long[] page(long correlation, boolean create) {
        if (correlation < 0 || correlation > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("vendor correlation id out of u32 range: " + correlation);
        }
        int index = (int) (correlation >>> PAGE_BITS);
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
