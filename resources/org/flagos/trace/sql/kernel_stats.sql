-- kernel_stats: per rank and device-work name, calls, total, min, max, mean, sample std and percentiles of the duration, ns.
-- One row per rank, kind and name of device work (kernels, copies, sets): kind is communication
-- (a collective library's kernel, the one rule of docs/analysis.md), computation (other kernels)
-- or memory (copies and sets). Durations in ns: total_ns, min_ns, max_ns; mean_ns is the total over
-- the calls rounded down; std_ns the sample standard deviation (n - 1 in the denominator, as pandas
-- and HTA's kernel breakdown; 0 for one call) rounded down, computed exactly: the variance as
-- (n * sum of squares - total squared) / (n * (n - 1)) in DECIMAL(38, 0), its square root in DOUBLE
-- then corrected to the exact whole root, so both engines give the same number. p50_ns, p90_ns,
-- p99_ns are nearest-rank percentiles: the duration at position ceil(p * n / 100) of the calls in
-- ascending order (no interpolation: no engine's own quantile function, whose rules differ).
-- Columns: rank, kind, name, calls, total_ns, min_ns, max_ns, mean_ns, std_ns, p50_ns, p90_ns, p99_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH device AS (
  SELECT rank, name, dur_ns,
         CASE WHEN LOWER(cat) <> 'kernel' THEN 'memory'
              WHEN flagtrace_is_communication(name) THEN 'communication'
              ELSE 'computation' END AS kind
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0
    AND cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset')
),
ranked AS (
  SELECT rank, kind, name, dur_ns,
         ROW_NUMBER() OVER (PARTITION BY rank, kind, name ORDER BY dur_ns) AS up,
         COUNT(*) OVER (PARTITION BY rank, kind, name) AS n
  FROM device
),
sums AS (
  SELECT rank, kind, name,
         COUNT(*) AS calls,
         CAST(SUM(dur_ns) AS BIGINT) AS total_ns,
         MIN(dur_ns) AS min_ns,
         MAX(dur_ns) AS max_ns,
         SUM(CAST(dur_ns AS DECIMAL(38, 0)) * CAST(dur_ns AS DECIMAL(38, 0))) AS squares,
         MIN(CASE WHEN 100 * up >= 50 * n THEN dur_ns END) AS p50_ns,
         MIN(CASE WHEN 100 * up >= 90 * n THEN dur_ns END) AS p90_ns,
         MIN(CASE WHEN 100 * up >= 99 * n THEN dur_ns END) AS p99_ns
  FROM ranked
  GROUP BY rank, kind, name
),
spread AS (
  SELECT rank, kind, name, calls, total_ns, min_ns, max_ns, p50_ns, p90_ns, p99_ns,
         CAST(calls AS DECIMAL(38, 0)) * squares
           - CAST(total_ns AS DECIMAL(38, 0)) * CAST(total_ns AS DECIMAL(38, 0)) AS num,
         CAST(calls AS DECIMAL(38, 0)) * CAST(calls - 1 AS DECIMAL(38, 0)) AS den
  FROM sums
),
root AS (
  SELECT rank, kind, name, calls, total_ns, min_ns, max_ns, p50_ns, p90_ns, p99_ns, num, den,
         CASE WHEN calls < 2 THEN CAST(0 AS BIGINT)
              ELSE CAST(FLOOR(SQRT(CAST(num AS DOUBLE) / CAST(den AS DOUBLE))) AS BIGINT) END AS r
  FROM spread
)
SELECT rank, kind, name, calls, total_ns, min_ns, max_ns,
       CAST((total_ns - total_ns % calls) / calls AS BIGINT) AS mean_ns,
       CASE WHEN calls < 2 THEN CAST(0 AS BIGINT)
            ELSE r - (CASE WHEN CAST(r AS DECIMAL(38, 0)) * CAST(r AS DECIMAL(38, 0)) * den > num THEN 1 ELSE 0 END)
                   + (CASE WHEN CAST(r + 1 AS DECIMAL(38, 0)) * CAST(r + 1 AS DECIMAL(38, 0)) * den <= num THEN 1 ELSE 0 END)
       END AS std_ns,
       p50_ns, p90_ns, p99_ns
FROM root
ORDER BY rank, kind, total_ns DESC, name
