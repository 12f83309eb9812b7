-- cp_window_round: step 8 of critical_path (CriticalPath), repeated until nothing changes in the window: one relaxation of the longest path to every node of cp_window_keys.
-- A node's entry value is the longest path into it over an edge from another chain (the previous
-- round's dist of the edge's source plus its weight), or 0 (a path may start anywhere, as HTA's).
-- Along a chain segment the longest path to node k is then wcum(k) + the running maximum of
-- entry(j) - wcum(j) over j <= k: one window function, however long the chain. The nodes no edge
-- enters, and the settled windows, give that maximum only fixed_lift (cp_window_keys), so the
-- window function runs over this window's nodes of cp_keys alone and gives what a round over the
-- whole graph (cp_round) gives there. Each round carries the longest paths over one more edge
-- between chains; the graph is acyclic, so they stop changing after as many rounds as the most
-- such edges on a longest path inside the window, plus one. A collective's edge comes from another
-- rank (src_rank), so a rank's path may run through another rank's work.
-- Columns: rank, node, side, c1, c2, seg, pos, wcum, dist (ns).
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_window_keys, cp_window_cross and cp_dist_prev (the previous round).
WITH inbound AS (
  SELECT c.rank, c.dst AS node, MAX(d.dist + c.weight) AS best
  FROM cp_window_cross c
  JOIN cp_dist_prev d ON d.rank = c.src_rank AND d.node = c.src
  GROUP BY c.rank, c.dst
),
lifted AS (
  SELECT k.rank, k.node, k.side, k.c1, k.c2, k.seg, k.pos, k.wcum,
         GREATEST(k.fixed_lift, GREATEST(COALESCE(i.best, 0), 0) - k.wcum) AS lift
  FROM cp_window_keys k
  LEFT JOIN inbound i ON i.rank = k.rank AND i.node = k.node
)
SELECT rank, node, side, c1, c2, seg, pos, wcum,
       CAST(wcum + MAX(lift) OVER (PARTITION BY rank, side, c1, c2, seg ORDER BY pos
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) AS dist
FROM lifted
