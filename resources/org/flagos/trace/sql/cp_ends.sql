-- cp_ends: step 5 of critical_path (CriticalPath): the key nodes, those an edge between chains leaves or enters.
-- An edge's source may be on another rank than the edge (a collective's), so they are listed here once, over the
-- whole job, before cp_key_nodes reads them a slice of ranks at a time. Few rows: at most two a cp_cross row.
-- Columns: rank, node.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table cp_cross.
SELECT src_rank AS rank, src AS node FROM cp_cross
UNION
SELECT rank, dst AS node FROM cp_cross
