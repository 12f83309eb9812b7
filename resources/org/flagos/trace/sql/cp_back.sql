-- cp_back: step 12 of critical_path (CriticalPath): for every node, where its longest path entered its chain.
-- With the final dist: a node's entry point is the latest node j <= k of its chain segment where the
-- running maximum of entry(j) - wcum(j) was reached (the latest, so ties keep the path on the
-- chain); pred is the source of the cross-chain edge into j that gave entry(j) (on a tie the
-- lowest rank and node), on rank pred_rank (another rank for a collective's edge), or NULL when the
-- path starts at j (entry 0); pred_ev the event the edge is charged to.
-- Columns: rank, node, side, c1, c2, seg, pos, entry_pos, pred_rank, pred, pred_ev, pred_weight, pred_type.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_nodes, cp_cross and cp_dist_prev (every node's longest path, cp_round).
WITH cand AS (
  SELECT c.rank, c.dst AS node, c.src_rank, c.src, c.weight, c.type, c.ev, d.dist + c.weight AS via
  FROM cp_cross c
  JOIN cp_dist_prev d ON d.rank = c.src_rank AND d.node = c.src
),
best AS (
  SELECT rank, node, src_rank, src, weight, type, ev, via,
         ROW_NUMBER() OVER (PARTITION BY rank, node ORDER BY via DESC, src_rank, src, type) AS r
  FROM cand
),
lifted AS (
  SELECT n.rank, n.node, n.side, n.c1, n.c2, n.seg, n.pos, n.wcum,
         CASE WHEN b.via > 0 THEN b.src_rank END AS pred_rank,
         CASE WHEN b.via > 0 THEN b.src END AS pred,
         CASE WHEN b.via > 0 THEN b.ev END AS pred_ev,
         CASE WHEN b.via > 0 THEN b.weight END AS pred_weight,
         CASE WHEN b.via > 0 THEN b.type END AS pred_type,
         CASE WHEN b.via > 0 THEN b.via ELSE 0 END - n.wcum AS lift
  FROM cp_nodes n
  LEFT JOIN best b ON b.rank = n.rank AND b.node = n.node AND b.r = 1
),
running AS (
  SELECT rank, node, side, c1, c2, seg, pos, lift,
         MAX(lift) OVER (PARTITION BY rank, side, c1, c2, seg ORDER BY pos
                         ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS runmax
  FROM lifted
),
entries AS (
  SELECT rank, node, side, c1, c2, seg, pos,
         MAX(CASE WHEN lift = runmax THEN pos END) OVER (PARTITION BY rank, side, c1, c2, seg ORDER BY pos
                                                         ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS entry_pos
  FROM running
)
SELECT e.rank, e.node, e.side, e.c1, e.c2, e.seg, e.pos, e.entry_pos, s.pred_rank, s.pred, s.pred_ev, s.pred_weight, s.pred_type
FROM entries e
JOIN lifted s ON s.rank = e.rank AND s.side = e.side AND s.c1 = e.c1 AND s.c2 = e.c2 AND s.pos = e.entry_pos
