package org.flagos.trace.sql;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The longest path to every node an edge between chains leaves or enters (the key nodes, {@code cp_sweep.sql}), in
 * one pass over them in time order: the rule {@link CriticalPath} settles them with, on every engine (DuckDB streams
 * the rows through it in the JVM, Spark in one task). A key node's longest path is {@code wcum} plus the running
 * maximum, along its chain segment, of each key node's lift: the larger of {@code floor_lift} (the running maximum of
 * {@code -wcum} over all the segment's nodes so far) and its best entry over edges from other chains (the source's
 * longest path plus the edge's weight, or 0) less its {@code wcum}. That is what {@code cp_round.sql} computes, round
 * after round, until nothing changes; here every source is settled before the edges it leaves are read.
 *
 * <p>The rows come ordered by {@link #ORDER}: {@code at_ns} is the latest time of the key nodes of the chain so far, so
 * a chain's nodes come in its order, and an edge that goes forward in time comes after its source. Nodes of one
 * {@code at_ns} are settled in an order their edges allow. Where no order does (an edge back in time: device work
 * before its launch, a sync ending before the work it waited for; or a cycle), the sweep gives {@link #UNORDERED} as
 * its last row, and {@link CriticalPath} settles the graph in rounds instead. It keeps one running maximum a chain
 * and the longest paths of the sources whose edges have not all been read: not the graph.
 *
 * <p>Each input row is a key node with one edge into it ({@link #COLUMNS}; {@code src} -1 for none); each output
 * row is {@code rank, node, dist}. This class uses nothing but the JDK, so the spark jar carries it.
 */
public final class CriticalPathSweep implements Iterator<long[]> {
    /** The columns of an input row, in order, each a whole number (cp_sweep.sql's). */
    public static final List<String> COLUMNS = List.of("at_ns", "rank", "node", "side", "c1", "c2", "seg", "pos", "wcum", "floor_lift",
            "outs", "src_rank", "src", "weight");

    /** The order the input rows must come in (a key node's rows are together: its chain and position are its own). */
    public static final List<String> ORDER = List.of("at_ns", "rank", "side", "c1", "c2", "pos");

    /** The columns of an output row. */
    public static final List<String> OUTPUT = List.of("rank", "node", "dist");

    /** The last row when the graph's edges cannot be ordered in time: the rounds must settle it. */
    static final long[] UNORDERED = {-1, -1, -1};

    private static final int AT = 0;
    private static final int RANK = 1;
    private static final int NODE = 2;
    private static final int SIDE = 3;
    private static final int C1 = 4;
    private static final int C2 = 5;
    private static final int SEG = 6;
    private static final int POS = 7;
    private static final int WCUM = 8;
    private static final int FLOOR = 9;
    private static final int OUTS = 10;
    private static final int SRC_RANK = 11;
    private static final int SRC = 12;
    private static final int WEIGHT = 13;

    private record Chain(long rank, long side, long c1, long c2) {
    }

    private record Node(long rank, long node) {
    }

    /** A key node and the edges into it (each {src_rank, src, weight}). */
    private record Key(long[] row, Chain chain, List<long[]> edges) {
    }

    private final Iterator<long[]> rows;
    private long[] ahead;
    private final ArrayDeque<long[]> out = new ArrayDeque<>();
    /** Per chain: {segment, running maximum of the lifts in it}. */
    private final Map<Chain, long[]> chains = new HashMap<>();
    /** Per settled source with edges still to read: {longest path, edges left}. */
    private final Map<Node, long[]> sources = new HashMap<>();
    private boolean unordered;

    /** Sweeps {@code rows}, each {@link #COLUMNS} in {@link #ORDER}; read lazily, one instant's nodes at a time. */
    public CriticalPathSweep(Iterator<long[]> rows) {
        this.rows = rows;
    }

    @Override
    public boolean hasNext() {
        while (out.isEmpty() && !unordered && (ahead != null || rows.hasNext())) {
            instant();
        }
        return !out.isEmpty();
    }

    @Override
    public long[] next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return out.poll();
    }

    /** Reads the key nodes of the next {@code at_ns} and settles them, or ends the sweep with {@link #UNORDERED}. */
    private void instant() {
        List<Key> keys = new ArrayList<>();
        long[] row = ahead != null ? ahead : rows.next();
        ahead = null;
        long at = row[AT];
        while (row != null && row[AT] == at) {
            Key last = keys.isEmpty() ? null : keys.get(keys.size() - 1);
            if (last == null || last.row[RANK] != row[RANK] || last.row[NODE] != row[NODE]) {
                last = new Key(row, new Chain(row[RANK], row[SIDE], row[C1], row[C2]), new ArrayList<>(1));
                keys.add(last);
            }
            if (row[SRC] >= 0) {
                last.edges.add(new long[] {row[SRC_RANK], row[SRC], row[WEIGHT]});
            }
            row = rows.hasNext() ? rows.next() : null;
        }
        ahead = row;
        // a node waits for its chain's earlier nodes and its edges' sources; one instant's nodes are few
        List<Key> left = keys;
        while (!left.isEmpty()) {
            List<Key> waiting = new ArrayList<>();
            Set<Chain> held = new HashSet<>();
            for (Key k : left) {
                if (held.contains(k.chain) || !ready(k)) {
                    waiting.add(k);
                    held.add(k.chain);
                } else {
                    settle(k);
                }
            }
            if (waiting.size() == left.size()) {
                out.add(UNORDERED.clone());
                unordered = true;
                return;
            }
            left = waiting;
        }
    }

    private boolean ready(Key k) {
        for (long[] e : k.edges) {
            if (!sources.containsKey(new Node(e[0], e[1]))) {
                return false;
            }
        }
        return true;
    }

    private void settle(Key k) {
        long[] r = k.row;
        long best = 0;
        for (long[] e : k.edges) {
            Node src = new Node(e[0], e[1]);
            long[] s = sources.get(src);
            best = Math.max(best, s[0] + e[2]);
            if (--s[1] == 0) {
                sources.remove(src);
            }
        }
        long lift = Math.max(r[FLOOR], best - r[WCUM]);
        long[] run = chains.get(k.chain);
        if (run == null || run[0] != r[SEG]) {
            chains.put(k.chain, new long[] {r[SEG], lift});
        } else {
            run[1] = Math.max(run[1], lift);
            lift = run[1];
        }
        long dist = r[WCUM] + lift;
        if (r[OUTS] > 0) {
            sources.put(new Node(r[RANK], r[NODE]), new long[] {dist, r[OUTS]});
        }
        out.add(new long[] {r[RANK], r[NODE], dist});
    }
}
