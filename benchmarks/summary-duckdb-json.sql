-- DuckDB reading the trace JSON itself (no Parquet): the events array of the one top-level object,
-- unnested, counted by category. The trace is one JSON object on one line, so DuckDB's JSON reader must
-- take the whole object as one value (maximum_object_size past the file's size).
SELECT e.cat, COUNT(*) AS events
FROM (SELECT unnest(traceEvents) AS e FROM read_json('TRACE', maximum_object_size = 4000000000,
      columns = {traceEvents: 'STRUCT(ph VARCHAR, cat VARCHAR, name VARCHAR, ts DOUBLE, dur DOUBLE)[]'}))
GROUP BY e.cat
ORDER BY e.cat
