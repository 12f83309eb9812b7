-- cp_events: step 1 of critical_path (CriticalPath): the events that are nodes of the graph, numbered per rank.
-- Host: ops (cpu_op) and runtime or driver calls longer than 0 ns (HTA leaves out zero-length host
-- events); blocking = a call that waits for the device (HTA's list: the edge into its end weighs 0).
-- Device: kernels, copies and sets whose runtime call (same rank and correlation id) is one of those
-- host events (HTA keeps only device work whose launch is in the trace).
-- Columns: rank, ev, side (host, device), pid, tid, device, stream, name, kind (cpu, computation,
-- communication, memory), correlation, ts_ns, end_ns, blocking (0, 1).
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH host AS (
  SELECT rank, 'host' AS side, pid, tid, CAST(NULL AS INTEGER) AS device, CAST(NULL AS BIGINT) AS stream, name,
         'cpu' AS kind, correlation, ts_ns, ts_ns + dur_ns AS end_ns,
         CASE WHEN name IN ('cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventQuery', 'cudaEventSynchronize',
                            'cudaMemcpy') THEN 1 ELSE 0 END AS blocking,
         CASE WHEN cat = 'Runtime' OR RIGHT(cat, 8) = '_runtime' OR RIGHT(cat, 7) = '_driver' THEN 1 ELSE 0 END AS runtime
  FROM events
  WHERE ph = 'X' AND dur_ns > 0 AND pid IS NOT NULL AND tid IS NOT NULL
    AND (cat IN ('cpu_op', 'Operator') OR cat = 'Runtime' OR RIGHT(cat, 8) = '_runtime' OR RIGHT(cat, 7) = '_driver')
),
launched AS (
  SELECT DISTINCT rank, correlation FROM host WHERE runtime = 1 AND correlation IS NOT NULL
),
device AS (
  SELECT e.rank, 'device' AS side, CAST(NULL AS BIGINT) AS pid, CAST(NULL AS BIGINT) AS tid, e.device, e.stream, e.name,
         CASE WHEN e.cat IN ('gpu_memcpy', 'gpu_memset', 'Memcpy', 'Memset') THEN 'memory'
              WHEN flagtrace_is_communication(e.name) THEN 'communication'
              ELSE 'computation' END AS kind,
         e.correlation, e.ts_ns, e.ts_ns + e.dur_ns AS end_ns, 0 AS blocking, 0 AS runtime
  FROM events e
  JOIN launched l ON l.rank = e.rank AND l.correlation = e.correlation
  WHERE e.ph = 'X' AND e.dur_ns >= 0 AND e.device IS NOT NULL AND e.stream IS NOT NULL
    AND e.cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset')
),
both_sides AS (
  SELECT rank, side, pid, tid, device, stream, name, kind, correlation, ts_ns, end_ns, blocking FROM host
  UNION ALL
  SELECT rank, side, pid, tid, device, stream, name, kind, correlation, ts_ns, end_ns, blocking FROM device
)
SELECT rank,
       CAST(ROW_NUMBER() OVER (PARTITION BY rank ORDER BY side, pid NULLS FIRST, tid NULLS FIRST, device NULLS FIRST,
                               stream NULLS FIRST, ts_ns, end_ns, name NULLS FIRST, correlation NULLS FIRST) AS BIGINT) AS ev,
       side, pid, tid, device, stream, name, kind, correlation, ts_ns, end_ns, blocking
FROM both_sides
