package org.flagos.trace.pipeline;

/**
 * Vendor correlation id to External id, for the join. The key is always the vendor's correlation
 * id and the value the host op's External id; the two are never interchangeable. Vendor
 * correlation ids are dense and increasing (CUPTI counts from 1), so the table is a
 * {@link DenseLongTable}.
 */
public final class CorrelationTable {
    private static final long UNBOUND = -1;
    private final DenseLongTable table = new DenseLongTable();

    /** Binds {@code correlation} to {@code externalId}; returns false if it was already bound. */
    public boolean bind(long correlation, long externalId) {
        checkCorrelation(correlation);
        return table.putIfAbsent(correlation, externalId);
    }

    public boolean isBound(long correlation) {
        checkCorrelation(correlation);
        return table.contains(correlation);
    }

    /** The External id bound to {@code correlation}; only valid when {@link #isBound}. */
    public long externalId(long correlation) {
        return table.get(correlation, UNBOUND);
    }

    public int size() {
        return table.size();
    }

    private static void checkCorrelation(long correlation) {
        if (correlation < 0 || correlation > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("vendor correlation id out of u32 range: " + correlation);
        }
    }
}
