-- cp_jump_start: step 14 of critical_path (CriticalPath): one move of the walk back, for every node a walk can stand on.
-- A walk (cp_walk_start) stands on its path's last node and then only on sources of edges between
-- chains; from such a node it moves to the source of the edge that entered the node's segment
-- (cp_back's pred, on rank pred_rank), or stops where the segment started the path (no row).
-- Columns: at_rank, node, to_rank, to_node, hops (1: one move).
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_back and cp_walk_prev (the walks' first rows).
WITH stands AS (
  SELECT pred_rank AS at_rank, pred AS node FROM cp_back WHERE pred IS NOT NULL
  UNION
  SELECT at_rank, node FROM cp_walk_prev
)
SELECT b.rank AS at_rank, b.node, b.pred_rank AS to_rank, b.pred AS to_node, CAST(1 AS BIGINT) AS hops
FROM cp_back b
JOIN stands s ON s.at_rank = b.rank AND s.node = b.node
WHERE b.pred IS NOT NULL
