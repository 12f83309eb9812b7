-- kernel_sequences: per rank, device and stream, the most frequent runs of 2 to 5 consecutive kernels, with their count and time, ns.
-- The kernels of a stream (cat kernel; not copies or sets) in start order (then end, correlation id
-- and name); every run of n consecutive ones (n = 2 to 5) is an occurrence of the sequence of their
-- names, overlapping runs counted each (A A A holds A A twice). Per rank, device, stream, n and
-- sequence: occurrences, kernel_ns (the kernels' durations summed over every occurrence) and span_ns
-- (first start to last end, summed). A sequence seen once is not frequent and is left out; of the
-- rest, the 10 seen most often per rank, device, stream and n (then the longest kernel time, then the
-- names), place 1 the most frequent. kernels: the names, first to last, joined by ' | '.
-- Columns: rank, device, stream, n, place, occurrences, kernel_ns, span_ns, kernels.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH k AS (
  SELECT rank, device, stream, name, ts_ns, dur_ns, ts_ns + dur_ns AS end_ns, correlation
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0 AND cat IN ('kernel', 'Kernel') AND name IS NOT NULL
),
runs AS (
  SELECT rank, device, stream, ts_ns AS start_ns,
         name AS k1, dur_ns AS d1,
         LEAD(name, 1) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name) AS k2,
         LEAD(name, 2) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name) AS k3,
         LEAD(name, 3) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name) AS k4,
         LEAD(name, 4) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name) AS k5,
         LEAD(dur_ns, 1) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name) AS d2,
         LEAD(dur_ns, 2) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name) AS d3,
         LEAD(dur_ns, 3) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name) AS d4,
         LEAD(dur_ns, 4) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name) AS d5,
         MAX(end_ns) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name
                           ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS e2,
         MAX(end_ns) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name
                           ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) AS e3,
         MAX(end_ns) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name
                           ROWS BETWEEN CURRENT ROW AND 3 FOLLOWING) AS e4,
         MAX(end_ns) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns, end_ns, correlation NULLS LAST, name
                           ROWS BETWEEN CURRENT ROW AND 4 FOLLOWING) AS e5
  FROM k
),
grams AS (
  SELECT rank, device, stream, 2 AS n, k1 || ' | ' || k2 AS kernels, d1 + d2 AS kernel_ns, e2 - start_ns AS span_ns
  FROM runs WHERE k2 IS NOT NULL
  UNION ALL
  SELECT rank, device, stream, 3 AS n, k1 || ' | ' || k2 || ' | ' || k3 AS kernels, d1 + d2 + d3 AS kernel_ns,
         e3 - start_ns AS span_ns
  FROM runs WHERE k3 IS NOT NULL
  UNION ALL
  SELECT rank, device, stream, 4 AS n, k1 || ' | ' || k2 || ' | ' || k3 || ' | ' || k4 AS kernels,
         d1 + d2 + d3 + d4 AS kernel_ns, e4 - start_ns AS span_ns
  FROM runs WHERE k4 IS NOT NULL
  UNION ALL
  SELECT rank, device, stream, 5 AS n, k1 || ' | ' || k2 || ' | ' || k3 || ' | ' || k4 || ' | ' || k5 AS kernels,
         d1 + d2 + d3 + d4 + d5 AS kernel_ns, e5 - start_ns AS span_ns
  FROM runs WHERE k5 IS NOT NULL
),
counted AS (
  SELECT rank, device, stream, n, kernels, COUNT(*) AS occurrences,
         CAST(SUM(kernel_ns) AS BIGINT) AS kernel_ns, CAST(SUM(span_ns) AS BIGINT) AS span_ns
  FROM grams
  GROUP BY rank, device, stream, n, kernels
  HAVING COUNT(*) >= 2
),
placed AS (
  SELECT rank, device, stream, n, kernels, occurrences, kernel_ns, span_ns,
         ROW_NUMBER() OVER (PARTITION BY rank, device, stream, n ORDER BY occurrences DESC, kernel_ns DESC, kernels) AS place
  FROM counted
)
SELECT rank, device, stream, n, place, occurrences, kernel_ns, span_ns, kernels
FROM placed
WHERE place <= 10
ORDER BY rank, device, stream, n, place
