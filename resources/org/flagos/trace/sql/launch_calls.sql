-- launch_calls: the runtime and driver calls that put one piece of device work on a stream (Analyses.LAUNCH_CALLS), with
-- their correlation ids, as queue_length and the critical path's cp_nodes pair them with the device work (a part of
-- both: Analyses.load puts it where a query names it in the fragment marker, Analyses.FRAGMENT_MARKER).
-- Columns: rank, correlation, ts_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
SELECT rank, correlation, ts_ns
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0 AND correlation IS NOT NULL
    AND (cat = 'Runtime' OR RIGHT(cat, 8) = '_runtime' OR RIGHT(cat, 7) = '_driver')
    AND flagtrace_is_launch(name)
