#!/usr/bin/env bash
# The cold CLI as a user runs it: /usr/bin/time -v ./flagtrace ... (JVM start, class loading, the work, the
# file written), with the launcher's class-data archive and without it (FLAGTRACE_CDS=0), runs interleaved
# so that both see the same machine load. With BEFORE=DIR (a checkout of an earlier flagtrace, built), that
# checkout's ./flagtrace runs the same commands as a third column.
#   benchmarks/cli-cold.sh [OUT_DIR]      (RUNS=7 by default; writes cli-cold-runs.txt and cli-cold-summary.txt)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/benchmarks/results/$(date +%F)-vm}"
runs="${RUNS:-7}"
before="${BEFORE:-}"
mkdir -p "$out"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
captures="$root/src/test/resources/captures"

"$root/flagtrace" --version >/dev/null # build and record the archive first: not part of any figure

declare -A cases=(
  [help]="--help"
  [demo]="demo -o $scratch/demo"
  [tiny30k]="replay $captures/h200-tiny30k.fltrbuf.gz --ops $captures/h200-tiny30k.ops.jsonl.gz -o $scratch/t.json"
)
modes=(cds nocds)
[ -n "$before" ] && modes+=(before)

raw="$out/cli-cold-runs.txt"
{
  echo "# cli-cold runs, $(date -u '+%F %T UTC'), $(uname -n)"
  echo "# case mode run wall_s max_rss_kib exit"
} > "$raw"
for i in $(seq 1 "$runs"); do
  for c in help demo tiny30k; do
    for m in "${modes[@]}"; do
      launcher="$root/flagtrace"; cds=1
      [ "$m" = nocds ] && cds=0
      [ "$m" = before ] && launcher="$before/flagtrace"
      set +e
      # shellcheck disable=SC2086
      FLAGTRACE_CDS=$cds /usr/bin/time -v "$launcher" ${cases[$c]} >/dev/null 2>"$scratch/time.txt"
      code=$?
      set -e
      wall="$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(k=1;k<=n;k++) s=s*60+p[k]; print s}' "$scratch/time.txt")"
      rss="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$scratch/time.txt")"
      echo "$c $m $i $wall $rss $code" >> "$raw"
    done
  done
done

summary="$out/cli-cold-summary.txt"
{
  echo "# Cold CLI start: ./flagtrace with the class-data archive (cds), without it (nocds, FLAGTRACE_CDS=0)${before:+, and the CLI before picocli (before)}"
  echo "# date: $(date -u '+%F %T UTC')"
  echo "# machine: $(uname -n), $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  echo "# java: $(java -version 2>&1 | head -2 | tail -1)"
  [ -n "$before" ] && echo "# before: $(git -C "$before" log --oneline -1 | cut -c1-60)... (hand-written parsing, no archive)"
  echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared)"
  echo "# $runs runs of each, interleaved; wall seconds (median, min, max) and peak RSS MiB (median) from /usr/bin/time -v"
  echo "# help    = ./flagtrace --help"
  echo "# demo    = ./flagtrace demo -o DIR (the bundled h200-app capture, 358 trace events)"
  echo "# tiny30k = ./flagtrace replay h200-tiny30k.fltrbuf.gz --ops h200-tiny30k.ops.jsonl.gz -o t.json (30,000 launches, 150,358 trace events)"
  printf '%-8s %-7s %8s %8s %8s %10s %s\n' case mode median_s min_s max_s rss_MiB exit:runs
  for c in help demo tiny30k; do
    for m in "${modes[@]}"; do
      walls="$(awk -v c="$c" -v m="$m" '$1==c && $2==m {print $4}' "$raw" | sort -n)"
      rsss="$(awk -v c="$c" -v m="$m" '$1==c && $2==m {print $5}' "$raw" | sort -n)"
      exits="$(awk -v c="$c" -v m="$m" '$1==c && $2==m {print $6}' "$raw" | sort | uniq -c | awk '{printf "%s%s:%s", (NR>1?",":""), $2, $1}')"
      n="$(echo "$walls" | wc -l)"
      median() { awk -v n="$n" '{v[NR]=$1} END {print (n%2) ? v[(n+1)/2] : (v[n/2]+v[n/2+1])/2}'; }
      printf '%-8s %-7s %8.2f %8.2f %8.2f %10.0f  %s\n' "$c" "$m" "$(echo "$walls" | median)" \
        "$(echo "$walls" | head -1)" "$(echo "$walls" | tail -1)" "$(echo "$rsss" | median | awk '{print $1/1024}')" "$exits"
    done
  done
} > "$summary"
cat "$summary"
