package org.flagos.trace.model;

/**
 * Vendor correlation id to External id, held for a whole capture (the join keeps a bounded
 * horizon instead, {@link GenerationalMap}). The key is always the vendor's correlation
 * id and the value the host op's External id; the two are never interchangeable. Correlation ids
 * are 64 bits (ROCtracer's and MSPTI's are; CUPTI's are 32-bit, dense, counting from 1): small
 * ones are paged, any other is hashed ({@link DenseLongTable}).
 */
public final class CorrelationTable {
    private static final long UNBOUND = -1;
    private final DenseLongTable table = new DenseLongTable();

    /** Binds {@code correlation} to {@code externalId}; returns false if it was already bound. */
    public boolean bind(long correlation, long externalId) {
        return table.putIfAbsent(correlation, externalId);
    }

    public boolean isBound(long correlation) {
        return table.contains(correlation);
    }

    /** The External id bound to {@code correlation}; only valid when {@link #isBound}. */
    public long externalId(long correlation) {
        return table.get(correlation, UNBOUND);
    }

    public int size() {
        return table.size();
    }
}
