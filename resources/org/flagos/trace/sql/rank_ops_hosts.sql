-- rank_ops_hosts: rank_ops' host events, one row each, for its nesting (org.flagos.trace.sql.OpNesting).
-- Host rows: ops (cpu_op, user_annotation, python_function, Operator), runtime and driver calls
-- (categories Runtime, *_runtime, *_driver) and profiler overhead, each with its thread (rank, pid, tid), span,
-- External id (for the order: OpNesting.ORDER) and own device time: the device work whose External id is the op's
-- (runtime calls carry their op's id but no device time). An overhead event belongs to the innermost op around it on
-- any thread (the latest-starting; then External id): it nests on that op's thread and is credited with the device
-- work of the op's External id (as torch links CUPTI's buffer requests).
-- Columns: rank, pid, tid, name, external_id, ts_ns, end_ns, self_device_ns.
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
host_only AS (
  SELECT rank, pid, tid, name, external_id, ts_ns, end_ns, dur_ns,
         CASE WHEN cat IN ('cpu_op', 'user_annotation', 'python_function', 'Operator') THEN 1 ELSE 0 END AS is_op
  FROM complete
  WHERE cat IN ('cpu_op', 'user_annotation', 'python_function', 'Operator', 'Runtime')
     OR RIGHT(cat, 8) = '_runtime' OR RIGHT(cat, 7) = '_driver'
),
overhead AS (
  SELECT rank, pid, tid, name, ts_ns, end_ns, dur_ns,
         ROW_NUMBER() OVER (PARTITION BY rank ORDER BY ts_ns, end_ns DESC, pid, tid, name) AS oh
  FROM complete
  WHERE cat = 'overhead'
),
overhead_owner AS (
  SELECT o.rank, o.oh, h.pid, h.tid, h.external_id,
         ROW_NUMBER() OVER (PARTITION BY o.rank, o.oh
                            ORDER BY h.ts_ns DESC, h.end_ns, h.external_id NULLS LAST, h.pid, h.tid) AS k
  FROM overhead o
  JOIN host_only h ON h.rank = o.rank AND h.is_op = 1 AND h.ts_ns <= o.ts_ns AND h.end_ns >= o.end_ns
),
host AS (
  SELECT rank, pid, tid, name, CASE WHEN is_op = 1 THEN external_id END AS link, external_id, ts_ns, end_ns, dur_ns
  FROM host_only
  UNION ALL
  SELECT o.rank, COALESCE(w.pid, o.pid), COALESCE(w.tid, o.tid), o.name, w.external_id, CAST(NULL AS BIGINT),
         o.ts_ns, o.end_ns, o.dur_ns
  FROM overhead o
  LEFT JOIN overhead_owner w ON w.rank = o.rank AND w.oh = o.oh AND w.k = 1
)
SELECT h.rank, h.pid, h.tid, h.name, h.external_id, h.ts_ns, h.end_ns, COALESCE(d.device_ns, 0) AS self_device_ns
FROM host h
LEFT JOIN device_by_op d ON d.rank = h.rank AND d.external_id = h.link
