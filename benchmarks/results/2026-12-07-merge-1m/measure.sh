#!/bin/bash
# Cold `flagtrace merge` of the 8 ranks, before against after, interleaved, as the user runs it (issue 32 item 3).
#   BEFORE=dir AFTER=dir ROUNDS=n DATA=dir [RESULTS=dir] [TAG=name] measure.sh
# NICE=n runs each under nice -n n (default: as a user runs it, no nice).
# BEFORE, AFTER: checkouts, each built by its own launcher (./flagtrace: jar, target/lib, class-data archive).
# DATA: holds r8/r0.json .. r8/r7.json (benchmarks/merge-ranks.py t30k.json r8 8 6; see README.md).
# Each run: /usr/bin/time -v of the launcher (CPU = user + sys, the JVM's start and JIT included), /proc/loadavg and
# `uptime` before and after, into RESULTS/merge-WHO-TAGN.{time,out,load}; each round's outputs compared with cmp
# (RESULTS/round-TAGN.cmp), then deleted before the next run. Prints one line per round: CPU before, after (user + sys),
# their ratio, events per CPU second, the load average before each.
set -u
: "${BEFORE:?a checkout of main, built}" "${AFTER:?the checkout measured, built}" "${DATA:?the folder holding r8/}"
ROUNDS=${ROUNDS:-3}
TAG=${TAG:-r}
RESULTS=${RESULTS:-$(cd "$(dirname "$0")" && pwd)}
ins=(); for r in 0 1 2 3 4 5 6 7; do ins+=("r8/r$r.json"); done
run() { # WHO DIR N
  local who=$1 dir=$2 n=$3 base="$RESULTS/merge-$1-$TAG$3"
  rm -f "$DATA/M-$who.json" # a fresh output, as a first merge writes it: replacing 1.5 GB of an earlier one costs sys time
  { cat /proc/loadavg; uptime; } > "$base.load"
  (cd "$DATA" && ${NICE:+nice -n $NICE} /usr/bin/time -v "$dir/flagtrace" merge "${ins[@]}" -o "M-$who.json" > "$base.out" 2> "$base.time")
  { cat /proc/loadavg; uptime; } >> "$base.load"
}
cpu() { awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u + s}' "$1"; }
us() { awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%s + %s", u, s}' "$1"; }
for n in $(seq 1 "$ROUNDS"); do
  run before "$BEFORE" "$n"
  run after "$AFTER" "$n"
  if cmp -s "$DATA/M-before.json" "$DATA/M-after.json"; then echo IDENTICAL; else echo DIFFER; fi > "$RESULTS/round-$TAG$n.cmp"
  rm -f "$DATA/M-before.json" "$DATA/M-after.json"
  b=$(cpu "$RESULTS/merge-before-$TAG$n.time"); a=$(cpu "$RESULTS/merge-after-$TAG$n.time")
  echo "round $TAG$n: before $b s ($(us "$RESULTS/merge-before-$TAG$n.time")), after $a s ($(us "$RESULTS/merge-after-$TAG$n.time")), after/before $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", a / b}'),"\
    "events per CPU s after $(awk -v a="$a" 'BEGIN {printf "%.0f", 8657904 / a}'), $(cat "$RESULTS/round-$TAG$n.cmp"),"\
    "load $(head -1 "$RESULTS/merge-before-$TAG$n.load" | cut -d' ' -f1-3) / $(head -1 "$RESULTS/merge-after-$TAG$n.load" | cut -d' ' -f1-3)"
done
