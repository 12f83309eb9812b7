package org.flagos.trace.model;

/**
 * A long-to-long map that remembers only the keys put in recently, so that its memory is bounded
 * by a horizon rather than by the capture's length: two generations of at most {@code generation}
 * keys each. When a key new to the young generation finds it full, the old one is cleared (its
 * table kept, so a steady state allocates nothing) and the two swap; what the cleared generation
 * held is counted as {@link #forgotten()}. A key therefore stays known at least while no more
 * than {@code generation} other keys were put after it, and a lookup sees both generations.
 *
 * <p>Its users: the join's correlation-to-External-id bindings and the marker ranges' call
 * bindings ({@link #putIfAbsent}: the first binding wins), the ledger's recently settled ops
 * (External id to arrival) and the MSPTI remap's flow ids and group states ({@link #put}: the
 * newest value wins). Each generation is a {@link NearbyKeyMap}: these keys are ids that count up.
 */
public final class GenerationalMap {
    private final int generation;
    private final long missing;
    private NearbyKeyMap young;
    private NearbyKeyMap old;
    private long forgotten;

    /**
     * @param generation keys per generation, at least one
     * @param missing    what {@link #get} returns for a key not known (any longer); never stored
     */
    public GenerationalMap(int generation, long missing) {
        if (generation < 1) {
            throw new IllegalArgumentException("generation " + generation + " must hold at least one key");
        }
        this.generation = generation;
        this.missing = missing;
        int initial = Math.min(generation, 1 << 12);
        this.young = new NearbyKeyMap(initial, missing);
        this.old = new NearbyKeyMap(initial, missing);
    }

    /** The value of {@code key}, or the {@code missing} value when it is not known (any longer). */
    public long get(long key) {
        long value = young.get(key);
        return value != missing ? value : old.get(key);
    }

    /** Sets {@code key} to {@code value} (never {@code missing}); a key new to the young generation may push the old one out. */
    public void put(long key, long value) {
        if (young.get(key) != missing) {
            young.put(key, value);
            return;
        }
        old.remove(key); // moves to the young generation: not forgotten by the turnover below
        makeRoom();
        young.put(key, value);
    }

    /** Sets {@code key} to {@code value} (never {@code missing}) unless it is known; returns whether it was set. */
    public boolean putIfAbsent(long key, long value) {
        if (get(key) != missing) {
            return false;
        }
        makeRoom();
        young.put(key, value);
        return true;
    }

    private void makeRoom() {
        if (young.size() >= generation) {
            forgotten += old.size();
            NearbyKeyMap cleared = old;
            cleared.clear();
            old = young;
            young = cleared;
        }
    }

    /** Keys dropped from memory so far because newer ones pushed them past the horizon. */
    public long forgotten() {
        return forgotten;
    }

    /** Keys held now, in both generations. */
    public int size() {
        return young.size() + old.size();
    }
}
