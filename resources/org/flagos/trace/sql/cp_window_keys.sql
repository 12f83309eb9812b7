-- cp_window_keys: step 9 of critical_path (CriticalPath), in the rounds (where cp_sweep finds no order), once per window of time, earliest first: the window's nodes of cp_keys, with what settled windows give them.
-- Every edge between chains goes from a node of a window to one of the same or a later window
-- (CriticalPath checks it, else there is one window), and a segment's windows never go back, so the
-- longest paths to the earlier windows' nodes (cp_settled) are final. They give a node of this
-- window its entry over edges from those nodes, and each segment the running maximum its last
-- settled node reached (dist - wcum, carried); fixed_lift is the larger of those terms and floor_lift.
-- Columns: rank, node, side, c1, c2, seg, pos, wcum, fixed_lift.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_keys, cp_cross, cp_settled and cp_window (the window, w).
WITH here AS (
  SELECT k.rank, k.node, k.side, k.c1, k.c2, k.seg, k.pos, k.wcum, k.floor_lift
  FROM cp_keys k
  JOIN cp_window cw ON cw.w = k.w
),
settled_in AS (
  SELECT c.rank, c.dst AS node, MAX(s.dist + c.weight) AS best
  FROM cp_cross c
  JOIN here h ON h.rank = c.rank AND h.node = c.dst
  JOIN cp_settled s ON s.rank = c.src_rank AND s.node = c.src
  GROUP BY c.rank, c.dst
),
carried AS (
  SELECT rank, side, c1, c2, seg, dist - wcum AS carry
  FROM (
    SELECT rank, side, c1, c2, seg, dist, wcum,
           ROW_NUMBER() OVER (PARTITION BY rank, side, c1, c2, seg ORDER BY pos DESC) AS r
    FROM cp_settled
  ) t
  WHERE r = 1
)
SELECT h.rank, h.node, h.side, h.c1, h.c2, h.seg, h.pos, h.wcum,
       GREATEST(h.floor_lift, GREATEST(COALESCE(b.best, 0), 0) - h.wcum, COALESCE(g.carry, h.floor_lift)) AS fixed_lift
FROM here h
LEFT JOIN settled_in b ON b.rank = h.rank AND b.node = h.node
LEFT JOIN carried g ON g.rank = h.rank AND g.side = h.side AND g.c1 = h.c1 AND g.c2 = h.c2 AND g.seg = h.seg
