#!/usr/bin/env bash
# run.sh B W: summary --json and report -o of the 2.1 GB synthetic trace by two builds, and DuckDB's flat op table over
# the same events, cold, interleaved, on a many-core machine (the device machine): ../2026-12-07-summary-forms/'s rounds
# there. B: jre/ (jlinked), lib/ (the CLI's jars), flagtrace.jar (after), flagtrace-before.jar, tc/ (the test
# classes' org/flagos/trace/testing, SummaryDuckDb.class, captures/h200-tiny30k.* that SyntheticCapture repeats and an
# empty captures/h200-app.fltrbuf by which it finds that folder), summary-duckdb-flat.sql. lib/ must hold the JavaCPP
# jars too (javacpp and cuda's classes: replay loads them). W: work folder. The JVM flags are the
# launcher's for summary on a machine of more than 2 cores (its default collector; -Xmx2g; the JIT's flags); no
# class-data archive (none is carried): every run starts the same way. Each run's wall, CPU (user + sys of the child,
# getrusage) and max RSS go to W/steps.txt. ROUNDS (3) rounds on every core, then one on 2 cores (taskset, serial
# collector, as the launcher runs on the 2-core VM). RECORDS: the capture's records (10,000,000);
# TWO_CORES=0 leaves out the round on 2 cores (ROUNDS=0 TWO_CORES=0: the setup only, for cap.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=$(cd "$1" && pwd); W=$(mkdir -p "$2" && cd "$2" && pwd); cd "$W"
LOG=steps.txt
source "$here/common.sh"
echo "machine: $(nproc) cores, $(awk '/^MemTotal/ {print int($2/1048576)}' /proc/meminfo) GiB; $($java -version 2>&1 | head -1); start $(date -u +%T)" > steps.txt
measure gen "$java" -cp "$B/tc:$B/flagtrace.jar$lib" org.flagos.trace.testing.SyntheticCapture s10m.fltrbuf "${RECORDS:-10000000}"
measure replay "$java" "${flags[@]}" -cp "$B/flagtrace.jar$lib" org.flagos.trace.cli.FlagtraceCli replay s10m.fltrbuf -o big.json
rm -f s10m.fltrbuf
measure tables "$java" "${flags[@]}" -cp "$B/flagtrace.jar$lib" org.flagos.trace.cli.FlagtraceCli tables big.json -o big.parquet
ls -la big.json big.parquet >> steps.txt
round() { # N PREFIX...: one round, PREFIX before each command (taskset and a collector, or nothing)
  local n=$1; shift
  for b in before after; do
    jar=$B/flagtrace.jar; [ $b = before ] && jar=$B/flagtrace-before.jar
    measure summary-$b-$n "$@" "$java" "${flags[@]}" $GC -cp "$jar$lib" org.flagos.trace.cli.FlagtraceCli summary --json S-$b.json big.json
    measure report-$b-$n "$@" "$java" "${flags[@]}" $GC -cp "$jar$lib" org.flagos.trace.cli.FlagtraceCli report -o R-$b.html big.json
  done
  measure duck-flat-$n "$@" "$java" $GC -cp "$B/tc$lib" SummaryDuckDb big.parquet "$B/summary-duckdb-flat.sql" flat-$n.tsv
  cmp R-before.html R-after.html >> steps.txt 2>&1 && echo "round $n: report pages identical" >> steps.txt
  python3 -c '
import json, sys
def strip(x):
    if isinstance(x, dict): return {k: strip(v) for k, v in x.items() if k != "spilled_bytes"}
    if isinstance(x, list): return [strip(v) for v in x]
    return x
a, b = (json.load(open(f)) for f in sys.argv[1:3])
print("round %s: summary JSON the same but spilled_bytes: %s" % (sys.argv[3], strip(a) == strip(b)))
' S-before.json S-after.json "$n" >> steps.txt
}
GC=""
for n in $(seq 1 "${ROUNDS:-3}"); do round "$n"; done
if [ "${TWO_CORES:-1}" = 1 ]; then
  GC="-XX:+UseSerialGC"
  round 2cores taskset -c 0,1
fi
echo "end $(date -u +%T)" >> steps.txt
