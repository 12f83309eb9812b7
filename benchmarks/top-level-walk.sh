#!/usr/bin/env bash
# The commands that read a whole trace file, cold, as a user runs them (/usr/bin/time -v ./flagtrace ...),
# BEFORE=DIR (a built checkout of an earlier flagtrace) against this checkout, interleaved (before and after
# alternate, and which goes first alternates by round). One line per run.
#   BEFORE=/path/to/old [WHAT="summary merge ranks tables"] benchmarks/top-level-walk.sh TRACE.json [ROUNDS] >> runs.txt
# summary reads TRACE, merge writes TRACE alone as a one-rank merge, summary --ranks and tables read that
# merge (made once, by this checkout, before the first round). A 10M-record trace:
#   ./flagtrace replay BIG.fltrbuf -o TRACE.json (BIG.fltrbuf: benchmarks/gzip-cold.sh says how to make one)
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
trace="$1"; rounds="${2:-3}"; what="${WHAT:-summary merge ranks tables}"; before="${BEFORE:?BEFORE=DIR, a built checkout of the flagtrace to compare with}"
scratch="$(mktemp -d -p "$root/target")"
trap 'rm -rf "$scratch"' EXIT
case " $what " in *" ranks "*|*" tables "*)
  "$root/flagtrace" merge "$trace" -o "$scratch/merged.json" >/dev/null 2>&1 || { echo "merge of $trace failed" >&2; exit 1; }
esac
one() { # label launcher what args...
  local label="$1" launcher="$2" what="$3"; shift 3
  /usr/bin/time -v "$launcher" "$@" >/dev/null 2>"$scratch/time.txt"; rc=$?
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(k=1;k<=n;k++) s=s*60+p[k]; print s}' "$scratch/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$scratch/time.txt")
  user=$(awk -F': ' '/User time/ {print $2}' "$scratch/time.txt")
  sys=$(awk -F': ' '/System time/ {print $2}' "$scratch/time.txt")
  echo "$label $what round=$i wall_s=$wall user_s=$user sys_s=$sys cpu_s=$(echo "$user + $sys" | bc) rss_kib=$rss rc=$rc load=$(cut -d' ' -f1-3 /proc/loadavg)"
  rm -f "$scratch/out.json" "$scratch/out.parquet"
}
both() { # what args...: before and after, the order alternating by round
  if [ $((i % 2)) = 1 ]; then
    one before "$before/flagtrace" "$@"; one after "$root/flagtrace" "$@"
  else
    one after "$root/flagtrace" "$@"; one before "$before/flagtrace" "$@"
  fi
}
for i in $(seq 1 "$rounds"); do
  for w in $what; do
    case "$w" in
      summary) both summary summary "$trace" ;;
      merge) both merge merge "$trace" -o "$scratch/out.json" ;;
      ranks) both ranks summary --ranks "$scratch/merged.json" ;;
      tables) both tables tables "$scratch/merged.json" -o "$scratch/out.parquet" ;;
    esac
  done
done
