#!/usr/bin/env bash
# The cold CLI on large inputs as a user meets it (/usr/bin/time -v ./flagtrace ..., JVM start and the file
# written included), rounds interleaved: per round the 10M-record replay and the 1M-record replay at
# FLAGTRACE_JAVA_OPTS=-Xmx256m under taskset -c 0,1 (docs/benchmarks.md's recipe), the 1M replay at the
# launcher's default heap, then `summary` of the 1M replay's JSON and of the 10M replay's JSON (torch-compatible
# traces of 225 MB and 2.1 GB; launcher defaults, no taskset). Every run's whole output goes to RAW_DIR.
#   benchmarks/cold-cli-recheck.sh CAPTURE_DIR RAW_DIR [ROUNDS] [LAUNCHER]
# CAPTURE_DIR holds s10m.fltrbuf and s1m.fltrbuf (with their .names.tsv), made by SyntheticCapture:
#   java -Xmx1g -cp "target/test-classes:target/classes:target/lib/*" org.flagos.trace.testing.SyntheticCapture DIR/s10m.fltrbuf 10000000
#   (and DIR/s1m.fltrbuf 1000000); the traces are written into CAPTURE_DIR too.
# With BEFORE=DIR (a built checkout of an earlier flagtrace) each command runs with that checkout's launcher and
# with LAUNCHER's in turn, which goes first alternating by round. WHAT picks the cases, from replay10m-256m,
# replay10m-256m-nocds (FLAGTRACE_CDS=0), replay10m-null (-o /dev/null), replay1m-256m, replay1m-default, summary1m,
# summary10m (the summaries read the replays' outputs: run those first). Results of 2026-12-03:
# benchmarks/results/2026-12-03-vm/cold-cli-recheck/.
# One line per run on stdout: side label round wall_s user_s sys_s cpu_s rss_kib rc load (load: /proc/loadavg
# just before the run; on 2 cores the previous run's own threads are part of it).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cap="$(cd "$1" && pwd)"; raw="$2"; rounds="${3:-3}"; launcher="${4:-$root/flagtrace}"
what="${WHAT:-replay10m-256m replay1m-256m replay1m-default summary1m summary10m}"
before="${BEFORE:-}"
mkdir -p "$raw"; raw="$(cd "$raw" && pwd)"
"$launcher" --version >/dev/null # build and record the class-data archive first: not part of any figure
[ -z "$before" ] || "$before/flagtrace" --version >/dev/null
one() { # side label round env... -- args...
  local side="$1" label="$2" round="$3"; shift 3
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  local file="$raw/$side.$label.round$round.txt" load
  load="$(cut -d' ' -f1-3 /proc/loadavg)"
  {
    echo "# $(date -u '+%F %T UTC') load $load"
    echo "# ${envs[*]} /usr/bin/time -v $*"
  } > "$file"
  (cd "$cap" && env "${envs[@]}" /usr/bin/time -v "$@" >> "$file" 2>&1); local rc=$?
  local wall user sys rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(k=1;k<=n;k++) s=s*60+p[k]; print s}' "$file")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$file")
  user=$(awk -F': ' '/User time/ {print $2}' "$file")
  sys=$(awk -F': ' '/System time/ {print $2}' "$file")
  echo "$side $label round=$round wall_s=$wall user_s=$user sys_s=$sys cpu_s=$(echo "$user + $sys" | bc) rss_kib=$rss rc=$rc load=$load"
}
case1() { # side launcher case round
  local side="$1" l="$2" c="$3" r="$4"
  case "$c" in
    replay10m-256m) one "$side" "$c" "$r" FLAGTRACE_JAVA_OPTS=-Xmx256m -- taskset -c 0,1 "$l" replay s10m.fltrbuf -o "t10m.$side.json" ;;
    replay1m-256m) one "$side" "$c" "$r" FLAGTRACE_JAVA_OPTS=-Xmx256m -- taskset -c 0,1 "$l" replay s1m.fltrbuf -o "t1m.$side.json" ;;
    replay1m-default) one "$side" "$c" "$r" -- "$l" replay s1m.fltrbuf -o "t1m-default.$side.json" ;;
    replay10m-256m-nocds) one "$side" "$c" "$r" FLAGTRACE_CDS=0 FLAGTRACE_JAVA_OPTS=-Xmx256m -- taskset -c 0,1 "$l" replay s10m.fltrbuf -o "t10m.$side.json" ;;
    replay10m-null) one "$side" "$c" "$r" FLAGTRACE_JAVA_OPTS=-Xmx256m -- taskset -c 0,1 "$l" replay s10m.fltrbuf -o /dev/null ;;
    summary1m) one "$side" "$c" "$r" -- "$l" summary "t1m.$side.json" ;;
    summary10m) one "$side" "$c" "$r" -- "$l" summary "t10m.$side.json" ;;
  esac
}
for i in $(seq 1 "$rounds"); do
  for c in $what; do
    if [ -z "$before" ]; then
      case1 head "$launcher" "$c" "$i"
    elif [ $((i % 2)) = 1 ]; then
      case1 before "$before/flagtrace" "$c" "$i"; case1 head "$launcher" "$c" "$i"
    else
      case1 head "$launcher" "$c" "$i"; case1 before "$before/flagtrace" "$c" "$i"
    fi
  done
done
