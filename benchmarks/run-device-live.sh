#!/usr/bin/env bash
# The live checks of issue "Live capture tells the truth", ON the NVIDIA machine, in one command
# (these machines are noisy: only figures from one run compare). From the repository root:
#   1. run-device-record.sh          the parity capture, recorded and replayed   -> $OUT/h200-java-parity.tgz
#   2. TeardownStress                200 sessions x 8 launching threads          -> $OUT/stress.txt
#   3. StopToTraceProbe              close-to-trace for 100,000 ops, 3 sessions  -> $OUT/stop.jsonl
#   4. the CUPTI floor side by side  raw CUPTI in C, then flagtrace's JMH loop,
#                                    alternating, 3 rounds                       -> $OUT/floor.jsonl, $OUT/launch-*.txt
# Exits nonzero as soon as a step fails. Needs .device/jre, .device/lib (docs/running-on-h200.md) and
# the floor's source at $FLOOR_SRC (default .device/cupti_floor.cu, copied from
# ../shared/reference/cupti-floor-h200/cupti_floor.cu).
# STEPS="1 2 3 4" by default; a subset runs only those.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
: "${OUT:?set OUT}"
java="$root/.device/jre/bin/java"
floor_src="${FLOOR_SRC:-$root/.device/cupti_floor.cu}"
[[ -x "$java" ]] || { echo "run-device-live.sh: $java missing" >&2; exit 2; }
[[ -f "$floor_src" ]] || { echo "run-device-live.sh: floor source $floor_src missing" >&2; exit 2; }
cuda=/usr/local/cuda-13.0
export PATH="$cuda/bin:$PATH"
export LD_LIBRARY_PATH="$cuda/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
unset FLAGOS_ACCELERATOR FLAGOS_TRACER_LIBRARY
jopts=(-Dorg.bytedeco.javacpp.cachedir="$root/.device/javacpp-cache" -XX:ErrorFile="$OUT/hs_err_%p.log" -Xmx8g -cp "$root/.device/lib/*")
{
  echo "date: $(date -u +%FT%TZ)"; echo "host: $(hostname)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) x $(nproc)"
  echo "java: $("$java" -version 2>&1 | head -1)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
} > "$OUT/machine.txt"

# At most 8 files come back from the device: whatever exists at exit goes into one archive.
pack() { (cd "$OUT" && ls | grep -v -e '\.tgz$' -e '^hs_err' > .files; tar czf live-results.tgz -T .files && xargs rm -f < .files; rm -f .files) || true; }
trap pack EXIT
steps=" ${STEPS:-1 2 3 4} "
run() { [[ "$steps" == *" $1 "* ]]; }
if run 1; then echo "== 1. record"; benchmarks/run-device-record.sh > "$OUT/record.txt" 2>&1 || { cat "$OUT/record.txt"; exit 1; }
tail -3 "$OUT/record.txt"; fi
if run 2; then echo "== 2. teardown stress"
# STRESS_JAVA_OPTS: more JVM options for it, e.g. -Dflagtrace.opSettleRecords=512 (a declared bound far
# below a buffer: it grows as records are seen late, and with 8 threads' buffers interleaving records
# may still come after their op settled: counted, and each memset in the trace must still be on its op)
"$java" "${jopts[@]}" ${STRESS_JAVA_OPTS:-} org.flagos.trace.benchmarks.TeardownStress 200 8 20 2>&1 | tee "$OUT/stress.txt"; fi
if run 3; then echo "== 3. stop to trace"
"$java" "${jopts[@]}" org.flagos.trace.benchmarks.StopToTraceProbe 100000 3 2>&1 | tee "$OUT/stop.jsonl"; fi
run 4 || exit 0
echo "== 4. CUPTI floor and flagtrace side by side"
nvcc -O2 -std=c++17 -arch=sm_90 "$floor_src" -o "$OUT/cupti_floor.bin" -lcupti
for r in 1 2 3; do
  "$OUT/cupti_floor.bin" plain 30 | tee -a "$OUT/floor.jsonl"
  "$OUT/cupti_floor.bin" cupti 30 | tee -a "$OUT/floor.jsonl"
  "$java" "${jopts[@]}" org.openjdk.jmh.Main LaunchOverheadBenchmark -jvm "$java" -p mode=plain,sessionDeferred \
      -f 1 -wi 3 -i 5 -rf json -rff "$OUT/launch-$r.json" > "$OUT/launch-$r.txt" 2>&1
  grep -E "^LaunchOverheadBenchmark|<failure>" "$OUT/launch-$r.txt" || true
  ! grep -q '<failure>' "$OUT/launch-$r.txt" || { echo "run-device-live.sh: JMH failed" >&2; exit 1; }
done
rm -f "$OUT/cupti_floor.bin"
