package org.flagos.trace.stages;

/**
 * The External ids of the host ops settled most recently, with when each arrived, so that a record
 * arriving for one of them is counted as late for its op rather than as a record of no op (and its
 * lateness known): two generations of at most
 * {@code generation} ids each, swapped like the join's bindings ({@link BindingGenerations}), so an id
 * is remembered for at least {@code generation} later settlings and memory stays bounded.
 */
final class SettledIds {
    /** What {@link #arrivedAt} returns for an id not remembered. */
    static final long ABSENT = -1;

    private final int generation;
    private NearbyKeyMap young;
    private NearbyKeyMap old;

    SettledIds(int generation) {
        this.generation = generation;
        int initial = Math.min(generation, 1 << 12);
        this.young = new NearbyKeyMap(initial, ABSENT);
        this.old = new NearbyKeyMap(initial, ABSENT);
    }

    /** Remembers an op settled now, which arrived at {@code arrivedAt} (the ledger's record clock, not negative). */
    void add(long externalId, long arrivedAt) {
        if (young.size() >= generation) {
            NearbyKeyMap cleared = old;
            cleared.clear();
            old = young;
            young = cleared;
        }
        young.put(externalId, arrivedAt);
    }

    /** When the settled op of {@code externalId} arrived, or {@link #ABSENT} when not remembered. */
    long arrivedAt(long externalId) {
        long at = young.get(externalId);
        return at != ABSENT ? at : old.get(externalId);
    }
}
