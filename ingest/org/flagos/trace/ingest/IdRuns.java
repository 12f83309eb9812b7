package org.flagos.trace.ingest;

import java.util.Map;
import java.util.TreeMap;

/**
 * The External ids seen so far, as runs of consecutive ids: ids are handed out in order and an op's
 * line is written when it ends, so the ids seen form a few runs whatever the file's length (one gap
 * per op still open when a line was written). Past {@link #MAX_RUNS} runs the check is given up,
 * and {@link #givenUp()} says after how many ids, rather than holding one entry per op.
 */
public final class IdRuns {
    public static final int MAX_RUNS = 1 << 16;

    private final TreeMap<Long, Long> runs = new TreeMap<>(); // first id -> last id, inclusive
    private long added;
    private long givenUp;

    /** Adds {@code id}; false when it was already there. */
    public boolean add(long id) {
        if (givenUp > 0) {
            return true;
        }
        Map.Entry<Long, Long> below = runs.floorEntry(id);
        if (below != null && below.getValue() >= id) {
            return false;
        }
        added++;
        boolean joinsBelow = below != null && below.getValue() == id - 1;
        Long above = id == Long.MAX_VALUE ? null : runs.remove(id + 1);
        if (joinsBelow) {
            runs.put(below.getKey(), above != null ? above : id);
        } else {
            runs.put(id, above != null ? above : id);
        }
        if (runs.size() > MAX_RUNS) {
            runs.clear();
            givenUp = added;
        }
        return true;
    }

    /** The number of ids checked before the check was given up; 0 when it never was. */
    public long givenUp() {
        return givenUp;
    }
}
