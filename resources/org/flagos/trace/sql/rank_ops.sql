-- rank_ops: per rank, the op table: calls, CPU total, self CPU, self and total device time per row.
-- The op table of every rank by the rule of torch's key_averages, the one every summary of
-- flagtrace follows (stages/KeyAveragesRule): one row per rank, kind and name (rows of one name next
-- to each other, rank by rank).
-- Host rows: ops (cpu_op, user_annotation, python_function, Operator), runtime and driver calls
-- (categories Runtime, *_runtime, *_driver) and profiler overhead. They nest per thread (pid, tid)
-- as torch's stack nests them: in order of start, longer first (then External id, then name), an
-- event's parent is the latest earlier event it lies in (starting before its end, ending no later),
-- unless an event between them crossed that parent's end (it then closed). Every event counts.
-- self_cpu_ns: the duration less the union of the direct children's spans, never negative;
-- self_device_ns: device work whose External id is the op's (runtime calls carry their op's id but no device time);
-- device_total_ns: its own and its descendants'. An overhead event belongs to the innermost op
-- around it on any thread (the latest-starting; then External id): it nests on that op's thread and
-- is credited with the device work of the op's External id (as torch links CUPTI's buffer requests).
-- Device rows (kernels, copies, sets): calls, and their durations as both self and total device time.
-- Columns: rank, kind ('host' or 'device'), name, calls, cpu_total_ns, self_device_ns,
-- device_total_ns, self_cpu_ns.
-- The nesting is one pass a thread with a stack (org.flagos.trace.sql.OpNesting, over rank_ops_hosts.sql's rows in
-- its order), which both engines run (DuckDB in the JVM, Spark in its tasks) into the table rank_ops_nested: one row
-- per host event (rank, name, dur_ns, self_device_ns, device_total_ns, self_cpu_ns). This query sums it.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over rank_ops_nested and the table events (docs/tables.md).
WITH device AS (
  SELECT rank, name, dur_ns
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0
    AND cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset')
)
SELECT rank, 'host' AS kind, name,
       COUNT(*) AS calls,
       CAST(SUM(dur_ns) AS BIGINT) AS cpu_total_ns,
       CAST(SUM(self_device_ns) AS BIGINT) AS self_device_ns,
       CAST(SUM(device_total_ns) AS BIGINT) AS device_total_ns,
       CAST(SUM(self_cpu_ns) AS BIGINT) AS self_cpu_ns
FROM rank_ops_nested
GROUP BY rank, name
UNION ALL
SELECT rank, 'device' AS kind, name,
       COUNT(*) AS calls,
       CAST(0 AS BIGINT) AS cpu_total_ns,
       CAST(SUM(dur_ns) AS BIGINT) AS self_device_ns,
       CAST(SUM(dur_ns) AS BIGINT) AS device_total_ns,
       CAST(0 AS BIGINT) AS self_cpu_ns
FROM device
GROUP BY rank, name
ORDER BY name, kind, rank
