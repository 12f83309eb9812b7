#!/usr/bin/env bash
# cap.sh B W: after run.sh's setup (W/big.json, W/big.parquet), summary --json of the 2.1 GB trace on every core by
# main without and with the cap of 4 scanning threads (B/flagtrace.jar, B/flagtrace-cap4.jar), report -o with it, and
# DuckDB's flat query, interleaved, ROUNDS (3) rounds; the same flags as run.sh. Lines to W/cap.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=$(cd "$1" && pwd); W=$(cd "$2" && pwd); cd "$W"
LOG=cap.txt
source "$here/common.sh"
echo "machine: $(nproc) cores; start $(date -u +%T)" >> cap.txt
for n in $(seq 1 "${ROUNDS:-3}"); do
  measure summary-16threads-$n "$java" "${flags[@]}" -cp "$B/flagtrace.jar$lib" org.flagos.trace.cli.FlagtraceCli summary --json S-16.json big.json
  measure summary-cap4-$n "$java" "${flags[@]}" -cp "$B/flagtrace-cap4.jar$lib" org.flagos.trace.cli.FlagtraceCli summary --json S-4.json big.json
  measure report-cap4-$n "$java" "${flags[@]}" -cp "$B/flagtrace-cap4.jar$lib" org.flagos.trace.cli.FlagtraceCli report -o R-4.html big.json
  measure duck-flat-$n "$java" -cp "$B/tc$lib" SummaryDuckDb big.parquet "$B/summary-duckdb-flat.sql" flat-$n.tsv
  cmp S-16.json S-4.json >> cap.txt 2>&1 && echo "round $n: summary JSON identical with and without the cap" >> cap.txt
done
echo "end $(date -u +%T)" >> cap.txt
