#!/bin/bash
# summary and report against DuckDB on the same events, cold, interleaved (docs/benchmarks.md,
# "summary against DuckDB on both cores"; results in benchmarks/results/2026-12-07-summary-duckdb/).
#
# usage: benchmarks/summary-duckdb.sh DATA RESULTS BEFORE AFTER ROUNDS
#   DATA    holds big.json (the trace) and big.parquet (flagtrace tables big.json -o big.parquet)
#   BEFORE, AFTER  two flagtrace launchers (each a copy of the launcher beside its target/flagtrace.jar,
#           target/lib and class-data archive, so each runs as a user runs it)
# Each round runs, in an order that alternates from round to round: summary --json by BEFORE and by AFTER,
# report -o by BEFORE and by AFTER, and DuckDB's flat op table (benchmarks/summary-duckdb-flat.sql) over
# big.parquet through benchmarks/SummaryDuckDb.java; each under `nice -n 10 /usr/bin/time -v`, the load
# average before and after in NAME-N.load. The summary --json outputs of a round are compared with cmp.
# DuckDB's run of the rule itself (rank_ops.sql) is left to a separate call (step duck-rule), as it takes
# minutes.
set -u
data=$1; res=$2; before=$3; after=$4; rounds=$5
here="$(cd "$(dirname "$0")" && pwd)"; root="$(dirname "$here")"
duck_cp="$root/target/bench/duckdb:$(ls "$root"/target/lib/duckdb_jdbc-*.jar)"
mkdir -p "$root/target/bench/duckdb" "$res"
javac -d "$root/target/bench/duckdb" "$here/SummaryDuckDb.java"
timed() { # NAME N command...
  local name=$1 n=$2; shift 2
  cat /proc/loadavg > "$res/$name-$n.load"
  (cd "$data" && nice -n 10 /usr/bin/time -v "$@" > "$res/$name-$n.out" 2> "$res/$name-$n.time")
  cat /proc/loadavg >> "$res/$name-$n.load"
}
step() { # STEP N
  case $1 in
    summary-before) timed summary-before "$2" "$before" summary --json S-before.json big.json ;;
    summary-after) timed summary-after "$2" "$after" summary --json S-after.json big.json ;;
    report-before) timed report-before "$2" "$before" report -o R-before.html big.json ;;
    report-after) timed report-after "$2" "$after" report -o R-after.html big.json ;;
    duck-flat) timed duck-flat "$2" java -cp "$duck_cp" SummaryDuckDb big.parquet "$here/summary-duckdb-flat.sql" flat.tsv ;;
    duck-rule) timed duck-rule "$2" java -cp "$duck_cp" SummaryDuckDb big.parquet "$root/src/test/resources/org/flagos/trace/sql/rank_ops_windows.sql" rule.tsv ;;
  esac
}
if [ "$rounds" = rule ]; then step duck-rule 2; exit; fi
for n in $(seq 1 "$rounds"); do
  if [ $((n % 2)) = 1 ]; then order="summary-before summary-after duck-flat report-after report-before"
  else order="summary-after summary-before report-before report-after duck-flat"; fi
  for s in $order; do step "$s" "$n"; done
  cmp "$data/S-before.json" "$data/S-after.json" > "$res/summary-pair$n.cmp" 2>&1 && echo "identical" >> "$res/summary-pair$n.cmp"
  python3 "$here/summary-duckdb-compare.py" "$data/S-after.json" "$data/flat.tsv" > "$res/duck-flat-rows$n.cmp" 2>&1
done
