-- rank_device: per rank, the device span split into computation, communication, memory and idle, and the overlap.
-- One row per rank: its steps and device time. The rank's device span (its first
-- device work's start to its last one's end, all its devices together) is split into parts that
-- sum to it: communication (the union of its communication kernels), computation (the union of
-- the other kernels, less what overlaps communication), memory (copies and sets overlapped by no
-- kernel) and idle (no device work). Overlap is the time communication and computation run at once.
-- A kernel is communication when it is a collective library's kernel: its name starts (any case,
-- after an optional "void ") with nccl, rccl, hccl, mccl or eccl (NCCL/RCCL, HCCL, MCCL, ECCL); the
-- condition is put in by the loader (org.flagos.trace.sql.CollectiveKernels, the one rule).
-- Unions are gaps and islands: per rank and kind, intervals in start order; one starting after the
-- furthest end so far begins an island; an island's length is its last end less its first start.
-- Columns: rank, steps, mean_step_ns (rounded down; NULL without steps), whole_ns (first to last
-- complete event), device_span_ns, computation_ns, communication_ns, memory_ns, idle_ns,
-- overlap_ns, computation_total_ns (the computation union, overlapped or not), device_events.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH complete AS (
  SELECT rank, cat, name, ts_ns, ts_ns + dur_ns AS end_ns
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0
),
step_ops AS (
  SELECT rank, TRY_CAST(SUBSTRING(name, 14) AS BIGINT) AS step, ts_ns, end_ns
  FROM complete
  WHERE cat IN ('cpu_op', 'user_annotation', 'python_function', 'Operator')
    AND name LIKE 'ProfilerStep#%'
),
steps AS (
  SELECT rank, step, MAX(end_ns) - MIN(ts_ns) AS time_ns
  FROM step_ops
  WHERE step IS NOT NULL
  GROUP BY rank, step
),
step_totals AS (
  SELECT rank, COUNT(*) AS steps, SUM(time_ns) AS step_sum
  FROM steps
  GROUP BY rank
),
whole AS (
  SELECT rank, MAX(end_ns) - MIN(ts_ns) AS whole_ns
  FROM complete
  GROUP BY rank
),
device AS (
  SELECT rank, ts_ns AS s, end_ns AS e,
         CASE WHEN LOWER(cat) <> 'kernel' THEN 'memory'
              WHEN flagtrace_is_communication(name) THEN 'communication'
              ELSE 'computation' END AS kind
  FROM complete
  WHERE cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset')
),
device_totals AS (
  SELECT rank, MAX(e) - MIN(s) AS span_ns, COUNT(*) AS device_events
  FROM device
  GROUP BY rank
),
-- Each interval once per union it belongs to; empty intervals add nothing to a union.
grouped AS (
  SELECT rank, 'communication' AS grp, s, e FROM device WHERE kind = 'communication' AND e > s
  UNION ALL
  SELECT rank, 'computation' AS grp, s, e FROM device WHERE kind = 'computation' AND e > s
  UNION ALL
  SELECT rank, 'kernels' AS grp, s, e FROM device WHERE kind <> 'memory' AND e > s
  UNION ALL
  SELECT rank, 'busy' AS grp, s, e FROM device WHERE e > s
),
reach AS (
  SELECT rank, grp, s, e,
         MAX(e) OVER (PARTITION BY rank, grp ORDER BY s, e
                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach_ns
  FROM grouped
),
islands AS (
  SELECT rank, grp, s, e,
         SUM(CASE WHEN reach_ns IS NULL OR s > reach_ns THEN 1 ELSE 0 END)
           OVER (PARTITION BY rank, grp ORDER BY s, e
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS island
  FROM reach
),
island_lengths AS (
  SELECT rank, grp, MAX(e) - MIN(s) AS length_ns
  FROM islands
  GROUP BY rank, grp, island
),
unions AS (
  SELECT rank,
         SUM(CASE WHEN grp = 'communication' THEN length_ns ELSE 0 END) AS comm,
         SUM(CASE WHEN grp = 'computation' THEN length_ns ELSE 0 END) AS compute,
         SUM(CASE WHEN grp = 'kernels' THEN length_ns ELSE 0 END) AS kernels,
         SUM(CASE WHEN grp = 'busy' THEN length_ns ELSE 0 END) AS busy
  FROM island_lengths
  GROUP BY rank
)
SELECT w.rank,
       COALESCE(st.steps, 0) AS steps,
       CAST((st.step_sum - st.step_sum % st.steps) / st.steps AS BIGINT) AS mean_step_ns,
       w.whole_ns,
       COALESCE(d.span_ns, 0) AS device_span_ns,
       CAST(COALESCE(u.kernels - u.comm, 0) AS BIGINT) AS computation_ns,
       CAST(COALESCE(u.comm, 0) AS BIGINT) AS communication_ns,
       CAST(COALESCE(u.busy - u.kernels, 0) AS BIGINT) AS memory_ns,
       CAST(COALESCE(d.span_ns, 0) - COALESCE(u.busy, 0) AS BIGINT) AS idle_ns,
       CAST(COALESCE(u.comm + u.compute - u.kernels, 0) AS BIGINT) AS overlap_ns,
       CAST(COALESCE(u.compute, 0) AS BIGINT) AS computation_total_ns,
       COALESCE(d.device_events, 0) AS device_events
FROM whole w
LEFT JOIN step_totals st ON st.rank = w.rank
LEFT JOIN device_totals d ON d.rank = w.rank
LEFT JOIN unions u ON u.rank = w.rank
ORDER BY w.rank
