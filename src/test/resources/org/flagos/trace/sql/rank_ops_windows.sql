-- rank_ops_windows: rank_ops as it was in one query (until 2026-12-07), kept for DuckDbAnalysesTest only: its rows
-- are the ones OpNesting and rank_ops.sql must give. Per rank, the op table: calls, CPU total, self CPU, self and total device time per row.
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
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH device AS (
  SELECT rank, name, dur_ns
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0
    AND cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset')
),
-- the host events and their own device time: rank_ops_hosts.sql, as rank_ops reads them
host AS (
flagtrace_fragment(rank_ops_hosts)
),
numbered AS (
  SELECT h.rank, h.pid, h.tid, h.name, h.ts_ns, h.end_ns, h.end_ns - h.ts_ns AS dur_ns, h.self_device_ns,
         ROW_NUMBER() OVER (PARTITION BY h.rank
                            ORDER BY h.pid, h.tid, h.ts_ns, h.end_ns DESC, h.external_id NULLS LAST, h.name) AS ev,
         LEAD(GREATEST(h.end_ns, h.ts_ns + 1)) OVER (PARTITION BY h.rank
                            ORDER BY h.pid, h.tid, h.ts_ns, h.end_ns DESC, h.external_id NULLS LAST, h.name) AS next_out
  FROM host h
),
-- Nesting without comparing pairs (linear up to a log factor, so 100k ops on one thread take seconds):
-- a later event q of the thread ends p's subtree when it does not lie in p, that is when
-- GREATEST(q.end_ns, q.ts_ns + 1) > p.end_ns (it starts at or after p's end, or crosses it: p then closed).
-- Each event's subtree is the events from it to the first such q (its "removal"), in ev order; its
-- depth is the number of earlier events whose subtree it is in, its parent the latest earlier event
-- one level up. The first q is found level by level over the bits of ev (k, w = 2^k): at level k, the
-- events whose bit k is 0 ask, among the events of the same block of 2w whose bit k is 1, for the
-- least ev that does not lie in them (one window per level; the least over the levels is the answer).
-- An event the next one does not lie in (a leaf, or the thread's last) is removed by that next one
-- (next_out, read in numbered's own window): it only answers. Spark computes every reference to a
-- CTE again (docs/analysis.md, "Op table"): each CTE from threads on is read once but threads (by the
-- search and by steps), and the search carries no more than it needs.
threads AS (
  SELECT rank, pid, tid, name, ts_ns, end_ns, dur_ns, self_device_ns, ev, after_ev,
         CASE WHEN ev + 1 = after_ev OR next_out > end_ns THEN 1 ELSE 0 END AS leaf
  FROM (SELECT rank, pid, tid, name, ts_ns, end_ns, dur_ns, self_device_ns, ev, next_out,
               MAX(ev) OVER (PARTITION BY rank, pid, tid) + 1 AS after_ev
        FROM numbered) n
),
levels AS (
  SELECT k, CAST(POWER(2, k) AS BIGINT) AS w
  FROM (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9), (10), (11), (12), (13), (14), (15),
               (16), (17), (18), (19), (20), (21), (22), (23), (24), (25), (26), (27), (28), (29), (30),
               (31), (32), (33), (34), (35), (36), (37), (38), (39), (40), (41), (42), (43), (44), (45),
               (46), (47), (48), (49), (50), (51), (52)) AS t(k)
),
halves AS (
  SELECT rank, pid, tid, ev, after_ev, k, block, side, v
  FROM (SELECT n.rank, n.pid, n.tid, n.ev, n.after_ev, n.leaf, l.k,
         CAST(FLOOR(n.ev / (2 * l.w)) AS BIGINT) AS block,
         CAST(FLOOR(n.ev / l.w) AS BIGINT) - 2 * CAST(FLOOR(n.ev / (2 * l.w)) AS BIGINT) AS side,
         CASE WHEN CAST(FLOOR(n.ev / l.w) AS BIGINT) - 2 * CAST(FLOOR(n.ev / (2 * l.w)) AS BIGINT) = 0
              THEN n.end_ns ELSE GREATEST(n.end_ns, n.ts_ns + 1) END AS v
        FROM threads n
        JOIN levels l ON l.w < n.after_ev) h
  WHERE side = 1 OR leaf = 0
),
found AS (
  SELECT rank, pid, tid, ev, after_ev, side,
         MIN(CASE WHEN side = 1 THEN ev END) OVER (PARTITION BY rank, pid, tid, k, block
                                                 ORDER BY v DESC, side ASC
                                                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS first_out
  FROM halves
),
removal AS (
  SELECT rank, pid, tid, ev, COALESCE(MIN(first_out), MIN(after_ev)) AS removal_ev
  FROM found
  WHERE side = 0
  GROUP BY rank, pid, tid, ev
),
-- One running sum over the thread's events (ord 1: +1 each, with its own device time) and their
-- removals (ord 0: -1, tagged with the event removed as owner), removals before the event at the same
-- ev: at an event's row, its depth (the sum less its own 1) and the device time of the events before
-- it; at its removal's row, that of the events before its removal. The difference is its device total
-- (its own and its descendants'), so removal is read once, here.
steps AS (
  SELECT t.rank, t.pid, t.tid, t.ev + 1 - s.ord AS at_ev, s.ord, t.ev AS owner, 2 * s.ord - 1 AS delta,
         s.ord * t.self_device_ns AS device_delta,
         t.name, t.ts_ns, t.end_ns, CASE WHEN s.ord = 1 THEN t.dur_ns END AS dur_ns, s.ord * t.self_device_ns AS self_device_ns
  FROM threads t
  CROSS JOIN (VALUES (0), (1)) AS s(ord)
  WHERE s.ord = 1 OR t.leaf = 1
  UNION ALL
  SELECT rank, pid, tid, removal_ev, 0, ev, -1, CAST(0 AS BIGINT),
         '', CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), CAST(NULL AS BIGINT)
  FROM removal
),
depths AS (
  SELECT rank, pid, tid, ord, owner, name, ts_ns, end_ns, dur_ns, self_device_ns,
         SUM(delta) OVER (PARTITION BY rank, pid, tid ORDER BY at_ev, ord
                          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - ord AS depth,
         SUM(device_delta) OVER (PARTITION BY rank, pid, tid ORDER BY at_ev, ord
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - COALESCE(self_device_ns, 0) AS device_before_ns
  FROM steps
),
-- the parent: the latest earlier event of the thread one level up (an event asks at its depth less
-- one, asks = 1); removal rows stay as they are (level -1), for the device total. depths is read once:
-- its rows multiplied by a small VALUES table, not a UNION ALL of several reads.
parent_search AS (
  SELECT d.rank, d.pid, d.tid, d.ord, d.owner, d.name, d.ts_ns, d.end_ns, d.dur_ns, d.self_device_ns,
         d.device_before_ns, a.asks, CASE WHEN d.ord = 1 THEN d.depth - a.asks ELSE -1 END AS level
  FROM depths d
  CROSS JOIN (VALUES (0), (1)) AS a(asks)
  WHERE (d.ord = 1 AND (a.asks = 0 OR d.depth > 0)) OR (d.ord = 0 AND a.asks = 0)
),
parent AS (
  SELECT rank, ord, owner, name, ts_ns, end_ns, dur_ns, self_device_ns, device_before_ns, asks,
         MAX(CASE WHEN asks = 0 AND ord = 1 THEN owner END) OVER (PARTITION BY rank, pid, tid, level ORDER BY owner, asks
                                                                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS parent_ev
  FROM parent_search
),
-- a child's part of its parent's span not covered by its earlier siblings (gaps and islands)
children AS (
  SELECT rank, ord, owner, name, dur_ns, self_device_ns, device_before_ns, asks, parent_ev, ts_ns, end_ns,
         MAX(CASE WHEN asks = 1 THEN end_ns END) OVER (PARTITION BY rank, parent_ev ORDER BY owner, asks
                                                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered_to
  FROM parent
),
-- per event (one GROUP BY): its own row (ord 1, asks 0), its removal's row (ord 0) and its direct
-- children's rows (asks 1, grouped by their parent)
measured AS (
  SELECT rank, MAX(name) AS name, SUM(dur_ns) AS dur_ns, SUM(self_device_ns) AS self_device_ns,
         SUM(CASE WHEN ord = 0 THEN device_before_ns ELSE -device_before_ns END) AS device_total_ns,
         SUM(dur_ns) - SUM(union_ns) AS uncovered_ns
  FROM (SELECT rank, CASE WHEN asks = 1 THEN parent_ev ELSE owner END AS ev, ord,
               CASE WHEN ord = 1 AND asks = 0 THEN name END AS name,
               CASE WHEN ord = 1 AND asks = 0 THEN dur_ns ELSE 0 END AS dur_ns,
               CASE WHEN ord = 1 AND asks = 0 THEN self_device_ns ELSE 0 END AS self_device_ns,
               CASE WHEN asks = 0 THEN device_before_ns ELSE 0 END AS device_before_ns,
               CASE WHEN asks = 0 THEN 0
                    WHEN covered_to IS NULL OR covered_to <= ts_ns THEN dur_ns
                    WHEN end_ns > covered_to THEN end_ns - covered_to
                    ELSE 0 END AS union_ns
        FROM children) c
  GROUP BY rank, ev
)
SELECT rank, 'host' AS kind, name,
       COUNT(*) AS calls,
       CAST(SUM(dur_ns) AS BIGINT) AS cpu_total_ns,
       CAST(SUM(self_device_ns) AS BIGINT) AS self_device_ns,
       CAST(SUM(device_total_ns) AS BIGINT) AS device_total_ns,
       CAST(SUM(CASE WHEN uncovered_ns > 0 THEN uncovered_ns ELSE 0 END) AS BIGINT) AS self_cpu_ns
FROM measured
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
