-- rank_ops: per rank, the op table: calls, CPU total, self CPU, self and total device time per row.
-- The op table of every rank by the rule of torch's key_averages, the one every summary of
-- flagtrace follows (stages/KeyAveragesRule): one row per rank, kind and name (rows of one name next
-- to each other, rank by rank).
-- Host rows: ops (cpu_op, user_annotation, python_function, Operator), runtime and driver calls
-- (categories Runtime, *_runtime, *_driver) and profiler overhead. They nest per thread (pid, tid)
-- as torch's stack nests them: in order of start, longer first (then External id, then name), an
-- event's parent is the latest earlier event it lies in (starting before its end, ending no later),
-- unless an event between them crossed that parent's end (it then closed). Every event counts.
-- self_cpu_ns: the duration less the union of the direct children's spans, never negative;
-- self_device_ns: device work whose External id is the op's (runtime calls carry their op's id but no device time);
-- device_total_ns: its own and its descendants'. An overhead event belongs to the innermost op
-- around it on any thread (the latest-starting; then External id): it nests on that op's thread and
-- is credited with the device work of the op's External id (as torch links CUPTI's buffer requests).
-- Device rows (kernels, copies, sets): calls, and their durations as both self and total device time.
-- Columns: rank, kind ('host' or 'device'), name, calls, cpu_total_ns, self_device_ns,
-- device_total_ns, self_cpu_ns.
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
),
numbered AS (
  SELECT h.rank, h.pid, h.tid, h.name, h.ts_ns, h.end_ns, h.dur_ns,
         COALESCE(d.device_ns, 0) AS self_device_ns,
         ROW_NUMBER() OVER (PARTITION BY h.rank
                            ORDER BY h.pid, h.tid, h.ts_ns, h.end_ns DESC, h.external_id NULLS LAST, h.name) AS ev
  FROM host h
  LEFT JOIN device_by_op d ON d.rank = h.rank AND d.external_id = h.link
),
-- for each event, the first later event of its thread that crosses its end: it closes the event
closed AS (
  SELECT p.rank, p.ev, MIN(x.ev) AS closed_at
  FROM numbered p
  JOIN numbered x ON x.rank = p.rank AND x.pid = p.pid AND x.tid = p.tid
                 AND x.ev > p.ev AND x.ts_ns < p.end_ns AND x.end_ns > p.end_ns
  GROUP BY p.rank, p.ev
),
-- ancestor (p) and descendant (c) pairs
nested AS (
  SELECT p.rank, p.ev AS p_ev, c.ev AS c_ev, c.self_device_ns AS c_device
  FROM numbered p
  LEFT JOIN closed k ON k.rank = p.rank AND k.ev = p.ev
  JOIN numbered c ON c.rank = p.rank AND c.pid = p.pid AND c.tid = p.tid
                 AND c.ev > p.ev AND c.ts_ns < p.end_ns AND c.end_ns <= p.end_ns
  WHERE k.closed_at IS NULL OR c.ev < k.closed_at
),
parent AS (
  SELECT rank, c_ev AS ev, MAX(p_ev) AS parent_ev
  FROM nested
  GROUP BY rank, c_ev
),
children AS (
  SELECT c.rank, k.parent_ev, c.ts_ns, c.end_ns,
         MAX(c.end_ns) OVER (PARTITION BY c.rank, k.parent_ev ORDER BY c.ev
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered_to
  FROM parent k
  JOIN numbered c ON c.rank = k.rank AND c.ev = k.ev
),
child_union AS (
  SELECT rank, parent_ev AS ev,
         SUM(CASE WHEN covered_to IS NULL OR covered_to <= ts_ns THEN dur_ns
                  WHEN end_ns > covered_to THEN end_ns - covered_to
                  ELSE 0 END) AS union_ns
  FROM (SELECT rank, parent_ev, ts_ns, end_ns, end_ns - ts_ns AS dur_ns, covered_to FROM children) u
  GROUP BY rank, parent_ev
),
descendant_device AS (
  SELECT rank, p_ev AS ev, SUM(c_device) AS device_ns
  FROM nested
  GROUP BY rank, p_ev
),
measured AS (
  SELECT n.rank, n.name, n.dur_ns, n.self_device_ns,
         n.self_device_ns + COALESCE(dd.device_ns, 0) AS device_total_ns,
         CASE WHEN n.dur_ns > COALESCE(cu.union_ns, 0) THEN n.dur_ns - COALESCE(cu.union_ns, 0) ELSE 0 END AS self_cpu_ns
  FROM numbered n
  LEFT JOIN child_union cu ON cu.rank = n.rank AND cu.ev = n.ev
  LEFT JOIN descendant_device dd ON dd.rank = n.rank AND dd.ev = n.ev
)
SELECT rank, 'host' AS kind, name,
       COUNT(*) AS calls,
       CAST(SUM(dur_ns) AS BIGINT) AS cpu_total_ns,
       CAST(SUM(self_device_ns) AS BIGINT) AS self_device_ns,
       CAST(SUM(device_total_ns) AS BIGINT) AS device_total_ns,
       CAST(SUM(self_cpu_ns) AS BIGINT) AS self_cpu_ns
FROM measured
GROUP BY rank, name
UNION ALL
SELECT rank, 'device' AS kind, name,
       COUNT(*) AS calls,
       CAST(0 AS BIGINT) AS cpu_total_ns,
       CAST(SUM(dur_ns) AS BIGINT) AS self_device_ns,
       CAST(SUM(dur_ns) AS BIGINT) AS device_total_ns,
       CAST(0 AS BIGINT) AS self_cpu_ns
FROM device
GROUP BY rank, name
ORDER BY name, kind, rank
