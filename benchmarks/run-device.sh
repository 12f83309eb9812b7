#!/usr/bin/env bash
# Runs the live CUPTI benchmarks ON the NVIDIA machine, from the repository root:
#   LaunchOverheadBenchmark  µs per cudaMemsetAsync launch, five modes, one JVM fork each
#                            (plain, armed, runtimeAtInit, session, afterSession)   -> $OUT/launch.{json,txt}
#   TracerInitBenchmark      ms for the first Profiler.init() of a fresh JVM, RUNTIME armed at
#                            init or not, five forks each                            -> $OUT/init.{json,txt}
# About 1.5 minutes in all.
#
# Expects, prepared elsewhere (nothing is built here):
#   .device/jre     a jlinked Java 17 (with java.management and jdk.unsupported, which JMH,
#                   JavaCPP and the Disruptor need)
#   .device/lib/*   every jar: the project's classes, its test classes (with the JMH-generated
#                   classes and META-INF/BenchmarkList) and all dependencies, JMH and
#                   org.bytedeco:cuda (linux-x86_64) included
#   $OUT            the folder results go to
#
#   benchmarks/run-device.sh [extra JMH args for the launch benchmark, e.g. -p mode=plain,armed]
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

: "${OUT:?set OUT to the folder the results go to}"
mkdir -p "$OUT"
java="$root/.device/jre/bin/java"
[[ -x "$java" ]] || { echo "run-device.sh: $java missing (jlinked Java 17 expected in .device/jre)" >&2; exit 2; }
compgen -G ".device/lib/*.jar" > /dev/null || { echo "run-device.sh: no jars in .device/lib" >&2; exit 2; }

cuda=/usr/local/cuda-13.0
export LD_LIBRARY_PATH="$cuda/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
if [[ -d "$cuda/extras/CUPTI/lib64" ]]; then # where some installs keep libcupti
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$cuda/extras/CUPTI/lib64"
fi
# flagtrace's setup diagnostics (init time, what is armed, session start/stop): setup only, never per launch.
export FLAGOS_TRACE="${FLAGOS_TRACE:-1}"
unset FLAGOS_ACCELERATOR FLAGOS_TRACER_LIBRARY

# JavaCPP extracts its JNI libraries into a cache; keep it inside the checkout. JMH's forks inherit
# the host JVM's options (neither benchmark sets jvmArgs), so they use the same cache; -jvm makes
# them use the same java.
jvm_opts=(-Dorg.bytedeco.javacpp.cachedir="$root/.device/javacpp-cache")
cp="$root/.device/lib/*"

{
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(hostname)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) x $(nproc)"
  echo "java: $("$java" -version 2>&1 | head -1)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -4 | paste -sd';')"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "LD_LIBRARY_PATH: $LD_LIBRARY_PATH"
} | tee "$OUT/machine.txt"

status=0
"$java" "${jvm_opts[@]}" -cp "$cp" org.openjdk.jmh.Main LaunchOverheadBenchmark \
  -jvm "$java" -rf json -rff "$OUT/launch.json" "$@" 2>&1 | tee "$OUT/launch.txt" || status=$?

"$java" "${jvm_opts[@]}" -cp "$cp" org.openjdk.jmh.Main TracerInitBenchmark \
  -jvm "$java" -rf json -rff "$OUT/init.json" 2>&1 | tee "$OUT/init.txt" || status=$?

# JMH exits 0 when a benchmark's setup or body threw; say so instead.
if grep -q '<failure>' "$OUT/launch.txt" "$OUT/init.txt"; then
  echo "run-device.sh: some benchmark failed (see <failure> in $OUT/launch.txt / $OUT/init.txt)" >&2
  [[ $status -ne 0 ]] || status=1
fi
exit "$status"
