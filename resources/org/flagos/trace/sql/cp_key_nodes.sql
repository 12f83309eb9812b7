-- cp_key_nodes: step 6 of critical_path (CriticalPath): each key node (cp_ends) with what its chain gives it, for the sweep (cp_sweep) and the rounds (cp_keys).
-- The other nodes matter to the longest paths only through -wcum: floor_lift is the running maximum of it
-- over the segment's nodes up to this one (every node's, computed here once). at_ns is the latest time of the
-- chain's key nodes up to this one (ns), the order the sweep reads them in. Every row depends on its own rank's
-- rows of cp_nodes and cp_ends only, so DuckDB makes it a slice of ranks at a time, as cp_nodes.
-- Columns: rank, node, side, c1, c2, seg, pos, wcum, floor_lift, ts_ns, at_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the tables cp_nodes and cp_ends.
WITH floored AS (
  SELECT rank, node, side, c1, c2, seg, pos, wcum, ts_ns,
         MAX(0 - wcum) OVER (PARTITION BY rank, side, c1, c2, seg ORDER BY pos
                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS floor_lift
  FROM cp_nodes
)
SELECT f.rank, f.node, f.side, f.c1, f.c2, f.seg, f.pos, f.wcum, f.floor_lift, f.ts_ns,
       MAX(f.ts_ns) OVER (PARTITION BY f.rank, f.side, f.c1, f.c2 ORDER BY f.pos
                          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS at_ns
FROM floored f
JOIN cp_ends e ON e.rank = f.rank AND e.node = f.node
