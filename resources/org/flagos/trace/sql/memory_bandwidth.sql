-- memory_bandwidth: per rank and kind of copy or set, the bandwidth of those in flight over time, bytes per second.
-- HTA's memory bandwidth time series: each copy (kind 'Memcpy HtoD', 'Memcpy DtoH', 'Memcpy DtoD',
-- 'Memcpy PtoP', ... from its copy_kind; 'Memcpy Unknown' without one) and each set (kind 'Memset')
-- runs at its bytes over its duration, bytes_per_s = floor(bytes * 10^9 / dur_ns) (torch's own
-- "memory bandwidth (GB/s)" arg, bytes over ns, which HTA reads, in whole bytes per second), from its
-- start to its end. One row per rank, kind and moment a copy or set of that kind starts or ends, with
-- the sum of the rates of those running after that moment (bytes_per_s; 1 GB/s is 10^9) and how many
-- they are (in_flight), summed by a running SUM window. The rate is exact: a DOUBLE estimate corrected
-- to the whole quotient in DECIMAL(38, 0), so both engines give the same number. Left out: copies and
-- sets of 0 ns (no rate; torch writes 0 for them) or without bytes.
-- Columns: rank, kind, ts_ns, in_flight, bytes_per_s.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH mem AS (
  SELECT rank, ts_ns, dur_ns,
         CASE WHEN cat IN ('gpu_memset', 'Memset') THEN 'Memset'
              ELSE 'Memcpy ' || COALESCE(copy_kind, 'Unknown') END AS kind,
         CAST(bytes AS DECIMAL(38, 0)) * CAST(1000000000 AS DECIMAL(38, 0)) AS scaled
  FROM events
  WHERE ph = 'X' AND dur_ns > 0 AND bytes >= 0
    AND cat IN ('gpu_memcpy', 'gpu_memset', 'Memcpy', 'Memset')
),
estimate AS (
  SELECT rank, kind, ts_ns, dur_ns, scaled,
         CAST(FLOOR(CAST(scaled AS DOUBLE) / CAST(dur_ns AS DOUBLE)) AS BIGINT) AS q
  FROM mem
),
rate AS (
  SELECT rank, kind, ts_ns, dur_ns,
         q - (CASE WHEN CAST(q AS DECIMAL(38, 0)) * CAST(dur_ns AS DECIMAL(38, 0)) > scaled THEN 1 ELSE 0 END)
           + (CASE WHEN CAST(q + 1 AS DECIMAL(38, 0)) * CAST(dur_ns AS DECIMAL(38, 0)) <= scaled THEN 1 ELSE 0 END) AS bps
  FROM estimate
),
changes AS (
  SELECT rank, kind, ts_ns, bps AS delta, 1 AS copies FROM rate
  UNION ALL
  SELECT rank, kind, ts_ns + dur_ns AS ts_ns, -bps AS delta, -1 AS copies FROM rate
),
moments AS (
  SELECT rank, kind, ts_ns, CAST(SUM(delta) AS BIGINT) AS delta, CAST(SUM(copies) AS BIGINT) AS copies
  FROM changes
  GROUP BY rank, kind, ts_ns
)
SELECT rank, kind, ts_ns,
       CAST(SUM(copies) OVER (PARTITION BY rank, kind ORDER BY ts_ns ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) AS in_flight,
       CAST(SUM(delta) OVER (PARTITION BY rank, kind ORDER BY ts_ns ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) AS bytes_per_s
FROM moments
ORDER BY rank, kind, ts_ns
