#!/usr/bin/env bash
# An N-rank synthetic job of real size through both routes of docs/analysis.md, on one machine of many cores
# (issue 32's "Done when": the device machine, 16 cores, since this VM has 2), from the repository root:
#
#   benchmarks/cluster-job.sh RANKS EVENTS_PER_RANK WORKERS CORES_PER_WORKER WORKER_MEMORY ONLY
#
# 1. SyntheticJob writes RANKS torch traces (rank 41 the straggler, where there is one);
# 2. per-host tables: one cold `flagtrace tables --partition-by-rank` JVM per trace into one rank=N/ folder,
#    as many at once as the machine has cores; then `flagtrace analyze` on DuckDB over that folder;
# 3. a Spark standalone cluster (a master and WORKERS workers, each its own JVM on 127.0.0.1) and spark-submit of
#    the spark jar with --traces: the data source reads the trace folder on the executors into a rank=N/ table,
#    then every analysis of ONLY (comma-separated) is written as CSV;
# 4. the two events tables compared row for row on the cluster, and each analysis' CSV lines compared (sorted).
# Needs the bundle of benchmarks/cluster-bundle.sh in $B (default .device/cluster): jre/, lib/ (Spark's jars, DuckDB's
# Linux one, the CLI's), flagtrace.jar, flagtrace-spark.jar, flagtrace-bench.jar. Writes under $W (default
# /tmp/ftc); prints each step's wall and CPU seconds (bash's `time`: children included) and a last line
# "identical: yes|no". Any failure stops it with its line; every JVM it started is ended on exit.
set -euo pipefail
ranks=$1 events=$2 workers=$3 cores=$4 wmem=$5 only=$6
B=$(cd "${B:-.device/cluster}" && pwd)
W=${W:-/tmp/ftc}
java=$B/jre/bin/java
opens="-XX:+IgnoreUnrecognizedVMOptions --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true"
spark_cp="$B/lib/*"
cli_cp="$B/flagtrace.jar"
for j in $(cat "$B/cli-jars.txt"); do cli_cp="$cli_cp:$B/lib/$j"; done
TIMEFORMAT='%R s wall, %U s user, %S s sys'
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
# The machine's memory in use (MemTotal - MemAvailable) every 2 s; each step ends with its peak.
sample() { while sleep 2; do echo "$(date +%s) $(awk '/^MemTotal/ {t=$2} /^MemAvailable/ {a=$2} END {print int((t-a)/1024)}' /proc/meminfo)"; done; }
peak() { [ -z "${since:-}" ] || echo "   peak memory in use on the machine during the step: $(awk -v s="$since" '$1>=s && $2>m {m=$2} END {print m+0}' "$W/logs/memory.log") MiB"; }
step() { peak; since=$(date +%s); echo "== $(date -u +%H:%M:%S) $*"; }
# The master's JSON (curl where there is one; the device machine may have only python3).
master_json() {
  if command -v curl >/dev/null; then curl -s http://127.0.0.1:8080/json/
  else python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:8080/json/", timeout=5).read().decode())' 2>/dev/null
  fi
}

rm -rf "$W" && mkdir -p "$W/tmp" "$W/logs"
echo "machine: $(nproc) cores, $(awk '/^MemTotal/ {print int($2/1048576)}' /proc/meminfo) GiB ($(awk '/^MemTotal/ {t=$2} /^MemAvailable/ {a=$2} END {print int((t-a)/1024)}' /proc/meminfo) MiB in use before); $($java -version 2>&1 | head -1)"
sample >"$W/logs/memory.log" &
pids+=($!)

step "1. the job: $ranks ranks x $events events"
time "$java" -cp "$B/flagtrace-bench.jar:$cli_cp" org.flagos.trace.benchmarks.SyntheticJob "$W/traces" "$ranks" "$events" \
  $([ "$ranks" -gt 41 ] && echo 41 || echo -1)
echo "traces: $(ls "$W/traces" | wc -l) files, $(du -sh "$W/traces" | cut -f1)"

step "2a. per-host tables: $ranks cold JVMs, $(nproc) at once"
export java cli_cp W
time (ls "$W/traces" | xargs -P "$(nproc)" -I{} sh -c \
  '"$java" -Xmx512m -XX:TieredStopAtLevel=1 -Djava.io.tmpdir="$W/tmp" -cp "$cli_cp" org.flagos.trace.cli.FlagtraceCli tables "$W/traces/{}" -o "$W/parts" --partition-by-rank >/dev/null 2>>"$W/logs/tables.err" || { echo "tables {} failed"; exit 255; }')
echo "parts: $(ls "$W/parts/events" | wc -l) rank folders, $(du -sh "$W/parts" | cut -f1)"

step "2b. analyze on DuckDB (--only $only)"
time "$java" -Xmx4g -Dflagtrace.analyze.memory="${DUCK_MEMORY:-48g}" -Djava.io.tmpdir="$W/tmp" -cp "$cli_cp" \
  org.flagos.trace.cli.FlagtraceCli analyze "$W/parts" --only "$only" -o "$W/duck" >"$W/logs/analyze.out"

step "3a. the cluster: a master and $workers workers ($cores cores, $wmem each)"
mkdir -p "$W/spark-home/jars" "$W/local" "$W/events"
"$java" $opens -Xmx1g -Djava.io.tmpdir="$W/tmp" -Dspark.master.rest.enabled=false -cp "$spark_cp" \
  org.apache.spark.deploy.master.Master --host 127.0.0.1 --port 7077 --webui-port 8080 >"$W/logs/master.log" 2>&1 &
pids+=($!)
for i in $(seq 1 "$workers"); do
  SPARK_HOME="$W/spark-home" SPARK_DIST_CLASSPATH="$spark_cp" SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_DIRS="$W/local" \
  SPARK_LOCAL_IP=127.0.0.1 JAVA_HOME="$B/jre" "$java" $opens -Xmx1g -Djava.io.tmpdir="$W/tmp" -cp "$spark_cp" \
    org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --webui-port $((8080 + i)) --cores "$cores" --memory "$wmem" \
    --work-dir "$W/work$i" spark://127.0.0.1:7077 >"$W/logs/worker$i.log" 2>&1 &
  pids+=($!)
done
# Spark logs nothing here (the CLI's slf4j-nop is on the class path): the master's JSON says who is alive.
alive=0
for t in $(seq 1 120); do
  alive=$(master_json | grep -o '"state" *: *"ALIVE"' | wc -l || true)
  [ "$alive" -ge "$workers" ] && break
  sleep 1
done
echo "workers alive: $alive"
[ "$alive" -ge "$workers" ] || { echo "the workers did not register in 120 s"; exit 1; }

submit() {
  "$java" $opens -Xmx4g -Djava.io.tmpdir="$W/tmp" -cp "$spark_cp" org.apache.spark.deploy.SparkSubmit \
    --master spark://127.0.0.1:7077 --deploy-mode client --conf spark.ui.enabled=false \
    --conf spark.executor.memory="$wmem" --conf spark.executor.cores="$cores" \
    --conf "spark.executor.extraJavaOptions=$opens -Djava.io.tmpdir=$W/tmp" --conf spark.driver.host=127.0.0.1 \
    --conf spark.sql.shuffle.partitions="$((workers * cores * 2))" --conf spark.local.dir="$W/local" \
    --conf spark.sql.session.timeZone=UTC --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$W/events" \
    --conf spark.eventLog.compress=false --conf spark.eventLog.rolling.enabled=false "$@"
}
step "3b. spark-submit: the data source reads the traces, then the analyses (--only $only)"
time submit --jars "$B/flagtrace.jar" --class org.flagos.trace.spark.SparkAnalyses "$B/flagtrace-spark.jar" --traces --clock trace --only "$only" \
  "$W/traces" "$W/spark" >"$W/logs/submit.out" 2>"$W/logs/submit.err" || { tail -20 "$W/logs/submit.err"; exit 1; }
cat "$W/logs/submit.out"
echo "tasks per executor (Spark's event log): $(find "$W/events" -type f -exec cat {} + | grep '"Event":"SparkListenerTaskEnd"' \
  | grep -o '"Executor ID":"[^"]*"' | sort | uniq -c | tr -s ' \n' ' ')"

step "4a. the two events tables, row for row (on the cluster)"
time submit --class org.flagos.trace.spark.CompareTables --jars "$B/flagtrace.jar,$B/flagtrace-spark.jar" "$B/flagtrace-bench.jar" "$W/spark/events" "$W/parts" \
  >"$W/logs/compare.out" 2>"$W/logs/compare.err" || { tail -20 "$W/logs/compare.err"; exit 1; }
cat "$W/logs/compare.out"

step "4b. each analysis: the CSV lines of both engines, sorted"
same=yes
for name in ${only//,/ }; do
  a=$(tail -n +2 "$W/duck/$name.csv" | LC_ALL=C sort | sha256sum | cut -c1-16)
  b=$(for f in "$W/spark/$name"/part-*.csv; do tail -n +2 "$f"; done | LC_ALL=C sort | sha256sum | cut -c1-16)
  n=$(($(wc -l <"$W/duck/$name.csv") - 1))
  echo "$name: $n rows, DuckDB $a, Spark $b"
  [ "$a" = "$b" ] || same=no
done
grep -q "identical: yes" "$W/logs/compare.out" || same=no
peak
echo "identical: $same"
