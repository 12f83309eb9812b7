-- cp_round: step 11 of critical_path (CriticalPath): one relaxation of the longest path to every node of cp_round_nodes.
-- A node's entry value is the longest path into it over an edge from another chain (cp_round_cross;
-- the previous round's dist of the edge's source, cp_dist_prev, plus its weight), or 0 (a path may
-- start anywhere, as HTA's). Along a chain segment the longest path to node k is then wcum(k) + the
-- running maximum of entry(j) - wcum(j) over j <= k: one window function, however long the chain.
-- The nodes no edge enters, and the settled windows, give that maximum only fixed_lift. Each round
-- carries the longest paths over one more edge between chains; the graph is acyclic, so they stop
-- changing after as many rounds as the most such edges on a longest path, plus one. A collective's
-- edge comes from another rank (src_rank), so a rank's path may run through another rank's work.
-- CriticalPath runs it once over every node of cp_nodes (on DuckDB a slice of ranks at a time; fixed_lift -wcum, which changes nothing)
-- and cp_cross, from the longest paths of the key nodes (every edge's source is one: cp_swept, which
-- CriticalPathSweep makes in one pass in time order), which is final; and where that pass finds no
-- order in time (an edge back in time), first in rounds, round after round inside a window of time,
-- over cp_window_keys and cp_window_cross (fixed_lift from cp_window_keys), until nothing changes.
-- Columns: rank, node, side, c1, c2, seg, pos, wcum, dist (ns).
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_round_nodes, cp_round_cross and cp_dist_prev.
WITH inbound AS (
  SELECT c.rank, c.dst AS node, MAX(d.dist + c.weight) AS best
  FROM cp_round_cross c
  JOIN cp_dist_prev d ON d.rank = c.src_rank AND d.node = c.src
  GROUP BY c.rank, c.dst
),
lifted AS (
  SELECT k.rank, k.node, k.side, k.c1, k.c2, k.seg, k.pos, k.wcum,
         GREATEST(k.fixed_lift, GREATEST(COALESCE(i.best, 0), 0) - k.wcum) AS lift
  FROM cp_round_nodes k
  LEFT JOIN inbound i ON i.rank = k.rank AND i.node = k.node
)
SELECT rank, node, side, c1, c2, seg, pos, wcum,
       CAST(wcum + MAX(lift) OVER (PARTITION BY rank, side, c1, c2, seg ORDER BY pos
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) AS dist
FROM lifted
