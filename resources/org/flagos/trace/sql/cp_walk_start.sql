-- cp_walk_start: step 13 of critical_path (CriticalPath): each rank's critical path ends at the node with the longest path to it (the earliest on a tie).
-- The path may run through other ranks (a collective's edge); at_rank is the rank whose node a walk row is.
-- Columns: rank, at_rank, node, step (0: the last segment of the path).
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_nodes and cp_dist_prev (every node's longest path, cp_round).
SELECT rank, rank AS at_rank, node, CAST(0 AS BIGINT) AS step
FROM (
  SELECT d.rank, d.node,
         ROW_NUMBER() OVER (PARTITION BY d.rank ORDER BY d.dist DESC, n.ts_ns, d.node) AS r
  FROM cp_dist_prev d
  JOIN cp_nodes n ON n.rank = d.rank AND n.node = d.node
) t
WHERE r = 1
