-- kernel_launches: per runtime launch, the device work it put on a stream and the launch delay, ns.
-- One row per launch call (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel(Ex),
-- cudaMemcpyAsync, cudaMemsetAsync, HIP's and the other vendors' same calls: Analyses.LAUNCH_CALLS)
-- and the device work (kernel, copy, set) of the same rank with its correlation id, as HTA's CUDA
-- kernel launch statistics pair them. launch_delay_ns is the time from the launch call's end to the
-- device work's start, 0 when the work started before the call returned (HTA clips it the same way).
-- A launch whose device work is not in the trace, or device work whose launch is not (queued
-- before the trace began), has no row.
-- Columns: rank, correlation, launch, kernel, device, stream, launch_ns, launch_dur_ns, kernel_ns,
-- kernel_dur_ns, launch_delay_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH launches AS (
  SELECT rank, correlation, name, ts_ns, dur_ns
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0 AND correlation IS NOT NULL
    AND (cat = 'Runtime' OR RIGHT(cat, 8) = '_runtime' OR RIGHT(cat, 7) = '_driver')
    AND flagtrace_is_launch(name)
),
device AS (
  SELECT rank, correlation, name, device, stream, ts_ns, dur_ns
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0 AND correlation IS NOT NULL
    AND cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset')
)
SELECT l.rank, l.correlation, l.name AS launch, d.name AS kernel, d.device, d.stream,
       l.ts_ns AS launch_ns, l.dur_ns AS launch_dur_ns, d.ts_ns AS kernel_ns, d.dur_ns AS kernel_dur_ns,
       CASE WHEN d.ts_ns > l.ts_ns + l.dur_ns THEN d.ts_ns - (l.ts_ns + l.dur_ns) ELSE CAST(0 AS BIGINT) END AS launch_delay_ns
FROM launches l
JOIN device d ON d.rank = l.rank AND d.correlation = l.correlation
ORDER BY rank, launch_ns, correlation, kernel_ns
