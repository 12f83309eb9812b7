-- queue_length: per rank, device and stream, the number of launched but not yet started device work over time.
-- HTA's queue length: every launch call (as in kernel_launches) adds one to its device work's
-- stream when the call starts; the device work takes one off when it starts. Only launches paired
-- with their device work count (work queued before the trace began is left out, so the length is
-- never negative). One row per moment the length may change (a launch's start or a start of device
-- work), with the length after everything at that moment: a step function, constant until the next
-- row. Times in ns.
-- Columns: rank, device, stream, ts_ns, queue_length.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH launches AS (
  flagtrace_fragment(launch_calls)
),
device AS (
  flagtrace_fragment(device_work)
),
pairs AS (
  SELECT d.rank, d.device, d.stream, l.ts_ns AS launch_ns, d.ts_ns AS start_ns
  FROM launches l
  JOIN device d ON d.rank = l.rank AND d.correlation = l.correlation
),
moves AS (
  SELECT rank, device, stream, launch_ns AS ts_ns, 1 AS delta FROM pairs
  UNION ALL
  SELECT rank, device, stream, start_ns AS ts_ns, -1 AS delta FROM pairs
),
moments AS (
  SELECT rank, device, stream, ts_ns, SUM(delta) AS delta
  FROM moves
  GROUP BY rank, device, stream, ts_ns
)
SELECT rank, device, stream, ts_ns,
       CAST(SUM(delta) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns
                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) AS queue_length
FROM moments
ORDER BY rank, device, stream, ts_ns
