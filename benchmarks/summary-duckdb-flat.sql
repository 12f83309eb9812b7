-- The op table without the nesting: what a first DuckDB query of a trace's events computes, per name
-- (and host or device): calls, CPU total, the device time of each op's External id, and self CPU taken
-- as the whole duration. It equals torch's key_averages rule (rank_ops.sql, the summary's) only where no
-- host event lies inside another on its thread (a trace without host ops, as the 10M-record synthetic
-- capture's replay); it is here to say what the nesting costs DuckDB, not as a summary.
-- Columns as rank_ops.sql's.
WITH complete AS (
  SELECT rank, cat, name, external_id, dur_ns
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0
),
device AS (
  SELECT rank, name, external_id, dur_ns
  FROM complete
  WHERE cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset')
),
device_by_op AS (
  SELECT rank, external_id, SUM(dur_ns) AS device_ns
  FROM device
  WHERE external_id IS NOT NULL
  GROUP BY rank, external_id
),
host AS (
  SELECT rank, name, dur_ns,
         CASE WHEN cat IN ('cpu_op', 'user_annotation', 'python_function', 'Operator') THEN external_id END AS link
  FROM complete
  WHERE cat IN ('cpu_op', 'user_annotation', 'python_function', 'Operator', 'Runtime')
     OR RIGHT(cat, 8) = '_runtime' OR RIGHT(cat, 7) = '_driver'
)
SELECT h.rank, 'host' AS kind, h.name, COUNT(*) AS calls,
       CAST(SUM(h.dur_ns) AS BIGINT) AS cpu_total_ns,
       CAST(COALESCE(SUM(d.device_ns), 0) AS BIGINT) AS self_device_ns,
       CAST(COALESCE(SUM(d.device_ns), 0) AS BIGINT) AS device_total_ns,
       CAST(SUM(h.dur_ns) AS BIGINT) AS self_cpu_ns
FROM host h
LEFT JOIN device_by_op d ON d.rank = h.rank AND d.external_id = h.link
GROUP BY h.rank, h.name
UNION ALL
SELECT rank, 'device' AS kind, name, COUNT(*) AS calls, CAST(0 AS BIGINT), CAST(SUM(dur_ns) AS BIGINT),
       CAST(SUM(dur_ns) AS BIGINT), CAST(0 AS BIGINT)
FROM device
GROUP BY rank, name
ORDER BY name, kind, rank
