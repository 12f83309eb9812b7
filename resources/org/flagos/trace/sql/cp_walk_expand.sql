-- cp_walk_expand: step 16 of critical_path (CriticalPath), once per length of move, longest first: the walks back, filled in.
-- The walk so far (cp_walk_prev) holds each path's nodes at the steps that are multiples of twice
-- this move's length; each of them that has a move of this length (cp_jump_prev) adds the node it
-- lands on, that many steps further back. After the moves of every length down to one step, the
-- walk holds each path's segment ends at every step, 0 (the path's last node) to its start, exactly
-- as walking back one segment at a time would.
-- Columns: rank, at_rank, node, step.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_walk_prev and cp_jump_prev.
SELECT rank, at_rank, node, step FROM cp_walk_prev
UNION ALL
SELECT w.rank, j.to_rank AS at_rank, j.to_node AS node, w.step + j.hops AS step
FROM cp_walk_prev w
JOIN cp_jump_prev j ON j.at_rank = w.at_rank AND j.node = w.node
