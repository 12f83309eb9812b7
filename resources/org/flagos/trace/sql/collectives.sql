-- collectives: one row per collective kernel per rank: its kind, message bytes, duration, algorithm bandwidth and skew across ranks, ns.
-- A collective kernel is a collective library's kernel (the one rule of docs/analysis.md). Its kind
-- comes from its name, read in lower case without underscores: all_reduce, all_gather,
-- reduce_scatter, all_to_all, send_recv, broadcast, reduce, send, recv, else other (the rule and the
-- element sizes of torch's dtype names live in CollectiveKernels, put here by the loader). Its message is
-- what torch records in the kernel's args (in_elems, out_elems, dtype, group_size, process_group of
-- the events table): bytes is the larger of the elements in and out times the element size of dtype
-- (nccl-tests' message size: an all-reduce's buffer, an all-gather's output, a reduce-scatter's
-- input), NULL where the args carry no size or an unknown dtype; algbw_bytes_per_s is
-- floor(bytes * 10^9 / dur_ns), exact, NULL without bytes or for 0 ns. Instance n of a kind on a
-- process group is a rank's n-th such kernel in start order (then end, correlation id); the same
-- instance on every rank is one collective: ranks (how many have it), start_skew_ns (latest start
-- less earliest), end_skew_ns (latest end less earliest), late_ns (this rank's start less the
-- earliest). Kernels without a process group share one, NULL.
-- Columns: rank, process_group, kind, instance, name, device, stream, ts_ns, dur_ns, dtype, group_size,
-- in_elems, out_elems, bytes, algbw_bytes_per_s, ranks, start_skew_ns, end_skew_ns, late_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
WITH comm AS (
  SELECT rank, device, stream, name, ts_ns, dur_ns, ts_ns + dur_ns AS end_ns, correlation,
         process_group, COALESCE(process_group, '') AS pg, dtype, group_size, in_elems, out_elems,
         flagtrace_collective_kind(name) AS kind,
         CASE WHEN in_elems IS NULL THEN out_elems
              WHEN out_elems IS NULL OR in_elems >= out_elems THEN in_elems
              ELSE out_elems END AS elems,
         flagtrace_element_bytes(dtype) AS element_bytes
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0 AND cat IN ('kernel', 'Kernel') AND flagtrace_is_communication(name)
),
kinded AS (
  SELECT rank, device, stream, name, ts_ns, dur_ns, end_ns, correlation, process_group, pg, dtype, group_size,
         in_elems, out_elems,
         CASE WHEN elems >= 0 THEN CAST(elems AS BIGINT) * element_bytes END AS bytes,
         kind
  FROM comm
),
numbered AS (
  SELECT rank, device, stream, name, ts_ns, dur_ns, end_ns, process_group, pg, dtype, group_size, in_elems, out_elems,
         bytes, kind,
         ROW_NUMBER() OVER (PARTITION BY rank, pg, kind ORDER BY ts_ns, end_ns, correlation NULLS LAST, name) AS instance,
         CASE WHEN bytes IS NOT NULL AND dur_ns > 0
              THEN CAST(FLOOR(CAST(bytes AS DOUBLE) * CAST(1000000000 AS DOUBLE) / CAST(dur_ns AS DOUBLE)) AS BIGINT) END AS q,
         CAST(bytes AS DECIMAL(38, 0)) * CAST(1000000000 AS DECIMAL(38, 0)) AS scaled
  FROM kinded
),
across AS (
  SELECT pg, kind, instance, COUNT(*) AS ranks,
         MIN(ts_ns) AS first_start_ns, MAX(ts_ns) AS last_start_ns, MIN(end_ns) AS first_end_ns, MAX(end_ns) AS last_end_ns
  FROM numbered
  GROUP BY pg, kind, instance
)
SELECT n.rank, n.process_group, n.kind, n.instance, n.name, n.device, n.stream, n.ts_ns, n.dur_ns, n.dtype, n.group_size,
       n.in_elems, n.out_elems, n.bytes,
       CASE WHEN n.q IS NULL THEN CAST(NULL AS BIGINT)
            ELSE n.q - (CASE WHEN CAST(n.q AS DECIMAL(38, 0)) * CAST(n.dur_ns AS DECIMAL(38, 0)) > n.scaled THEN 1 ELSE 0 END)
                     + (CASE WHEN CAST(n.q + 1 AS DECIMAL(38, 0)) * CAST(n.dur_ns AS DECIMAL(38, 0)) <= n.scaled THEN 1 ELSE 0 END)
       END AS algbw_bytes_per_s,
       a.ranks, a.last_start_ns - a.first_start_ns AS start_skew_ns, a.last_end_ns - a.first_end_ns AS end_skew_ns,
       n.ts_ns - a.first_start_ns AS late_ns
FROM numbered n
JOIN across a ON a.pg = n.pg AND a.kind = n.kind AND a.instance = n.instance
ORDER BY n.pg, n.kind, n.instance, n.rank
