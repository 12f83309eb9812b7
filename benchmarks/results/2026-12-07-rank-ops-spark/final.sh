#!/usr/bin/env bash
# final.sh: before and after, alternating, each a fresh JVM (run 0 cold, runs 1-2 warm in the same JVM):
# Spark local[2] twice each, then DuckDB twice each; same events.parquet (/tmp/agBH/before).
H="$(dirname "$0")/harness.sh"
for round in 1 2; do
  for v in before final; do echo "== spark $v round $round"; "$H" /tmp/agBH/sql-$v spark 3 /tmp/agBH/before; done
done
for round in 1 2; do
  for v in before final; do echo "== duck $v round $round"; "$H" /tmp/agBH/sql-$v duck 3 /tmp/agBH/before; done
done
