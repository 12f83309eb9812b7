-- cp_arrivals: step 2 of critical_path (CriticalPath): the collective kernels of the graph that waited for another rank.
-- One collective is the n-th kernel of a kind on a process group on every rank that has it, as the
-- collectives analysis matches them (cp_collectives is that analysis' table, so the two cannot
-- differ). It ends on every rank only once the last rank has started it: among the instance's kernels
-- that are nodes of the graph (cp_events), the last is the latest start (on a tie the lowest rank).
-- A kernel of another rank that started earlier and had not ended by then waited for it: one row per
-- such kernel, with the last rank's kernel (last_rank, last_ev) and its start (last_ns). Its time
-- before last_ns is waiting, after it communication (cp_nodes, cp_cross).
-- Columns: rank, ev, last_rank, last_ev, last_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the tables cp_events and cp_collectives.
WITH nodes_of AS (
  SELECT c.rank, COALESCE(c.process_group, '') AS pg, c.kind, c.instance, c.ts_ns, c.ts_ns + c.dur_ns AS end_ns, MIN(d.ev) AS ev
  FROM cp_collectives c
  JOIN cp_events d ON d.rank = c.rank AND d.side = 'device' AND d.device = c.device AND d.stream = c.stream AND d.name = c.name
                  AND d.ts_ns = c.ts_ns AND d.end_ns = c.ts_ns + c.dur_ns
  GROUP BY c.rank, COALESCE(c.process_group, ''), c.kind, c.instance, c.ts_ns, c.ts_ns + c.dur_ns
),
members AS (
  SELECT rank, pg, kind, instance, ts_ns, end_ns, ev,
         ROW_NUMBER() OVER (PARTITION BY pg, kind, instance ORDER BY ts_ns DESC, rank) AS last
  FROM nodes_of
)
SELECT m.rank, m.ev, l.rank AS last_rank, l.ev AS last_ev, l.ts_ns AS last_ns
FROM members m
JOIN members l ON l.pg = m.pg AND l.kind = m.kind AND l.instance = m.instance AND l.last = 1
WHERE l.rank <> m.rank AND l.ts_ns > m.ts_ns AND l.ts_ns <= m.end_ns
