package org.flagos.trace.stages;

/**
 * The join's vendor correlation id to External id bindings, kept for a bounded number of
 * bindings: two generations of at most {@code generation} bindings each. When the young one is
 * full, the old one is cleared (its table kept, so steady state allocates nothing) and the two swap.
 * A binding therefore stays known for at least {@code generation} later bindings and at most twice
 * that; records arrive within that horizon of their binding in every real capture (the GPU runs a
 * launch queue of bounded depth behind the host), and a record that arrives after its binding was
 * forgotten is parked and, at the horizon, released without an External id and counted.
 */
final class BindingGenerations {
    /** External ids are never negative (decoders reject them), so this marks an absent binding. */
    static final long UNBOUND = Long.MIN_VALUE;

    private final int generation;
    private NearbyKeyMap young;
    private NearbyKeyMap old;
    private long forgotten;

    BindingGenerations(int generation) {
        this.generation = generation;
        int initial = Math.min(generation, 1 << 12);
        this.young = new NearbyKeyMap(initial, UNBOUND);
        this.old = new NearbyKeyMap(initial, UNBOUND);
    }

    /** The External id bound to {@code correlation}, or {@link #UNBOUND}. */
    long externalId(long correlation) {
        long id = young.get(correlation);
        return id != UNBOUND ? id : old.get(correlation);
    }

    /** Binds unless {@code correlation} is bound already; returns whether it bound. */
    boolean bind(long correlation, long externalId) {
        if (externalId(correlation) != UNBOUND) {
            return false;
        }
        if (young.size() >= generation) {
            forgotten += old.size();
            NearbyKeyMap cleared = old;
            cleared.clear();
            old = young;
            young = cleared;
        }
        young.put(correlation, externalId);
        return true;
    }

    /** Bindings dropped from memory so far because newer ones pushed them past the horizon. */
    long forgotten() {
        return forgotten;
    }

    /** Bindings held now. */
    int size() {
        return young.size() + old.size();
    }
}
