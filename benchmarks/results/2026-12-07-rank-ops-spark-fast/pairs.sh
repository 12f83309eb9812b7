#!/usr/bin/env bash
# pairs.sh N: N interleaved pairs (before, after) on Spark, then N on DuckDB, each a fresh JVM (cold.sh); logs here.
here="$(cd "$(dirname "$0")" && pwd)"
for i in $(seq 1 "$1"); do
  for w in before after; do "$here/cold.sh" $w spark /tmp/agBU/o/spark-$w-$i > "$here/spark-$i-$w.txt" 2>&1; done
done
for i in $(seq 1 "$1"); do
  for w in before after; do "$here/cold.sh" $w duckdb /tmp/agBU/o/duck-$w-$i > "$here/duckdb-$i-$w.txt" 2>&1; done
done
