#!/usr/bin/env bash
# .json against .json.gz as a user runs them: /usr/bin/time -v ./flagtrace replay CAPTURE -o t.EXT, interleaved,
# with BEFORE=DIR (a built checkout of an earlier flagtrace) as more columns; GZ_ONLY=1 runs the .json.gz
# pair only (a loaded machine). One line per run.
#   benchmarks/gzip-cold.sh CAPTURE.fltrbuf [RUNS] >> runs.txt
# A 10M-record capture: java -cp target/test-classes:target/classes:$(deps) org.flagos.trace.testing.SyntheticCapture BIG.fltrbuf 10000000
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
capture="$1"; runs="${2:-3}"; before="${BEFORE:-}"
scratch="$(mktemp -d -p "$root/target")"
trap 'rm -rf "$scratch"' EXIT
one() { # label launcher ext
  /usr/bin/time -v "$2" replay "$capture" -o "$scratch/t.$3" >/dev/null 2>"$scratch/time.txt"; rc=$?
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(k=1;k<=n;k++) s=s*60+p[k]; print s}' "$scratch/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$scratch/time.txt")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$scratch/time.txt")
  echo "$1 $3 run=$i wall_s=$wall cpu_s=$cpu rss_kib=$rss bytes=$(stat -c %s "$scratch/t.$3") rc=$rc load=$(cut -d' ' -f1 /proc/loadavg)"
  rm -f "$scratch/t.$3"
}
for i in $(seq 1 "$runs"); do
  [ -n "$before" ] && [ -z "${GZ_ONLY:-}" ] && one before "$before/flagtrace" json
  one after "$root/flagtrace" json.gz
  [ -n "$before" ] && one before "$before/flagtrace" json.gz
  [ -z "${GZ_ONLY:-}" ] && one after "$root/flagtrace" json
done
