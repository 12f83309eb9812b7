-- rank_ops: per rank, the op table: calls, CPU total, self and total device time per op name.
-- The op table of every rank, as torch's key_averages() counts device time, one row per
-- rank, kind and name (rows of one name next to each other, rank by rank). Host rows (cpu_op,
-- user_annotation, python_function, Operator): calls, cpu_total_ns (their durations), self_device_ns
-- (device work whose External id is the op's), device_total_ns (the self device time of the op and
-- of every op inside it on its thread: same pid and tid, starting no earlier and ending no later).
-- Device rows (kernels, copies, sets): calls, and their durations as both self and total device time.
-- Kept simple against key_averages: no self CPU time, no folding of an op into a parent of its name.
-- Columns: rank, kind ('host' or 'device'), name, calls, cpu_total_ns, self_device_ns, device_total_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH complete AS (
  SELECT rank, pid, tid, cat, name, external_id, ts_ns, dur_ns, ts_ns + dur_ns AS end_ns
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
ops AS (
  SELECT o.rank, o.pid, o.tid, o.name, o.ts_ns, o.end_ns, o.dur_ns,
         COALESCE(d.device_ns, 0) AS self_device_ns,
         ROW_NUMBER() OVER (PARTITION BY o.rank ORDER BY o.pid, o.tid, o.ts_ns, o.end_ns DESC, o.name, o.external_id) AS op
  FROM complete o
  LEFT JOIN device_by_op d ON d.rank = o.rank AND d.external_id = o.external_id
  WHERE o.cat IN ('cpu_op', 'user_annotation', 'python_function', 'Operator')
),
op_totals AS (
  SELECT o.rank, o.op, o.name, o.dur_ns, o.self_device_ns, SUM(c.self_device_ns) AS device_total_ns
  FROM ops o
  JOIN ops c ON c.rank = o.rank AND c.pid = o.pid AND c.tid = o.tid
            AND c.ts_ns >= o.ts_ns AND c.end_ns <= o.end_ns
  GROUP BY o.rank, o.op, o.name, o.dur_ns, o.self_device_ns
)
SELECT rank, 'host' AS kind, name,
       COUNT(*) AS calls,
       CAST(SUM(dur_ns) AS BIGINT) AS cpu_total_ns,
       CAST(SUM(self_device_ns) AS BIGINT) AS self_device_ns,
       CAST(SUM(device_total_ns) AS BIGINT) AS device_total_ns
FROM op_totals
GROUP BY rank, name
UNION ALL
SELECT rank, 'device' AS kind, name,
       COUNT(*) AS calls,
       CAST(0 AS BIGINT) AS cpu_total_ns,
       CAST(SUM(dur_ns) AS BIGINT) AS self_device_ns,
       CAST(SUM(dur_ns) AS BIGINT) AS device_total_ns
FROM device
GROUP BY rank, name
ORDER BY name, kind, rank
