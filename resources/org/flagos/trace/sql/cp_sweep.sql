-- cp_sweep: step 7 of critical_path (CriticalPath): the key nodes (cp_key_nodes), for CriticalPathSweep.
-- One row per key node and edge into it (src -1 and weight 0 for a node no edge enters), which the
-- sweep reads ordered by at_ns, rank, side, c1, c2, pos. at_ns is the latest time of the chain's key nodes up to
-- this one (ns), so the order keeps each chain's, and an edge forward in time comes after its source. The
-- other nodes matter to the longest paths only through -wcum: floor_lift (cp_key_nodes) is the running maximum of
-- it over the segment's nodes up to this one. outs: the edges
-- leaving the node (the sweep keeps its longest path until it has read them all). side: 1 host, 0 device.
-- Columns: at_ns, rank, node, side, c1, c2, seg, pos, wcum, floor_lift, outs, src_rank, src, weight (all BIGINT).
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the tables cp_key_nodes and cp_cross.
WITH outs AS (
  SELECT src_rank AS rank, src AS node, COUNT(*) AS outs FROM cp_cross GROUP BY src_rank, src
)
SELECT CAST(k.at_ns AS BIGINT) AS at_ns, CAST(k.rank AS BIGINT) AS rank, CAST(k.node AS BIGINT) AS node,
       CAST(CASE WHEN k.side = 'host' THEN 1 ELSE 0 END AS BIGINT) AS side, CAST(k.c1 AS BIGINT) AS c1,
       CAST(k.c2 AS BIGINT) AS c2, CAST(k.seg AS BIGINT) AS seg, CAST(k.pos AS BIGINT) AS pos, CAST(k.wcum AS BIGINT) AS wcum,
       CAST(k.floor_lift AS BIGINT) AS floor_lift, CAST(COALESCE(o.outs, 0) AS BIGINT) AS outs,
       CAST(COALESCE(c.src_rank, -1) AS BIGINT) AS src_rank, CAST(COALESCE(c.src, -1) AS BIGINT) AS src,
       CAST(COALESCE(c.weight, 0) AS BIGINT) AS weight
FROM cp_key_nodes k
LEFT JOIN outs o ON o.rank = k.rank AND o.node = k.node
LEFT JOIN cp_cross c ON c.rank = k.rank AND c.dst = k.node
