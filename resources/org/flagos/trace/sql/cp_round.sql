-- cp_round: step 9 of critical_path (CriticalPath), once, after the windows: the longest path to every node of the graph, from the settled ones (cp_dist_prev) of the edges' sources.
-- A node's entry value is the longest path into it over an edge from another chain (the previous
-- round's dist of the edge's source plus its weight), or 0 (a path may start anywhere, as HTA's).
-- Along a chain segment the longest path to node k is then wcum(k) + the running maximum of
-- entry(j) - wcum(j) over j <= k: one window, however long the chain. Every edge's source is a
-- node of cp_keys, whose longest paths the windows' rounds settled, so this one pass is final. A
-- collective's edge comes from another rank (src_rank), so a rank's path may run through another rank's work.
-- Columns: rank, node, dist (ns).
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_nodes, cp_cross and cp_dist_prev (the settled nodes of cp_keys).
WITH inbound AS (
  SELECT c.rank, c.dst AS node, MAX(d.dist + c.weight) AS best
  FROM cp_cross c
  JOIN cp_dist_prev d ON d.rank = c.src_rank AND d.node = c.src
  GROUP BY c.rank, c.dst
),
lifted AS (
  SELECT n.rank, n.node, n.side, n.c1, n.c2, n.seg, n.pos, n.wcum,
         GREATEST(COALESCE(i.best, 0), 0) - n.wcum AS lift
  FROM cp_nodes n
  LEFT JOIN inbound i ON i.rank = n.rank AND i.node = n.node
)
SELECT rank, node,
       CAST(wcum + MAX(lift) OVER (PARTITION BY rank, side, c1, c2, seg ORDER BY pos
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) AS dist
FROM lifted
