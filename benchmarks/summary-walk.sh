#!/bin/bash
# summary's walk (issue 32 item 3): summary --json and report -o of two builds, and DuckDB's flat op table over the same
# events, cold, interleaved; then the table of every run (docs/benchmarks.md, "summary's walk from the bytes";
# results in benchmarks/results/2026-12-07-summary-walk/).
#
# usage: BEFORE=DIR AFTER=DIR ROUNDS=N DATA=DIR [RESULTS=DIR] benchmarks/summary-walk.sh
#   BEFORE, AFTER  two checkouts, each built by its own launcher (run `./flagtrace --version` in each first), so each
#                  runs as a user runs it (its jar, target/lib and class-data archive)
#   DATA           holds big.json, the trace (SyntheticCapture s10m.fltrbuf 10000000, then flagtrace replay -o big.json);
#                  big.parquet (DuckDB's input) is written there by AFTER's `flagtrace tables` when missing
#   RESULTS        where each run's files go (default: benchmarks/results/<today>-summary-walk)
# The rounds are benchmarks/summary-duckdb.sh's (its order alternates from round to round; each run under
# `nice -n 10 /usr/bin/time -v`, /proc/loadavg before and after in NAME-N.load; the two summary --json files cmp'd in
# summary-pairN.cmp, the printed tables in summary-textN.cmp, DuckDB's rows against summary's in duck-flat-rowsN.cmp); the table: summary-walk-table.py.
set -eu
: "${BEFORE:?a built checkout}" "${AFTER:?a built checkout}" "${ROUNDS:?rounds}" "${DATA:?the folder of big.json}"
here="$(cd "$(dirname "$0")" && pwd)"
RESULTS="${RESULTS:-$here/results/$(date -u +%F)-summary-walk}"
mkdir -p "$RESULTS"
if [ ! -f "$DATA/big.parquet" ]; then
  (cd "$DATA" && /usr/bin/time -v "$AFTER/flagtrace" tables big.json -o big.parquet > "$RESULTS/tables.out" 2> "$RESULTS/tables.time")
fi
(cd "$BEFORE" && git log --oneline -1) > "$RESULTS/builds.txt"
(cd "$AFTER" && git log --oneline -1) >> "$RESULTS/builds.txt"
"$here/summary-duckdb.sh" "$DATA" "$RESULTS" "$BEFORE/flagtrace" "$AFTER/flagtrace" "$ROUNDS"
for n in $(seq 1 "$ROUNDS"); do # the printed table: the same but for the line naming the JSON file written
  cmp <(grep -v '^wrote ' "$RESULTS/summary-before-$n.out") <(grep -v '^wrote ' "$RESULTS/summary-after-$n.out") \
    > "$RESULTS/summary-text$n.cmp" 2>&1 && echo identical >> "$RESULTS/summary-text$n.cmp"
done
python3 "$here/summary-walk-table.py" "$RESULTS" | tee "$RESULTS/table.md"
