-- cp_walk_step: step 8 of critical_path (CriticalPath), repeated until no rank moves: one more segment of each path, walking back.
-- The rows of the last step (the segments' last nodes) move to the source of the edge that entered
-- their segment (on another rank, at_rank, for a collective's edge); a path whose segment started the path stops.
-- Columns: rank, at_rank, node, step.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_back and cp_walk_prev (the walk so far).
SELECT rank, at_rank, node, step FROM cp_walk_prev
UNION ALL
SELECT w.rank, b.pred_rank AS at_rank, b.pred AS node, w.step + 1 AS step
FROM cp_walk_prev w
JOIN cp_back b ON b.rank = w.at_rank AND b.node = w.node
WHERE w.step = (SELECT MAX(step) FROM cp_walk_prev) AND b.pred IS NOT NULL
