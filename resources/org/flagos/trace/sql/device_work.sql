-- device_work: the device work (kernels, copies, sets) with a correlation id, as queue_length and the critical path's
-- cp_nodes pair it with its launch call (a part of both: Analyses.load puts it where a query names it in the
-- fragment marker, Analyses.FRAGMENT_MARKER).
-- Columns: rank, correlation, device, stream, ts_ns.
-- Portable SQL (DuckDB and Spark SQL run it unchanged) over the table events (docs/tables.md).
SELECT rank, correlation, device, stream, ts_ns
  FROM events
  WHERE ph = 'X' AND dur_ns >= 0 AND correlation IS NOT NULL
    AND cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset')
