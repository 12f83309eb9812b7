-- cp_nodes: step 3 of critical_path (CriticalPath): the graph's nodes (the start and the end of every event of cp_events) on their chains.
-- A chain is a host thread (rank, pid, tid) or a device stream (rank, device, stream); its nodes in
-- order (pos) are joined by the chain's edges, each stored on the node it enters (in_type,
-- in_weight, in_ev: the event the time is charged to). Host: HTA's call-stack walk, nodes in time
-- order, ends before starts at one moment, an outer start before an inner one: the edge into a
-- start is the time since the previous node when some event is open (charged to the innermost
-- open event), else a 0 ns dependency (between top-level events); the edge into an end is the time
-- since the previous node, or 0 ns when the event blocks on the device (sync_call). Device: a work
-- item's start to its end (kernel, its time); the previous item's end to the next start is a
-- kernel_gap when shorter than 1.5 ms (HTA's threshold) unless the work waited for its launch
-- (launch-bound: the queue held only it when launched and was empty once it started, and the
-- previous item ended before the call began), which breaks the chain: such a start is entered by
-- a launch edge from its runtime call (launch_from, launch_weight). A collective kernel that waited
-- for another rank to start the same collective (cp_arrivals) weighs only its time after that start:
-- the wait before it is not communication, and cp_cross enters its end from the late rank's start
-- with the same weight. A break starts a new segment
-- (seg); wcum is the running sum of in_weight within the segment. Sums are cast to BIGINT: DuckDB's are
-- HUGEINT (16 bytes), which the window functions after them would carry and sort on for every node.
-- Columns: rank, node (2 ev for a start, 2 ev + 1 for an end), side, c1, c2 (pid, tid or device,
-- stream), seg, pos, ts_ns, in_type, in_weight, in_ev, wcum, launch_from, launch_weight.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the tables events, cp_events and cp_arrivals.
WITH host_nodes AS (
  SELECT rank, ev, pid AS c1, tid AS c2, blocking, 1 AS is_start, ts_ns AS t, end_ns AS other FROM cp_events WHERE side = 'host'
  UNION ALL
  SELECT rank, ev, pid AS c1, tid AS c2, blocking, 0 AS is_start, end_ns AS t, ts_ns AS other FROM cp_events WHERE side = 'host'
),
host_ordered AS (
  SELECT rank, ev, c1, c2, blocking, is_start, t,
         CAST(ROW_NUMBER() OVER (PARTITION BY rank, c1, c2
                                 ORDER BY t, is_start, other DESC, CASE WHEN is_start = 1 THEN ev ELSE -ev END) AS BIGINT) AS pos
  FROM host_nodes
),
host_depth AS (
  SELECT rank, ev, c1, c2, blocking, is_start, t, pos,
         CAST(SUM(CASE WHEN is_start = 1 THEN 1 ELSE -1 END) OVER (PARTITION BY rank, c1, c2 ORDER BY pos
                                                                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) AS open_after
  FROM host_ordered
),
host_open AS (
  SELECT rank, ev, c1, c2, blocking, is_start, t, pos, open_after,
         MAX(CASE WHEN is_start = 1 THEN pos END) OVER (PARTITION BY rank, c1, c2, open_after ORDER BY pos
                                                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS open_pos
  FROM host_depth
),
host_prev AS (
  SELECT o.rank, o.ev, o.c1, o.c2, o.blocking, o.is_start, o.t, o.pos,
         LAG(o.t) OVER (PARTITION BY o.rank, o.c1, o.c2 ORDER BY o.pos) AS prev_t,
         LAG(o.open_after) OVER (PARTITION BY o.rank, o.c1, o.c2 ORDER BY o.pos) AS prev_after,
         LAG(o.open_pos) OVER (PARTITION BY o.rank, o.c1, o.c2 ORDER BY o.pos) AS prev_open_pos
  FROM host_open o
),
host_in AS (
  SELECT p.rank, 2 * p.ev + 1 - p.is_start AS node, 'host' AS side, p.c1, p.c2, p.pos, p.t AS ts_ns,
         CASE WHEN p.prev_t IS NULL THEN NULL
              WHEN p.is_start = 1 AND p.prev_after > 0 THEN 'cpu'
              WHEN p.is_start = 1 THEN 'dependency'
              WHEN p.blocking = 1 THEN 'sync_call'
              ELSE 'cpu' END AS in_type,
         CASE WHEN p.prev_t IS NULL THEN 0
              WHEN p.is_start = 1 AND p.prev_after > 0 THEN GREATEST(p.t - p.prev_t, 0)
              WHEN p.is_start = 1 THEN 0
              WHEN p.blocking = 1 THEN 0
              ELSE GREATEST(p.t - p.prev_t, 0) END AS in_weight,
         CASE WHEN p.prev_t IS NULL OR (p.is_start = 1 AND p.prev_after <= 0) THEN NULL ELSE a.ev END AS in_ev,
         CASE WHEN p.prev_t IS NULL THEN 1 ELSE 0 END AS brk,
         CAST(NULL AS BIGINT) AS launch_from, CAST(NULL AS BIGINT) AS launch_weight
  FROM host_prev p
  LEFT JOIN host_ordered a ON a.rank = p.rank AND a.c1 = p.c1 AND a.c2 = p.c2 AND a.pos = p.prev_open_pos
),
launches AS (
  flagtrace_fragment(launch_calls)
),
work_items AS (
  flagtrace_fragment(device_work)
),
pairs AS (
  SELECT w.rank, w.device, w.stream, w.correlation, w.ts_ns AS start_ns, MIN(l.ts_ns) AS launch_ns
  FROM launches l
  JOIN work_items w ON w.rank = l.rank AND w.correlation = l.correlation
  GROUP BY w.rank, w.device, w.stream, w.correlation, w.ts_ns
),
moves AS (
  SELECT rank, device, stream, launch_ns AS ts_ns, 1 AS delta FROM pairs
  UNION ALL
  SELECT rank, device, stream, start_ns AS ts_ns, -1 AS delta FROM pairs
),
moments AS (
  SELECT rank, device, stream, ts_ns, CAST(SUM(delta) AS BIGINT) AS delta FROM moves GROUP BY rank, device, stream, ts_ns
),
queue_len AS (
  SELECT rank, device, stream, ts_ns,
         CAST(SUM(delta) OVER (PARTITION BY rank, device, stream ORDER BY ts_ns
                               ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) AS q
  FROM moments
),
runtime AS (
  SELECT rank, correlation, MIN(ev) AS ev FROM cp_events WHERE side = 'host' AND correlation IS NOT NULL GROUP BY rank, correlation
),
device_work AS (
  SELECT d.rank, d.ev, d.device, d.stream, d.ts_ns, d.end_ns, r.ev AS runtime_ev, h.ts_ns AS runtime_ns,
         ql.q AS q_launch, qs.q AS q_start,
         CAST(ROW_NUMBER() OVER (PARTITION BY d.rank, d.device, d.stream ORDER BY d.ts_ns, d.end_ns, d.ev) AS BIGINT) AS i,
         LAG(d.end_ns) OVER (PARTITION BY d.rank, d.device, d.stream ORDER BY d.ts_ns, d.end_ns, d.ev) AS prev_end
  FROM cp_events d
  LEFT JOIN runtime r ON r.rank = d.rank AND r.correlation = d.correlation
  LEFT JOIN cp_events h ON h.rank = d.rank AND h.ev = r.ev
  LEFT JOIN pairs p ON p.rank = d.rank AND p.correlation = d.correlation AND p.device = d.device AND p.stream = d.stream
                   AND p.start_ns = d.ts_ns
  LEFT JOIN queue_len ql ON ql.rank = d.rank AND ql.device = d.device AND ql.stream = d.stream AND ql.ts_ns = p.launch_ns
  LEFT JOIN queue_len qs ON qs.rank = d.rank AND qs.device = d.device AND qs.stream = d.stream AND qs.ts_ns = p.start_ns
  WHERE d.side = 'device'
),
device_class AS (
  SELECT rank, ev, device, stream, ts_ns, end_ns, runtime_ev, runtime_ns, i, prev_end,
         CASE WHEN runtime_ev IS NOT NULL AND q_launch = 1 AND q_start = 0 AND (prev_end IS NULL OR prev_end < runtime_ns)
              THEN 1 ELSE 0 END AS launch_bound
  FROM device_work
),
device_in AS (
  SELECT rank, 2 * ev AS node, 'device' AS side, CAST(device AS BIGINT) AS c1, stream AS c2, 2 * i - 1 AS pos, ts_ns,
         CASE WHEN prev_end IS NULL OR launch_bound = 1 OR ts_ns - prev_end >= 1500000 THEN NULL ELSE 'kernel_gap' END AS in_type,
         CASE WHEN prev_end IS NULL OR launch_bound = 1 OR ts_ns - prev_end >= 1500000 THEN 0
              ELSE GREATEST(ts_ns - prev_end, 0) END AS in_weight,
         CAST(NULL AS BIGINT) AS in_ev,
         CASE WHEN prev_end IS NULL OR launch_bound = 1 OR ts_ns - prev_end >= 1500000 THEN 1 ELSE 0 END AS brk,
         CASE WHEN launch_bound = 1 THEN 2 * runtime_ev END AS launch_from,
         CASE WHEN launch_bound = 1 THEN GREATEST(ts_ns - runtime_ns, 0) END AS launch_weight
  FROM device_class
  UNION ALL
  SELECT d.rank, 2 * d.ev + 1 AS node, 'device' AS side, CAST(d.device AS BIGINT) AS c1, d.stream AS c2, 2 * d.i AS pos,
         d.end_ns AS ts_ns, 'kernel' AS in_type, GREATEST(d.end_ns - COALESCE(a.last_ns, d.ts_ns), 0) AS in_weight, d.ev AS in_ev,
         0 AS brk, CAST(NULL AS BIGINT) AS launch_from, CAST(NULL AS BIGINT) AS launch_weight
  FROM device_class d
  LEFT JOIN cp_arrivals a ON a.rank = d.rank AND a.ev = d.ev
),
all_nodes AS (
  SELECT rank, node, side, c1, c2, pos, ts_ns, in_type, CAST(in_weight AS BIGINT) AS in_weight, in_ev, brk, launch_from, launch_weight FROM host_in
  UNION ALL
  SELECT rank, node, side, c1, c2, pos, ts_ns, in_type, CAST(in_weight AS BIGINT) AS in_weight, in_ev, brk, launch_from, launch_weight FROM device_in
),
segmented AS (
  SELECT rank, node, side, c1, c2, pos, ts_ns, in_type, in_weight, in_ev, launch_from, launch_weight,
         CAST(SUM(brk) OVER (PARTITION BY rank, side, c1, c2 ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) AS seg
  FROM all_nodes
)
SELECT rank, node, side, c1, c2, seg, pos, ts_ns, in_type, in_weight, in_ev,
       CAST(SUM(in_weight) OVER (PARTITION BY rank, side, c1, c2, seg ORDER BY pos
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) AS wcum,
       launch_from, launch_weight
FROM segmented
