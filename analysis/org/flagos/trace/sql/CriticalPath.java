package org.flagos.trace.sql;

import java.io.IOException;
import java.util.List;

/**
 * Holistic Trace Analysis's critical path, per rank, as a fixed sequence of portable SQL steps
 * (resource files {@code cp_*.sql} beside {@link Analyses}) that any {@link Engine} runs: DuckDB in
 * the CLI, Spark in the spark jar. The longest path through a graph is not one query in either
 * engine (a recursive CTE cannot take the maximum over a node's predecessors; Spark before 4.1 has
 * none at all), so it is computed in rounds: the graph's chains (host threads, device streams)
 * carry the longest paths along themselves in one window function (cp_round.sql), and each
 * round carries them over one more edge between chains (launches, syncs, and a collective's edges
 * between ranks: the last rank to start it leads to the end of it on the others); the rounds stop
 * when nothing changes. A round reads only the nodes those edges leave or enter, one window of time
 * at a time (earlier windows are final), so its cost is a window's nodes, not the whole graph. The
 * walk back from each rank's farthest node is pointer doubling: about 2 log2 of the path's segments
 * queries. Nothing is read into Java but counts. The result is the
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
    static final List<String> STEPS = List.of("cp_events", "cp_arrivals", "cp_nodes", "cp_cross", "cp_keys", "cp_window_keys", "cp_window_cross",
            "cp_round",
            "cp_back", "cp_walk_start", "cp_jump_start", "cp_jump", "cp_walk_expand", "cp_segments");

    /**
     * The windows of time the rounds settle one after another: the square root of (the nodes of cp_keys / this),
     * so that the rounds' work on a window's nodes and the copies of the settled ones weigh about the same.
     */
    static final long NODES_PER_WINDOW_SQUARED = 100;

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
    }

    /** How much work the last {@link #build} took: relaxation rounds and walk steps. */
    public record Rounds(int relaxations, int walkSteps) {
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
     * Runs every step over the table {@code events}, leaving {@code cp_events}, {@code cp_nodes},
     * {@code cp_cross}, {@code cp_back} and {@code cp_segments} in the engine (the intermediate
     * rounds are dropped as they are passed). Throws when the rounds do not settle (a graph with a
     * cycle, which only device work starting before its own launch can make).
     */
    public static Rounds build(Engine engine) throws IOException {
        engine.table("cp_events", step("cp_events"));
        // the collectives analysis' own table: its matching of one collective across ranks is the one rule
        engine.table("cp_collectives", Analyses.sql(COLLECTIVES));
        engine.table("cp_arrivals", step("cp_arrivals"));
        engine.drop("cp_collectives");
        engine.table("cp_nodes", step("cp_nodes"));
        engine.table("cp_cross", step("cp_cross"));
        engine.drop("cp_arrivals");
        // The rounds run over the nodes edges between chains leave or enter (cp_keys), not the whole graph, and one
        // window of time at a time, earliest first: a round's cost is the window's nodes, and the rounds of all
        // windows together are about those a round over the whole graph would need (cp_round.sql says why).
        long ends = engine.count("SELECT COUNT(*) FROM (SELECT src_rank, src FROM cp_cross UNION SELECT rank, dst FROM cp_cross) k");
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
        // every node's longest path, from the settled ones of the edges' sources: one round over the whole graph
        String keys = settled;
        String dist = "cp_dist_all";
        engine.table(dist, step("cp_round", "cp_round_nodes", "(SELECT rank, node, side, c1, c2, seg, pos, wcum, 0 - wcum AS fixed_lift"
                + " FROM cp_nodes)", "cp_round_cross", "cp_cross", "cp_dist_prev", keys));
        engine.drop(keys);
        engine.table("cp_back", step("cp_back", "cp_dist_prev", dist));
        engine.table("cp_walk_0", step("cp_walk_start", "cp_dist_prev", dist));
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
        for (int k = jumps - 2; k >= 0; k--) {
            String next = "cp_walk_" + (jumps - 1 - k);
            engine.table(next, step("cp_walk_expand", "cp_walk_prev", walk, "cp_jump_prev", "cp_jump_" + k));
            engine.drop(walk);
            walk = next;
        }
        for (int k = 0; k < jumps; k++) {
            engine.drop("cp_jump_" + k);
        }
        // as many walk steps as walking back one segment at a time took: the longest walk's moves, plus the last look
        int walkSteps = (int) engine.count("SELECT COALESCE(MAX(step), 0) + 1 FROM " + walk);
        engine.table("cp_segments", step("cp_segments", "cp_walk_prev", walk));
        engine.drop(walk);
        return new Rounds(round, walkSteps);
    }
}
