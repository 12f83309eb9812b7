package org.flagos.trace.sql;

import java.io.IOException;
import java.util.List;

/**
 * Holistic Trace Analysis's critical path, per rank, as a fixed sequence of portable SQL steps
 * (resource files {@code cp_*.sql} beside {@link Analyses}) that any {@link Engine} runs: DuckDB in
 * the CLI, Spark in the spark jar. The longest path through a graph is not one query in either
 * engine (a recursive CTE cannot take the maximum over a node's predecessors; Spark before 4.1 has
 * none at all). The graph's chains (host threads, device streams) carry the longest paths along
 * themselves in one window function (cp_round.sql); what is left is the nodes the edges between
 * chains (launches, syncs, and a collective's edges between ranks) leave or enter. Those are settled
 * in one pass in time order ({@link CriticalPathSweep}, over cp_sweep.sql's rows: the engine streams
 * them through it), since every such edge goes forward in time; where one does not, they are settled
 * in rounds as before, each carrying the paths over one more edge between chains, one window of time
 * at a time, until nothing changes. One window function over every node then gives each its longest
 * path. The walk back from each rank's farthest node is pointer doubling: about 2 log2 of the path's
 * segments queries. Nothing is read into this class but counts. The result is the
 * table {@code cp_segments}, which {@code critical_path.sql} and {@code critical_path_segments.sql}
 * read. docs/analysis.md, "Critical path", says what the graph is and how it differs from HTA's.
 * This class uses nothing but the JDK, so the spark jar carries it.
 */
public final class CriticalPath {
    /** The analyses ({@link Analyses#NAMES}) that read {@code cp_segments}, which {@link #build} makes. */
    public static final List<String> TABLES = List.of("critical_path", "critical_path_segments");

    /**
     * The analysis whose table ({@code cp_collectives} while the graph is built) says which kernels of
     * different ranks are one collective: cp_cross links them with it, so the two cannot match differently.
     */
    static final String COLLECTIVES = "collectives";

    /** The steps, in order; each is a resource {@code NAME.sql}. */
    static final List<String> STEPS = List.of("cp_events", "cp_arrivals", "cp_nodes", "cp_cross", "cp_ends", "cp_key_nodes", "cp_sweep",
            "cp_keys", "cp_window_keys", "cp_window_cross",
            "cp_round",
            "cp_back", "cp_walk_start", "cp_jump_start", "cp_jump", "cp_walk_expand", "cp_segments");

    /**
     * The windows of time the rounds settle one after another: the square root of (the nodes of cp_keys / this),
     * so that the rounds' work on a window's nodes and the copies of the settled ones weigh about the same.
     */
    static final long NODES_PER_WINDOW_SQUARED = 100;

    /**
     * The most events of the graph ({@code cp_events} rows) one statement of {@code cp_nodes} takes on DuckDB, and the most
     * {@code events} rows one statement of {@code cp_events} reads: a larger job's graph events and nodes are made a slice
     * of ranks at a time (every row of {@code cp_nodes} depends on its own rank's events
     * only), so the step's windows and joins work on a slice, not the whole job; so are the later steps over every node
     * ({@code cp_key_nodes}, {@code cp_dist_all}, {@code cp_back}, {@code cp_walk_0}) and the paths' edges ({@code cp_segments}, a
     * slice of the paths' ranks), in the same slices. In one statement cp_nodes ran out of the launcher's 616 MiB at 64 ranks x
     * 1M events, and so did cp_events' numbering once cp_nodes was sliced; cp_segments of a quarter of it at 16 x 1M (docs/benchmarks.md,
     * "`analyze` of 64 × 1M within 1 GiB"). DuckDB's only ({@link DuckDbAnalyses#criticalPath()}); the system
     * property {@link #SLICE_PROPERTY} sets another size (to compare a small job's tables made in slices and whole).
     */
    static final long EVENTS_PER_SLICE = 2_000_000;

    /**
     * The system property that sets {@link #EVENTS_PER_SLICE} for {@link DuckDbAnalyses#criticalPath()}, and the events
     * ({@code events} rows) a statement of {@link DuckDbAnalyses#PER_RANK}'s analyses (rank_ops) takes.
     */
    static final String SLICE_PROPERTY = "flagtrace.analyze.slice.events";

    /** Makes {@code cp_keys} with its nodes in {@code windows} windows of time ({@code cp_window_count}). */
    private static void keys(Engine engine, long windows) throws IOException {
        engine.table("cp_window_count", "SELECT CAST(" + windows + " AS BIGINT) AS n");
        engine.table("cp_keys", step("cp_keys"));
    }

    /** What the engine running the steps must do; the SQL text it is given is the same for every engine. */
    public interface Engine {
        /** Makes {@code select}'s result a table named {@code name} that later statements read (computed now, once). */
        void table(String name, String select) throws IOException;

        /** The whole number in the first column of {@code select}'s one row. */
        long count(String select) throws IOException;

        /** Drops the table {@code name} made by {@link #table}, if it is there. */
        void drop(String name) throws IOException;

        /**
         * Makes a table named {@code name} (columns {@link CriticalPathSweep#OUTPUT}, whole numbers) of the rows a
         * {@link CriticalPathSweep} gives over {@code select}'s rows (its {@link CriticalPathSweep#COLUMNS}), read in
         * {@link CriticalPathSweep#ORDER}: computed now, once, in one pass.
         */
        void sweep(String name, String select) throws IOException;
    }

    /**
     * How much work the last {@link #build} took: relaxation rounds (0 where the sweep settled the key nodes), walk
     * steps, whether the sweep settled them, the statements {@code cp_events} and {@code cp_nodes} were made in (one a
     * slice of ranks), and those {@code cp_segments} was made in (one a slice of the paths' ranks).
     */
    public record Rounds(int relaxations, int walkSteps, boolean swept, int eventSlices, int nodeSlices, int segmentSlices) {
    }

    private CriticalPath() {
    }

    /**
     * The SQL text of step {@code name}, with each table name {@code renames[2i]} (such as {@code cp_dist_prev})
     * replaced by {@code renames[2i + 1]}.
     */
    static String step(String name, String... renames) {
        if (!STEPS.contains(name)) {
            throw new IllegalArgumentException("no critical path step named " + name);
        }
        String sql = Analyses.load(name);
        for (int i = 0; i + 1 < renames.length; i += 2) {
            sql = sql.replace(renames[i], renames[i + 1]);
        }
        return sql;
    }

    /**
     * The rounds (the way the key nodes were settled before {@link CriticalPathSweep}, kept for graphs whose edges
     * cannot be ordered in time): relaxes the longest paths to the key nodes round after round, one window of time at a
     * time, until nothing changes; {@code rounds[0]} is set to the rounds run. Returns the table of the settled nodes.
     */
    private static String rounds(Engine engine, int[] rounds) throws IOException {
        // The rounds run over the nodes edges between chains leave or enter (cp_keys), not the whole graph, and one
        // window of time at a time, earliest first: a round's cost is the window's nodes, and the rounds of all
        // windows together are about those a round over the whole graph would need (cp_round.sql says why).
        long ends = engine.count("SELECT COUNT(*) FROM cp_ends");
        long windows = Math.max(1, (long) Math.sqrt(ends / (double) NODES_PER_WINDOW_SQUARED));
        keys(engine, windows);
        if (windows > 1 && engine.count("SELECT COUNT(*) FROM cp_cross c JOIN cp_keys s ON s.rank = c.src_rank AND s.node = c.src"
                + " JOIN cp_keys d ON d.rank = c.rank AND d.node = c.dst WHERE s.w > d.w") > 0) {
            windows = 1; // an edge back in time (device work before its launch, a sync before the work it waits for)
            keys(engine, windows);
        }
        engine.table("cp_settled_0", "SELECT rank, node, side, c1, c2, seg, pos, wcum, CAST(0 AS BIGINT) AS dist FROM cp_keys WHERE 1 = 0");
        int round = 0;
        String settled = "cp_settled_0";
        for (long w = 0; w < windows; w++) {
            engine.table("cp_window", "SELECT CAST(" + w + " AS BIGINT) AS w");
            engine.table("cp_window_keys", step("cp_window_keys", "cp_settled", settled));
            if (engine.count("SELECT COUNT(*) FROM cp_window_keys") == 0) {
                continue;
            }
            engine.table("cp_window_cross", step("cp_window_cross"));
            long inside = engine.count("SELECT COUNT(*) FROM cp_window_cross");
            engine.table("cp_dist_0", "SELECT rank, node, CAST(0 AS BIGINT) AS dist FROM cp_window_keys");
            int r = 0;
            while (true) {
                String prev = "cp_dist_" + r;
                String next = "cp_dist_" + (r + 1);
                engine.table(next, step("cp_round", "cp_round_nodes", "cp_window_keys", "cp_round_cross", "cp_window_cross",
                        "cp_dist_prev", prev));
                long changed = engine.count("SELECT COUNT(*) FROM " + next + " n JOIN " + prev
                        + " p ON p.rank = n.rank AND p.node = n.node WHERE n.dist <> p.dist");
                engine.drop(prev);
                r++;
                if (changed == 0) {
                    break;
                }
                if (r > inside + 2) {
                    engine.drop(next);
                    for (String t : List.of("cp_keys", "cp_window", "cp_window_keys", "cp_window_cross", settled)) {
                        engine.drop(t);
                    }
                    throw new IOException("the critical path graph has a cycle (device work that starts before its launch call);"
                            + " the longest paths still grew after " + (round + r) + " rounds");
                }
            }
            round += r;
            String next = "cp_settled_" + (w + 1);
            engine.table(next, "SELECT * FROM " + settled + " UNION ALL SELECT rank, node, side, c1, c2, seg, pos, wcum, dist FROM cp_dist_" + r);
            engine.drop("cp_dist_" + r);
            engine.drop(settled);
            settled = next;
        }
        for (String t : List.of("cp_keys", "cp_window", "cp_window_keys", "cp_window_cross", "cp_window_count")) {
            engine.drop(t);
        }
        rounds[0] = round;
        return settled;
    }

    /**
     * Makes the table {@code name} of {@code select}, a step whose every row depends only on its own rank's rows of the
     * tables {@code perRankTables} (each has a column {@code rank}): in one statement where the first of them holds at
     * most {@code eventsPerSlice} rows, else one slice of ranks at a time (each slice's ranks hold that many of its rows,
     * or one rank more), each statement reading only its slice's rows of those tables, the slices then put together.
     * Returns the statements the table was made in. {@link DuckDbAnalyses} makes rank_ops' rows this way too.
     */
    static int perRank(Engine engine, String name, String select, long eventsPerSlice, String... perRankTables) throws IOException {
        return perRank(engine, name, select, eventsPerSlice, perRankTables[0], List.of(perRankTables));
    }

    /**
     * As {@link #perRank(Engine, String, String, long, String...)}, the slices of ranks sized by the rows of table
     * {@code counted} (at most {@code rowsPerSlice} of them a slice, or one rank more), each statement reading only its
     * slice's rows ({@code rank} column) of the tables {@code filtered} and every row of the others, {@code counted}
     * included where it is not in {@code filtered}: for a step each of whose rows is one rank's (the rank the filtered
     * tables' {@code rank} says) but reads other ranks' rows of another table too (cp_segments: a rank's path may run
     * through other ranks' chains).
     */
    static int perRank(Engine engine, String name, String select, long rowsPerSlice, String counted, List<String> filtered)
            throws IOException {
        // a row of no rank (a table not written by flagtrace tables, docs/tables.md) is in no slice: one statement then;
        // no slices asked for (Spark's build): one statement, without counting
        if (rowsPerSlice == Long.MAX_VALUE || engine.count("SELECT COUNT(*) FROM " + counted) <= rowsPerSlice
                || engine.count("SELECT COUNT(*) FROM " + counted + " WHERE rank IS NULL") > 0) {
            engine.table(name, select);
            return 1;
        }
        // each rank's slice: the rows of the ranks before it, in whole slices
        engine.table("cp_slices", "SELECT rank, CAST(FLOOR((SUM(n) OVER (ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - n)"
                + " / CAST(" + rowsPerSlice + " AS DOUBLE)) AS BIGINT) AS slice FROM (SELECT rank, COUNT(*) AS n FROM " + counted + " GROUP BY rank) r");
        List<String> parts = new java.util.ArrayList<>();
        for (long slice = -1; (slice = engine.count("SELECT COALESCE(MIN(slice), -1) FROM cp_slices WHERE slice > " + slice)) >= 0; ) {
            String of = " FROM cp_slices WHERE slice = " + slice;
            // ranks are whole numbers; literal bounds let the engine skip the other ranks' row groups
            String ranks = "rank BETWEEN " + engine.count("SELECT MIN(rank)" + of) + " AND " + engine.count("SELECT MAX(rank)" + of);
            String sliced = select;
            for (String table : filtered) {
                sliced = sliced.replaceAll("(?<![\\w.])" + table + "(?![\\w])",
                        java.util.regex.Matcher.quoteReplacement("(SELECT * FROM " + table + " WHERE " + ranks + ")"));
            }
            String part = name + "_slice_" + parts.size();
            engine.table(part, sliced);
            parts.add(part);
        }
        engine.drop("cp_slices");
        engine.table(name, String.join(" UNION ALL ", parts.stream().map(p -> "SELECT * FROM " + p).toList()));
        for (String part : parts) {
            engine.drop(part);
        }
        return parts.size();
    }

    /**
     * Runs every step over the table {@code events}, leaving {@code cp_events}, {@code cp_nodes},
     * {@code cp_cross}, {@code cp_back} and {@code cp_segments} in the engine (the intermediate
     * tables are dropped as they are passed). The key nodes are settled in one ordered sweep
     * ({@link CriticalPathSweep}); where the edges cannot be ordered in time, in rounds, which throw
     * when they do not settle (a graph with a cycle, which only device work starting before its own
     * launch can make).
     */
    public static Rounds build(Engine engine) throws IOException {
        // One statement a step, whatever the job: Spark's memory is its executors', not one process's, and Spark 4.2
        // fails the UNION ALL of the slices' tables (a NoSuchElementException, "key not found: rank#N", in
        // UnionBase.rewriteConstraints); DuckDbAnalyses makes cp_nodes in slices (eventsPerSlice()).
        return build(engine, true, Long.MAX_VALUE);
    }

    /** {@link #EVENTS_PER_SLICE}, or what {@link #SLICE_PROPERTY} says. */
    static long eventsPerSlice() {
        return Long.getLong(SLICE_PROPERTY, EVENTS_PER_SLICE);
    }

    /**
     * As {@link #build(Engine)}; with {@code sweep} false the key nodes are settled in rounds whatever the graph, and
     * {@code cp_nodes} is made {@code eventsPerSlice} events ({@link #EVENTS_PER_SLICE}) at a time.
     */
    static Rounds build(Engine engine, boolean sweep, long eventsPerSlice) throws IOException {
        // every row of cp_events is its own rank's (a rank's numbering, its device work joined to its own launches); in one
        // statement its numbering ran out of the launcher's 616 MiB at 64 ranks x 1M events
        int eventSlices = perRank(engine, "cp_events", step("cp_events"), eventsPerSlice, "events");
        // the collectives analysis' own table: its matching of one collective across ranks is the one rule
        engine.table("cp_collectives", Analyses.sql(COLLECTIVES));
        engine.table("cp_arrivals", step("cp_arrivals"));
        engine.drop("cp_collectives");
        int nodeSlices = perRank(engine, "cp_nodes", step("cp_nodes"), eventsPerSlice, "cp_events", "cp_arrivals", "events");
        engine.table("cp_cross", step("cp_cross"));
        engine.drop("cp_arrivals");
        // The steps over every node after cp_nodes are made in the same slices of ranks (two nodes an event): each row
        // depends on its own rank's nodes and the edges into them (cp_cross' rank is the edge's target's). What an edge
        // reads of its source's rank (a collective's source is on another rank) is a table made whole before: the key
        // nodes (cp_ends), the settled ones (cp_swept), every node's longest path (cp_dist_all).
        long nodesPerSlice = eventsPerSlice > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * eventsPerSlice;
        engine.table("cp_ends", step("cp_ends"));
        perRank(engine, "cp_key_nodes", step("cp_key_nodes"), nodesPerSlice, "cp_nodes", "cp_ends");
        // The nodes edges between chains leave or enter, settled in one ordered pass (CriticalPathSweep); where the
        // edges cannot be ordered in time, in rounds as before (the same longest paths, or the cycle's error).
        String settled = null;
        if (sweep) {
            engine.sweep("cp_swept", step("cp_sweep"));
            if (engine.count("SELECT COUNT(*) FROM cp_swept WHERE node < 0") == 0) {
                settled = "cp_swept";
            } else {
                engine.drop("cp_swept");
            }
        }
        boolean swept = settled != null;
        int round = 0;
        if (!swept) {
            int[] rounds = new int[1];
            settled = rounds(engine, rounds);
            round = rounds[0];
        }
        engine.drop("cp_key_nodes");
        engine.drop("cp_ends");
        // every node's longest path, from the settled ones of the edges' sources: one round over the whole graph
        String keys = settled;
        String dist = "cp_dist_all";
        perRank(engine, dist, step("cp_round", "cp_round_nodes", "(SELECT rank, node, side, c1, c2, seg, pos, wcum, 0 - wcum AS fixed_lift"
                + " FROM cp_nodes)", "cp_round_cross", "cp_cross", "cp_dist_prev", keys), nodesPerSlice, "cp_nodes", "cp_cross");
        engine.drop(keys);
        perRank(engine, "cp_back", step("cp_back", "cp_dist_prev", dist), nodesPerSlice, "cp_nodes", "cp_cross");
        perRank(engine, "cp_walk_0", step("cp_walk_start", "cp_dist_prev", dist), nodesPerSlice, "cp_nodes", dist);
        engine.drop(dist);
        // The walk back by pointer doubling: moves of 1, 2, 4, ... segments (cp_jump_K moves 2^K), then the walk
        // filled in from the longest move down; about 2 log2(L) queries for a path of L segments, not L.
        engine.table("cp_jump_0", step("cp_jump_start", "cp_walk_prev", "cp_walk_0"));
        int jumps = 1;
        while (engine.count("SELECT COUNT(*) FROM cp_jump_" + (jumps - 1)) > 0) {
            if (jumps > 62) {
                throw new IOException("the critical path's walk back does not end (a cycle in the graph)");
            }
            engine.table("cp_jump_" + jumps, step("cp_jump", "cp_jump_prev", "cp_jump_" + (jumps - 1)));
            jumps++;
        }
        // cp_jump_(jumps - 1) is empty; walks are shorter than 2^(jumps - 1) moves
        String walk = "cp_walk_0";
        engine.drop("cp_jump_" + (jumps - 1));
        for (int k = jumps - 2; k >= 0; k--) {
            String next = "cp_walk_" + (jumps - 1 - k);
            engine.table(next, step("cp_walk_expand", "cp_walk_prev", walk, "cp_jump_prev", "cp_jump_" + k));
            engine.drop(walk);
            engine.drop("cp_jump_" + k); // the moves of this length are filled in; no later step reads them
            walk = next;
        }
        // as many walk steps as walking back one segment at a time took: the longest walk's moves, plus the last look
        int walkSteps = (int) engine.count("SELECT COALESCE(MAX(step), 0) + 1 FROM " + walk);
        // The edges of each rank's path, in the same slices of ranks: every row of cp_segments is one path's (the walk's
        // rank), so a slice reads only its paths' walk; the chains a path runs through may be any rank's (a collective's
        // edge), so cp_nodes, cp_back and cp_events are read whole, and each path's own chains are what a slice's
        // windows hold.
        int segmentSlices = perRank(engine, "cp_segments", step("cp_segments", "cp_walk_prev", walk), nodesPerSlice, "cp_nodes",
                List.of(walk));
        engine.drop(walk);
        return new Rounds(round, walkSteps, swept, eventSlices, nodeSlices, segmentSlices);
    }
}
