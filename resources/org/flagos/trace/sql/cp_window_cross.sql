-- cp_window_cross: step 10 of critical_path (CriticalPath), in the rounds (where cp_sweep finds no order), once per window of time: the edges between chains inside the window.
-- Both ends are nodes of cp_window_keys; the edges from settled windows are in its fixed_lift already.
-- Columns: rank, src_rank, src, dst, weight.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_cross and cp_window_keys.
SELECT c.rank, c.src_rank, c.src, c.dst, c.weight
FROM cp_cross c
JOIN cp_window_keys d ON d.rank = c.rank AND d.node = c.dst
JOIN cp_window_keys s ON s.rank = c.src_rank AND s.node = c.src
