-- step_ops: the host ops that mark training steps, as rank_steps and step_stragglers read them (a part of both:
-- Analyses.load puts it where a query names it in the fragment marker, Analyses.FRAGMENT_MARKER).
-- A step is a host op (cpu_op, user_annotation, python_function, 2021's Operator) named
-- ProfilerStep#N, torch's name; step is N (NULL where the rest of the name is not a number).
-- Columns: rank, step, ts_ns, end_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
SELECT rank,
         TRY_CAST(SUBSTRING(name, 14) AS BIGINT) AS step,
         ts_ns,
         ts_ns + dur_ns AS end_ns
  FROM events
  WHERE ph = 'X'
    AND cat IN ('cpu_op', 'user_annotation', 'python_function', 'Operator')
    AND name LIKE 'ProfilerStep#%'
    AND dur_ns >= 0
