-- rank_steps: each rank's time in each training step (ProfilerStep#N), ns.
-- One row per rank and step.
-- A step is a host op (cpu_op, user_annotation, python_function, 2021's Operator) named
-- ProfilerStep#N, torch's name; its time is its span in the rank: the earliest start to the latest
-- end of ops of that step number. Times in ns.
-- Columns: rank, step (N), start_ns, end_ns, time_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH step_ops AS (
  flagtrace_fragment(step_ops)
)
SELECT rank,
       step,
       MIN(ts_ns) AS start_ns,
       MAX(end_ns) AS end_ns,
       MAX(end_ns) - MIN(ts_ns) AS time_ns
FROM step_ops
WHERE step IS NOT NULL
GROUP BY rank, step
ORDER BY rank, step
