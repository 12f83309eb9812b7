-- cp_key_round: step 6 of critical_path (CriticalPath), repeated until nothing changes: one relaxation of the longest path to every node of cp_keys.
-- A node's entry value is the longest path into it over an edge from another chain (the previous
-- round's dist of the edge's source plus its weight), or 0 (a path may start anywhere, as HTA's).
-- Along a chain segment the longest path to node k is then wcum(k) + the running maximum of
-- entry(j) - wcum(j) over j <= k: one window, however long the chain. The nodes no edge enters
-- give that maximum only their floor_lift (cp_keys), so the window runs over cp_keys alone and
-- gives exactly what cp_round gives over the whole graph. Each round carries the
-- longest paths over one more edge between chains; the graph is acyclic, so they stop changing
-- after as many rounds as the most cross-chain edges on a longest path, plus one. A collective's
-- edge comes from another rank (src_rank), so a rank's path may run through another rank's work.
-- Columns: rank, node, dist (ns).
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_keys, cp_cross and cp_dist_prev (the previous round).
WITH inbound AS (
  SELECT c.rank, c.dst AS node, MAX(d.dist + c.weight) AS best
  FROM cp_cross c
  JOIN cp_dist_prev d ON d.rank = c.src_rank AND d.node = c.src
  GROUP BY c.rank, c.dst
),
lifted AS (
  SELECT k.rank, k.node, k.side, k.c1, k.c2, k.seg, k.pos, k.wcum,
         GREATEST(GREATEST(COALESCE(i.best, 0), 0) - k.wcum, k.floor_lift) AS lift
  FROM cp_keys k
  LEFT JOIN inbound i ON i.rank = k.rank AND i.node = k.node
)
SELECT rank, node,
       CAST(wcum + MAX(lift) OVER (PARTITION BY rank, side, c1, c2, seg ORDER BY pos
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) AS dist
FROM lifted
