-- critical_path: per rank, the critical path's length and where its time goes, and how far it is over the median rank, ns.
-- HTA's critical path analysis (docs/analysis.md): the longest path through the graph of each host
-- thread's calls, each stream's device work, launch edges and sync edges, computed in SQL rounds
-- (CriticalPath). length_ns is the path's weight: cpu_ns (host calls) + computation_ns,
-- communication_ns, memory_ns (device work by kind) + launch_delay_ns + kernel_gap_ns; waiting_ns is
-- the rest of the path's span (end_ns - start_ns - length_ns: gaps between top-level host events and
-- blocked calls that no device work on the path covers). over_median_ns is the rank's length less
-- the median rank's (the mean of the two middle ones for an even count, rounded down): the
-- lightweight straggler view, the slowest rank first in the report.
-- Columns: rank, start_ns, end_ns, length_ns, cpu_ns, computation_ns, communication_ns, memory_ns,
-- launch_delay_ns, kernel_gap_ns, waiting_ns, edges, over_median_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_segments (CriticalPath's steps over the table events).
WITH per_rank AS (
  SELECT rank, MIN(start_ns) AS start_ns, MAX(end_ns) AS end_ns,
         CAST(SUM(weight_ns) AS BIGINT) AS length_ns,
         CAST(SUM(CASE WHEN category = 'cpu' THEN weight_ns ELSE 0 END) AS BIGINT) AS cpu_ns,
         CAST(SUM(CASE WHEN category = 'computation' THEN weight_ns ELSE 0 END) AS BIGINT) AS computation_ns,
         CAST(SUM(CASE WHEN category = 'communication' THEN weight_ns ELSE 0 END) AS BIGINT) AS communication_ns,
         CAST(SUM(CASE WHEN category = 'memory' THEN weight_ns ELSE 0 END) AS BIGINT) AS memory_ns,
         CAST(SUM(CASE WHEN category = 'launch_delay' THEN weight_ns ELSE 0 END) AS BIGINT) AS launch_delay_ns,
         CAST(SUM(CASE WHEN category = 'kernel_gap' THEN weight_ns ELSE 0 END) AS BIGINT) AS kernel_gap_ns,
         COUNT(*) AS edges
  FROM cp_segments
  GROUP BY rank
),
ranked AS (
  SELECT rank, start_ns, end_ns, length_ns, cpu_ns, computation_ns, communication_ns, memory_ns, launch_delay_ns,
         kernel_gap_ns, edges,
         ROW_NUMBER() OVER (ORDER BY length_ns, rank) AS up,
         COUNT(*) OVER () AS ranks
  FROM per_rank
),
middle AS (
  SELECT MIN(length_ns) + MAX(length_ns) AS middle_sum FROM ranked WHERE 2 * up BETWEEN ranks AND ranks + 2
)
SELECT r.rank, r.start_ns, r.end_ns, r.length_ns, r.cpu_ns, r.computation_ns, r.communication_ns, r.memory_ns,
       r.launch_delay_ns, r.kernel_gap_ns, r.end_ns - r.start_ns - r.length_ns AS waiting_ns, r.edges,
       r.length_ns - CAST((m.middle_sum - m.middle_sum % 2) / 2 AS BIGINT) AS over_median_ns
FROM ranked r CROSS JOIN middle m
ORDER BY r.rank
