-- cp_keys: step 5 of critical_path (CriticalPath): the nodes a relaxation round needs, each with what its chain segment gives it.
-- A round's longest path to node k of a chain segment is wcum(k) + the running maximum of
-- entry(j) - wcum(j) over j <= k (cp_round). A node no edge from another chain enters has entry 0,
-- so its term is -wcum(j), whatever the round: the running maximum of those, floor(k), is computed
-- here once. Only the nodes an edge between chains leaves (a source, whose longest path the next
-- round reads) or enters (whose entry changes from round to round) are kept, so a round
-- (cp_key_round) reads these and the edges, not the whole graph.
-- Columns: rank, node, side, c1, c2, seg, pos, wcum, floor_lift.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the tables cp_nodes and cp_cross.
WITH ends AS (
  SELECT src_rank AS rank, src AS node FROM cp_cross
  UNION
  SELECT rank, dst AS node FROM cp_cross
),
floored AS (
  SELECT rank, node, side, c1, c2, seg, pos, wcum,
         MAX(0 - wcum) OVER (PARTITION BY rank, side, c1, c2, seg ORDER BY pos
                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS floor_lift
  FROM cp_nodes
)
SELECT f.rank, f.node, f.side, f.c1, f.c2, f.seg, f.pos, f.wcum, f.floor_lift
FROM floored f
JOIN ends e ON e.rank = f.rank AND e.node = f.node
