-- cp_segments: step 17 of critical_path (CriticalPath): the edges of each rank's critical path, in order.
-- A walk row (a segment's last node, step s counted from the path's end) covers the chain edges into
-- the nodes after its entry point up to it, found in one pass per chain (a running count of the
-- segments open at each position, so its cost grows with the chain, not with chain times segments),
-- and is preceded by the cross-chain edge that entered it, if any. A rank's path may run through
-- other ranks' chains (a collective's edge): rank is the path's rank, on_rank the rank whose thread
-- or stream holds the edge, and each path's walk over a chain is counted apart from other paths'. type: cpu (time in a host event,
-- charged to the innermost open one), dependency (between top-level host events, 0 ns), sync_call
-- (the end of a call that blocks on the device, 0 ns), kernel (device work), kernel_gap (between two
-- items of a stream), launch (launch delay), sync (device work a blocking call waited for, 0 ns),
-- collective (from the last rank's start of a collective to this rank's end of it: communication).
-- category: cpu, computation, communication, memory, launch_delay, kernel_gap, waiting (0 ns edges).
-- Columns: rank, seq, type, category, name, pid, tid, device, stream, start_ns, end_ns, weight_ns, on_rank.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_events, cp_nodes, cp_back and cp_walk_prev (the whole walk).
WITH walk AS (
  SELECT w.rank, w.at_rank, w.step, b.side, b.c1, b.c2, b.pos, b.entry_pos, b.pred_rank, b.pred, b.pred_ev, b.pred_weight,
         b.pred_type
  FROM cp_walk_prev w
  JOIN cp_back b ON b.rank = w.at_rank AND b.node = w.node
),
walked_chains AS (
  SELECT DISTINCT rank, at_rank, side, c1, c2 FROM walk
),
chain_nodes AS (
  SELECT c.rank, c.at_rank, n.side, n.c1, n.c2, n.pos, n.ts_ns, n.in_type, n.in_weight, n.in_ev,
         LAG(n.ts_ns) OVER (PARTITION BY c.rank, c.at_rank, n.side, n.c1, n.c2 ORDER BY n.pos) AS prev_ts
  FROM cp_nodes n
  JOIN walked_chains c ON c.at_rank = n.rank AND c.side = n.side AND c.c1 = n.c1 AND c.c2 = n.c2
),
marks AS (
  SELECT rank, at_rank, side, c1, c2, pos, 0 AS kind, ts_ns, prev_ts, in_type, in_weight, in_ev, 0 AS delta,
         CAST(NULL AS BIGINT) AS opened
  FROM chain_nodes
  UNION ALL
  SELECT rank, at_rank, side, c1, c2, entry_pos AS pos, 1 AS kind, CAST(NULL AS BIGINT) AS ts_ns, CAST(NULL AS BIGINT) AS prev_ts,
         NULL AS in_type, CAST(NULL AS BIGINT) AS in_weight, CAST(NULL AS BIGINT) AS in_ev, 1 AS delta,
         entry_pos AS opened
  FROM walk
  UNION ALL
  SELECT rank, at_rank, side, c1, c2, pos, 2 AS kind, CAST(NULL AS BIGINT) AS ts_ns, CAST(NULL AS BIGINT) AS prev_ts,
         NULL AS in_type, CAST(NULL AS BIGINT) AS in_weight, CAST(NULL AS BIGINT) AS in_ev, -1 AS delta,
         CAST(NULL AS BIGINT) AS opened
  FROM walk
),
covered AS (
  SELECT rank, at_rank, side, c1, c2, pos, kind, ts_ns, prev_ts, in_type, in_weight, in_ev,
         SUM(delta) OVER (PARTITION BY rank, at_rank, side, c1, c2 ORDER BY pos, kind
                          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS open_now,
         MAX(opened) OVER (PARTITION BY rank, at_rank, side, c1, c2 ORDER BY pos, kind
                           ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS entry_pos
  FROM marks
),
edges AS (
  SELECT c.rank, c.at_rank, w.step, 1 AS part, c.pos, c.in_type AS type, c.in_ev AS ev, c.side, c.c1, c.c2,
         c.prev_ts AS start_ns, c.ts_ns AS end_ns, c.in_weight AS weight_ns
  FROM covered c
  JOIN walk w ON w.rank = c.rank AND w.at_rank = c.at_rank AND w.side = c.side AND w.c1 = c.c1 AND w.c2 = c.c2
             AND w.entry_pos = c.entry_pos
  WHERE c.kind = 0 AND c.open_now = 1 AND c.pos > c.entry_pos AND c.in_type IS NOT NULL
  UNION ALL
  SELECT w.rank, w.at_rank, w.step, 0 AS part, w.entry_pos AS pos, w.pred_type AS type, w.pred_ev AS ev, w.side, w.c1, w.c2,
         p.ts_ns AS start_ns, e.ts_ns AS end_ns, w.pred_weight AS weight_ns
  FROM walk w
  JOIN cp_nodes p ON p.rank = w.pred_rank AND p.node = w.pred
  JOIN cp_nodes e ON e.rank = w.at_rank AND e.side = w.side AND e.c1 = w.c1 AND e.c2 = w.c2 AND e.pos = w.entry_pos
  WHERE w.pred IS NOT NULL
)
SELECT g.rank,
       CAST(ROW_NUMBER() OVER (PARTITION BY g.rank ORDER BY g.step DESC, g.part, g.pos) AS BIGINT) AS seq,
       g.type,
       CASE WHEN g.type = 'cpu' THEN 'cpu'
            WHEN g.type IN ('kernel', 'collective') THEN v.kind
            WHEN g.type = 'kernel_gap' THEN 'kernel_gap'
            WHEN g.type = 'launch' THEN 'launch_delay'
            ELSE 'waiting' END AS category,
       v.name,
       CASE WHEN g.side = 'host' THEN g.c1 END AS pid,
       CASE WHEN g.side = 'host' THEN g.c2 END AS tid,
       CASE WHEN g.side = 'device' THEN CAST(g.c1 AS INTEGER) END AS device,
       CASE WHEN g.side = 'device' THEN g.c2 END AS stream,
       g.start_ns, g.end_ns, g.weight_ns, g.at_rank AS on_rank
FROM edges g
LEFT JOIN cp_events v ON v.rank = g.at_rank AND v.ev = g.ev
