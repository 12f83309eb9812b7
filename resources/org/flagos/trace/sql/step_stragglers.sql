-- step_stragglers: per training step, the median, fastest and slowest rank and how far the slowest is over the median.
-- One row per training step across the ranks: how many ranks have it, the median
-- rank's time (the mean of the two middle ones for an even count, rounded down), the fastest, the
-- slowest and which rank (the lowest on a tie), and how far the slowest is over the median.
-- A rank's step time is as in rank_steps. When no rank has a step, one row with step NULL: each
-- rank's whole trace (its first complete event's start to its last one's end) as its time.
-- Columns: step, ranks, median_ns, fastest_ns, slowest_ns, slowest_rank, over_median_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH step_ops AS (
  flagtrace_fragment(step_ops)
),
steps AS (
  SELECT rank, step, MAX(end_ns) - MIN(ts_ns) AS time_ns
  FROM step_ops
  WHERE step IS NOT NULL
  GROUP BY rank, step
),
whole AS (
  SELECT rank, MAX(ts_ns + dur_ns) - MIN(ts_ns) AS time_ns
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0
  GROUP BY rank
),
step_count AS (
  SELECT COUNT(*) AS n FROM steps
),
times AS (
  SELECT rank, step, time_ns FROM steps
  UNION ALL
  SELECT w.rank, CAST(NULL AS BIGINT) AS step, w.time_ns
  FROM whole w CROSS JOIN step_count c
  WHERE c.n = 0
),
ranked AS (
  SELECT step, rank, time_ns,
         ROW_NUMBER() OVER (PARTITION BY step ORDER BY time_ns, rank) AS up,
         ROW_NUMBER() OVER (PARTITION BY step ORDER BY time_ns DESC, rank) AS down,
         COUNT(*) OVER (PARTITION BY step) AS ranks
  FROM times
),
-- The middle row (odd count) or the two middle rows (even count) are those with 2 * up between
-- ranks and ranks + 2: no division, so no dialect's integer division is needed.
stats AS (
  SELECT step, rank, time_ns, down, ranks,
         MIN(time_ns) OVER (PARTITION BY step) AS fastest_ns,
         MIN(CASE WHEN 2 * up BETWEEN ranks AND ranks + 2 THEN time_ns END) OVER (PARTITION BY step)
           + MAX(CASE WHEN 2 * up BETWEEN ranks AND ranks + 2 THEN time_ns END) OVER (PARTITION BY step) AS middle_sum
  FROM ranked
)
SELECT step,
       ranks,
       CAST((middle_sum - middle_sum % 2) / 2 AS BIGINT) AS median_ns,
       fastest_ns,
       time_ns AS slowest_ns,
       rank AS slowest_rank,
       time_ns - CAST((middle_sum - middle_sum % 2) / 2 AS BIGINT) AS over_median_ns
FROM stats
WHERE down = 1
ORDER BY step
