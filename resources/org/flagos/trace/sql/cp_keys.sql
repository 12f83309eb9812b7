-- cp_keys: step 8 of critical_path (CriticalPath) where the sweep (cp_sweep) finds no order in time, for the rounds: the nodes a relaxation round needs, each with what its chain segment gives it.
-- A round's longest path to node k of a chain segment is wcum(k) + the running maximum of
-- entry(j) - wcum(j) over j <= k (cp_round). A node no edge from another chain enters has entry 0,
-- so its term is -wcum(j), whatever the round: the running maximum of those, floor(k), is computed
-- once (cp_key_nodes' floor_lift). Only the nodes an edge between chains leaves (a source, whose longest path the next
-- round reads) or enters (whose entry changes from round to round) are kept, so a round
-- reads these and the edges, not the whole graph. The rounds settle the nodes a window of time at a
-- time, earliest first (cp_window_keys): w is the node's window, one of cp_window_count.n equal spans
-- of time, raised along a segment to its earlier nodes' (a segment's windows never go back).
-- Columns: rank, node, side, c1, c2, seg, pos, wcum, floor_lift, w.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the tables cp_key_nodes and cp_window_count.
WITH kept AS (
  SELECT rank, node, side, c1, c2, seg, pos, wcum, floor_lift, ts_ns FROM cp_key_nodes
),
span AS (
  SELECT MIN(ts_ns) AS t0, MAX(ts_ns) - MIN(ts_ns) + 1 AS len FROM kept
),
windowed AS (
  SELECT k.rank, k.node, k.side, k.c1, k.c2, k.seg, k.pos, k.wcum, k.floor_lift,
         CAST(FLOOR(CAST(k.ts_ns - s.t0 AS DOUBLE) * n.n / s.len) AS BIGINT) AS w0
  FROM kept k CROSS JOIN span s CROSS JOIN cp_window_count n
)
SELECT rank, node, side, c1, c2, seg, pos, wcum, floor_lift,
       MAX(w0) OVER (PARTITION BY rank, side, c1, c2, seg ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS w
FROM windowed
