#!/usr/bin/env bash
# [ROUTE=ranks] [RUNS="2cores rest"] [ONLY=a,b] [MEMORY=1g] run.sh B W [RANKS EVENTS STRAGGLER]: `analyze` of a 64-rank x 1M-event synthetic job on a many-core machine (the device machine), as the
# launcher runs it (-Xmx256m, -Dflagtrace.analyze.memory=1g; the serial collector where it sees 2 cores).
# B: a folder with jre/, lib/ (the CLI's jars), flagtrace.jar and flagtrace-bench.jar (SyntheticJob); W: work folder.
# 1. SyntheticJob writes 64 torch traces of 1M events (straggler rank 41), `merge`, then `tables` -> events.parquet,
#    as ../2026-12-06-analyze-64x1m-2/prep.sh does on the VM.
#    ROUTE=ranks instead: one cold `tables --partition-by-rank` JVM per trace, as many at once as cores, into parts/
#    (rank=N/ folders, the per-host route; minutes less on a many-core machine).
# 2. `analyze` twice at once: on 2 cores (taskset, as the 2-core VM) and on the other cores; RUNS names which;
#    ONLY is passed to analyze as --only (all analyses without it); MEMORY is its -Dflagtrace.analyze.memory (1g,
#    the launcher's).
# Each step's wall, CPU and max RSS (getrusage of the child) go to W/steps.txt; VmHWM/VmRSS and DuckDB's
# database/temporary folder sizes every 10 s to W/monitor-*.txt.
set -u
B=$(cd "$1" && pwd); W=$(mkdir -p "$2" && cd "$2" && pwd); R=${3:-64}; E=${4:-1000000}; S=${5:-41}; mkdir -p "$W/tmp"; cd "$W"
java=$B/jre/bin/java; cp="$B/flagtrace.jar"; for j in "$B"/lib/*.jar; do cp="$cp:$j"; done
cores=$(nproc)
measure() { # measure NAME CMD...: runs CMD (its output in NAME.log), appends "NAME rc wall user sys maxrss" to steps.txt
  local name=$1; shift
  python3 -c '
import resource, subprocess, sys, time
t = time.time(); rc = subprocess.call(sys.argv[2:], stdout=open(sys.argv[1] + ".log", "w"), stderr=subprocess.STDOUT)
w = time.time() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%s rc=%d wall=%.1fs user=%.1fs sys=%.1fs maxrss=%dKB" % (sys.argv[1], rc, w, u.ru_utime, u.ru_stime, u.ru_maxrss))
sys.exit(rc)
' "$name" "$@" >> steps.txt || { echo "$name failed" >> steps.txt; exit 1; }
}
monitor() { # monitor NAME PIDFILE: samples the java child's memory and DuckDB's files until it ends
  local name=$1 pidf=$2 p
  while [ ! -s "$pidf" ]; do sleep 1; done
  p=$(cat "$pidf")
  while kill -0 "$p" 2>/dev/null; do
    for c in $(pgrep -P "$p") "$p"; do
      if [ "$(cat /proc/$c/comm 2>/dev/null)" = java ]; then
        echo "$(date -u +%T) $(grep -E 'VmHWM|VmRSS' /proc/$c/status 2>/dev/null | tr -s ' \n' ' ') tmp=$(du -sm "$W/tmp-$name" 2>/dev/null | cut -f1)MB"
      fi
    done
    sleep 10
  done >> "monitor-$name.txt"
}
echo "machine: $cores cores, $(awk '/^MemTotal/ {print int($2/1048576)}' /proc/meminfo) GiB; $($java -version 2>&1 | head -1); start $(date -u +%T)" > steps.txt
route=${ROUTE:-merged}
if [ "$route" = ranks ]; then
  events=parts
  if [ ! -d parts ]; then
    measure gen "$java" -cp "$B/flagtrace-bench.jar:$cp" org.flagos.trace.benchmarks.SyntheticJob traces "$R" "$E" "$S"
    export java cp W
    measure tables sh -c 'ls traces | xargs -P "$(nproc)" -I{} sh -c '"'"'"$java" -Xmx512m -Djava.io.tmpdir="$W/tmp" -cp "$cp" org.flagos.trace.cli.FlagtraceCli tables "traces/{}" -o parts.tmp --partition-by-rank > /dev/null || exit 255'"'"' && mv parts.tmp parts'
    rm -rf traces
    du -sb parts >> steps.txt
  fi
elif [ ! -s events.parquet ]; then
  measure gen "$java" -cp "$B/flagtrace-bench.jar:$cp" org.flagos.trace.benchmarks.SyntheticJob traces "$R" "$E" "$S"
  measure merge "$java" -Xmx2g -Djava.io.tmpdir="$W/tmp" -cp "$cp" org.flagos.trace.cli.FlagtraceCli merge $(ls traces/* | sort -V) -o merged.json
  rm -rf traces
  measure tables "$java" -Xmx2g -Djava.io.tmpdir="$W/tmp" -cp "$cp" org.flagos.trace.cli.FlagtraceCli tables merged.json -o events.parquet
  rm -f merged.json
  ls -la events.parquet >> steps.txt
fi
events=${events:-events.parquet}
analyze() { # analyze NAME CPUS GC...
  local name=$1 cpus=$2; shift 2
  rm -rf "out-$name" "tmp-$name"; mkdir -p "tmp-$name"
  (echo $BASHPID > "pid-$name"; exec python3 -c '
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.call(sys.argv[2:], stdout=open("analyze-%s.out" % sys.argv[1], "w"), stderr=open("analyze-%s.err" % sys.argv[1], "w"))
w = time.time() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("analyze-%s rc=%d wall=%.1fs user=%.1fs sys=%.1fs maxrss=%dKB" % (sys.argv[1], rc, w, u.ru_utime, u.ru_stime, u.ru_maxrss))
' "$name" taskset -c "$cpus" "$java" -Xmx256m -Dflagtrace.analyze.memory="${MEMORY:-1g}" "$@" -Djava.io.tmpdir="$W/tmp-$name" \
      -cp "$cp" org.flagos.trace.cli.FlagtraceCli analyze "$events" ${ONLY:+--only "$ONLY"} -o "out-$name") >> steps.txt &
  local a=$!
  monitor "$name" "pid-$name" &
  wait $a
}
for run in ${RUNS:-2cores rest}; do
  case $run in
    2cores) analyze 2cores 0-1 -XX:+UseSerialGC & ;;
    rest) analyze rest 2-$((cores - 1)) & ;;
  esac
done
wait
echo "end $(date -u +%T)" >> steps.txt
