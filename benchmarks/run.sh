#!/usr/bin/env bash
# Runs the JMH benchmarks and keeps the results with the machine and date.
#   benchmarks/run.sh [JMH regexp] [extra JMH args...]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -DskipTests test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.cp >&2
stamp="$(date -u +%Y-%m-%d)-$(hostname -s)"
out="benchmarks/results/$stamp"
mkdir -p "$out"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(hostname)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) x $(nproc)"
  echo "memory: $(free -g | awk '/Mem:/{print $2}') GiB"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo none)"
} > "$out/machine.txt"
java -cp "target/test-classes:target/classes:$(cat target/bench.cp)" org.openjdk.jmh.Main \
  "${1:-org.flagos.trace.benchmarks}" -prof gc -rf json -rff "$out/jmh.json" "${@:2}" | tee "$out/jmh.txt"
