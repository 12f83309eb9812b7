-- stream_idle: per rank, device and stream, the idle time between device work split into host wait, kernel wait and other, ns.
-- HTA's idle time breakdown: the device work of a stream (kernels, copies, sets) in start order
-- (then end, then correlation id); each one after the first has the gap from the previous one's end
-- to its start. The gap is host wait when its launch call (the runtime or driver call of the same
-- rank with its correlation id) started after the previous work ended: the host had not yet asked
-- for it. Otherwise it is kernel wait when shorter than 30 us (HTA's default consecutive-kernel
-- delay, 30 in the trace's unit, us: the cost of starting back-to-back work), else other. Gaps are
-- summed as they are (HTA's rule; work on one stream does not overlap in a vendor's records).
-- Columns: rank, device, stream, work (device work on the stream), host_wait_ns, kernel_wait_ns,
-- other_ns, idle_ns (their sum).
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH device AS (
  SELECT rank, device, stream, correlation, ts_ns, ts_ns + dur_ns AS end_ns
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0
    AND cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset')
),
runtime AS (
  SELECT rank, correlation, MIN(ts_ns) AS launch_ns
  FROM events
  WHERE ph = 'X' AND correlation IS NOT NULL
    AND (cat = 'Runtime' OR RIGHT(cat, 8) = '_runtime' OR RIGHT(cat, 7) = '_driver')
  GROUP BY rank, correlation
),
ordered AS (
  SELECT d.rank, d.device, d.stream, d.ts_ns, r.launch_ns,
         MAX(d.end_ns) OVER (PARTITION BY d.rank, d.device, d.stream ORDER BY d.ts_ns, d.end_ns, d.correlation NULLS LAST
                             ROWS BETWEEN 1 PRECEDING AND 1 PRECEDING) AS prev_end_ns
  FROM device d
  LEFT JOIN runtime r ON r.rank = d.rank AND r.correlation = d.correlation
),
gaps AS (
  SELECT rank, device, stream, ts_ns - prev_end_ns AS gap_ns,
         CASE WHEN prev_end_ns IS NULL THEN 'none'
              WHEN launch_ns > prev_end_ns THEN 'host'
              WHEN ts_ns - prev_end_ns < 30000 THEN 'kernel'
              ELSE 'other' END AS category
  FROM ordered
)
SELECT rank, device, stream,
       COUNT(*) AS work,
       CAST(SUM(CASE WHEN category = 'host' THEN gap_ns ELSE 0 END) AS BIGINT) AS host_wait_ns,
       CAST(SUM(CASE WHEN category = 'kernel' THEN gap_ns ELSE 0 END) AS BIGINT) AS kernel_wait_ns,
       CAST(SUM(CASE WHEN category = 'other' THEN gap_ns ELSE 0 END) AS BIGINT) AS other_ns,
       CAST(SUM(CASE WHEN category = 'none' THEN 0 ELSE gap_ns END) AS BIGINT) AS idle_ns
FROM gaps
GROUP BY rank, device, stream
ORDER BY rank, device, stream
