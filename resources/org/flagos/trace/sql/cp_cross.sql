-- cp_cross: step 4 of critical_path (CriticalPath): the graph's edges between chains.
-- launch: a launch-bound work item's runtime call start to its start, weighing the time between
-- (HTA's kernel launch delay edge). sync: the end of the last device work on a stream that started
-- before a synchronisation ended to the end of the runtime call that waited, weighing 0 (HTA's sync
-- dependency): a 'Stream Sync' device record (cudaStreamSynchronize) waits for its stream, a
-- 'Context Sync' (cudaDeviceSynchronize) for every stream of the rank; the record names its runtime
-- call by the correlation id. collective: a rank's collective kernel that waited for the last rank to
-- start the same collective (cp_arrivals) is entered at its end from that start, weighing the time
-- between (communication after the last arrival); src_rank is the rank of the edge's source (the
-- edge's own rank for launch and sync), ev the event an edge's time is charged to (the waiting
-- rank's kernel; NULL for launch and sync).
-- Columns: rank, src_rank, src, dst, weight, type (launch, sync, collective), ev.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the tables events, cp_events, cp_nodes and cp_arrivals.
WITH syncs AS (
  SELECT s.rank, s.name, s.device, s.stream, s.ts_ns + s.dur_ns AS end_ns, 2 * r.ev + 1 AS waiter
  FROM events s
  JOIN (SELECT rank, correlation, MIN(ev) AS ev FROM cp_events WHERE side = 'host' AND correlation IS NOT NULL
        GROUP BY rank, correlation) r ON r.rank = s.rank AND r.correlation = s.correlation
  WHERE s.ph = 'X' AND s.dur_ns >= 0 AND s.cat = 'cuda_sync' AND s.name IN ('Stream Sync', 'Context Sync')
),
streams AS (
  SELECT DISTINCT rank, c1, c2 FROM cp_nodes WHERE side = 'device'
),
probes AS (
  SELECT s.rank, CAST(s.device AS BIGINT) AS c1, s.stream AS c2, s.end_ns, s.waiter
  FROM syncs s WHERE s.name = 'Stream Sync'
  UNION ALL
  SELECT s.rank, t.c1, t.c2, s.end_ns, s.waiter
  FROM syncs s JOIN streams t ON t.rank = s.rank WHERE s.name = 'Context Sync'
),
marks AS (
  SELECT rank, c1, c2, ts_ns AS at_ns, 1 AS after_probe, pos, CAST(NULL AS BIGINT) AS waiter
  FROM cp_nodes WHERE side = 'device' AND MOD(pos, 2) = 1
  UNION ALL
  SELECT rank, c1, c2, end_ns AS at_ns, 0 AS after_probe, CAST(NULL AS BIGINT) AS pos, waiter FROM probes
),
last_before AS (
  SELECT rank, c1, c2, waiter,
         MAX(pos) OVER (PARTITION BY rank, c1, c2 ORDER BY at_ns, after_probe
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS start_pos
  FROM marks
)
SELECT n.rank, n.rank AS src_rank, n.node AS src, l.waiter AS dst, CAST(0 AS BIGINT) AS weight, 'sync' AS type,
       CAST(NULL AS BIGINT) AS ev
FROM last_before l
JOIN cp_nodes n ON n.rank = l.rank AND n.side = 'device' AND n.c1 = l.c1 AND n.c2 = l.c2 AND n.pos = l.start_pos + 1
WHERE l.waiter IS NOT NULL
UNION ALL
SELECT rank, rank AS src_rank, launch_from AS src, node AS dst, launch_weight AS weight, 'launch' AS type,
       CAST(NULL AS BIGINT) AS ev
FROM cp_nodes
WHERE launch_from IS NOT NULL
UNION ALL
SELECT a.rank, a.last_rank AS src_rank, 2 * a.last_ev AS src, 2 * a.ev + 1 AS dst, e.end_ns - a.last_ns AS weight,
       'collective' AS type, a.ev
FROM cp_arrivals a
JOIN cp_events e ON e.rank = a.rank AND e.ev = a.ev
