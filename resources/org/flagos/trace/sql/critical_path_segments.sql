-- critical_path_segments: per rank, every edge of the critical path in order (HTA's critical path breakdown), ns.
-- The longest path through the graph of host calls, device work, launches and syncs (critical_path,
-- docs/analysis.md), one row per edge: type cpu, dependency, sync_call, kernel, kernel_gap, launch
-- or sync; category cpu, computation, communication, memory, launch_delay, kernel_gap or waiting;
-- the event the time is charged to (name: NULL for edges between events), its thread (pid, tid) or
-- stream (device, stream), and the edge's start, end and weight (the time it adds to the path); on_rank
-- is the rank whose thread or stream that is (another rank's where a collective led the path there).
-- Columns: rank, seq, type, category, name, pid, tid, device, stream, start_ns, end_ns, weight_ns, on_rank.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over cp_segments (CriticalPath's steps over the table events).
SELECT rank, seq, type, category, name, pid, tid, device, stream, start_ns, end_ns, weight_ns, on_rank
FROM cp_segments
ORDER BY rank, seq
