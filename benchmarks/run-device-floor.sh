#!/usr/bin/env bash
# Issue 16 item 10, ON the NVIDIA machine, in one command (these machines are noisy: only figures
# from one run compare). From the repository root, with .device/ prepared (docs/running-on-h200.md;
# its flagtrace-benchmarks.jar must hold FloorPairProbe):
#   1. builds benchmarks/device/floor/launch_floor.cpp with nvcc (raw CUPTI in C++, no Java)
#   2. PAIRS interleaved pairs, pinned to the same CORES: launch_floor (plain, CUPTI armed with a
#      session's kinds, after disabling them) and FloorPairProbe (plain, in a flagtrace session, after
#      it), each a fresh process; the order within a pair alternates (C first in odd pairs, Java
#      first in even ones) so that a drift of the machine does not favour one side   -> $OUT/pairs.jsonl
#   3. StopToTraceProbe in STOP_JVMS fresh JVMs, 100,000 ops (500,001 events), two sessions each:
#      the first is the JVM's first session                                            -> $OUT/stop.jsonl
#      then one more with FLAGOS_TRACE=1: the close's parts (not in stop.jsonl)         -> $OUT/closing.txt
#   4. benchmarks/device/floor/pairs.py: per-pair increments and residues, medians with
#      distribution-free intervals, the targets met or not                             -> $OUT/summary.txt
# Everything else (stderr, progress) goes to $OUT/log.txt. Settings (environment): PAIRS=16,
# BATCHES=40 timed batches per phase, LAUNCHES=10000 per batch, WARMUP=5 untimed batches per phase,
# CORES=2-9, STOP_JVMS=6, PAIR_BUDGET_S=330 (no pair starts after it, so that step 3 still runs),
# CYCLES=0 and CYCLE_BATCHES=10: after its three phases each process runs CYCLES more (armed or a fresh
# session, then after), CYCLE_BATCHES timed batches each, for increments measured back to back.
# PAIRS=0 runs step 3 alone (no nvcc build, a summary of the stop lines only); STOP_JAVA_OPTS are
# added to step 3's JVMs (e.g. -Dflagtrace.warmup=false: the first session without init's warm-up).
# Each process gets 120 s at most (a hang costs one sample, not the command). StopToTraceProbe runs
# unpinned, as in run-device-live.sh. About 3-4 minutes with the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
: "${OUT:?set OUT to the folder the results go to}"
pairs="${PAIRS:-16}"; batches="${BATCHES:-40}"; launches="${LAUNCHES:-10000}"; warmup="${WARMUP:-5}"
cycles="${CYCLES:-0}"; cycle_batches="${CYCLE_BATCHES:-10}"
cores="${CORES:-2-9}"; stop_jvms="${STOP_JVMS:-6}"; pair_budget="${PAIR_BUDGET_S:-330}"
java="$root/.device/jre/bin/java"
bench_jar="$root/.device/lib/flagtrace-benchmarks.jar"
[[ -x "$java" ]] || { echo "run-device-floor.sh: $java missing (docs/running-on-h200.md)" >&2; exit 2; }
# A jar's central directory stores entry names uncompressed.
LC_ALL=C grep -aq 'org/flagos/trace/benchmarks/FloorPairProbe.class' "$bench_jar" \
  || { echo "run-device-floor.sh: $bench_jar has no FloorPairProbe: rebuild it (docs/running-on-h200.md)" >&2; exit 2; }
cuda=/usr/local/cuda-13.0
export PATH="$cuda/bin:$PATH"
export LD_LIBRARY_PATH="$cuda/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
unset FLAGOS_ACCELERATOR FLAGOS_TRACER_LIBRARY FLAGOS_TRACE
jopts=(-Dorg.bytedeco.javacpp.cachedir="$root/.device/javacpp-cache" -XX:ErrorFile="$OUT/hs_err_%p.log" -Xmx8g
       -cp "$root/.device/lib/*")
read -r -a stop_opts <<< "${STOP_JAVA_OPTS:-}"
scratch="$(mktemp -d /tmp/flagtrace-floor.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
log="$OUT/log.txt"
{
  echo "date: $(date -u +%FT%TZ)"; echo "host: $(hostname)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) x $(nproc)"
  echo "loadavg: $(cat /proc/loadavg)"
  echo "java: $("$java" -version 2>&1 | head -1)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
  echo "settings: PAIRS=$pairs BATCHES=$batches LAUNCHES=$launches WARMUP=$warmup CORES=$cores CYCLES=$cycles CYCLE_BATCHES=$cycle_batches STOP_JVMS=$stop_jvms STOP_JAVA_OPTS=${STOP_JAVA_OPTS:-}"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
} | tee "$OUT/machine.txt"

echo "== 1. build the floor" | tee -a "$log"
if (( pairs > 0 )); then
  nvcc -O2 -std=c++17 benchmarks/device/floor/launch_floor.cpp -o "$scratch/launch_floor" -lcupti >> "$log" 2>&1 \
    || { tail -20 "$log"; exit 1; }
fi

# JSON lines go on; anything else a JVM prints goes to the log. Fails when no JSON line came.
json_only() { awk -v logfile="$log" '/^\{/ { print; fflush(); n++; next } { print >> logfile } END { exit n == 0 }'; }
floor() {
  timeout 120 taskset -c "$cores" "$scratch/launch_floor" "$batches" "$launches" "$warmup" "$1" "$cycles" "$cycle_batches" 2>> "$log" | tee -a "$OUT/pairs.jsonl"
}
probe() {
  timeout 120 taskset -c "$cores" "$java" "${jopts[@]}" org.flagos.trace.benchmarks.FloorPairProbe "$batches" "$launches" "$warmup" "$1" 20 "$cycles" "$cycle_batches" \
    2>> "$log" | json_only | tee -a "$OUT/pairs.jsonl"
}
echo "== 2. $pairs pairs on cores $cores" | tee -a "$log"
: > "$OUT/pairs.jsonl"
started=$SECONDS
failures=0
for p in $(seq 1 "$pairs"); do
  if (( SECONDS - started > pair_budget )); then
    echo "run-device-floor.sh: pair budget of ${pair_budget}s spent after $((p - 1)) pairs" | tee -a "$log"
    break
  fi
  echo "-- pair $p at $((SECONDS - started))s" >> "$log"
  if (( p % 2 )); then
    floor "$p" || { failures=$((failures + 1)); echo "pair $p: launch_floor failed" | tee -a "$log"; }
    probe "$p" || { failures=$((failures + 1)); echo "pair $p: FloorPairProbe failed" | tee -a "$log"; }
  else
    probe "$p" || { failures=$((failures + 1)); echo "pair $p: FloorPairProbe failed" | tee -a "$log"; }
    floor "$p" || { failures=$((failures + 1)); echo "pair $p: launch_floor failed" | tee -a "$log"; }
  fi
  # A failure in the first pair is a setup fault, not noise: stop rather than spend the device budget.
  if (( p == 1 && failures > 0 )); then tail -30 "$log"; exit 1; fi
done
echo "pairs took $((SECONDS - started))s, $failures failed runs" | tee -a "$log"

echo "== 3. stop to trace, first session of $stop_jvms fresh JVMs" | tee -a "$log"
: > "$OUT/stop.jsonl"
mkdir -p "$scratch/stop"
for k in $(seq 1 "$stop_jvms"); do
  timeout 120 "$java" "${jopts[@]}" ${stop_opts[@]+"${stop_opts[@]}"} org.flagos.trace.benchmarks.StopToTraceProbe 100000 2 "$scratch/stop" 2>> "$log" \
    | json_only | awk -v k="$k" '{ sub(/^\{/, "{\"jvm\":" k ",\"session\":" (n++) ","); print; fflush() }' \
    | tee -a "$OUT/stop.jsonl" || echo "jvm $k: StopToTraceProbe failed" | tee -a "$log"
done

# One more fresh JVM with FLAGOS_TRACE=1, not counted above (its diagnostics cost time): what each
# close is made of (tracer stop, clock re-check, trace completion).
FLAGOS_TRACE=1 timeout 120 "$java" "${jopts[@]}" ${stop_opts[@]+"${stop_opts[@]}"} org.flagos.trace.benchmarks.StopToTraceProbe 100000 2 "$scratch/stop" \
  > "$OUT/closing.txt" 2>&1 || echo "diagnosed StopToTraceProbe failed" | tee -a "$log"
grep 'closing:' "$OUT/closing.txt" || true

echo "== 4. summary" | tee -a "$log"
if (( pairs > 0 )); then
  python3 benchmarks/device/floor/pairs.py "$OUT/pairs.jsonl" "$OUT/stop.jsonl" | tee "$OUT/summary.txt"
else
  python3 benchmarks/device/floor/pairs.py --stop-only "$OUT/stop.jsonl" | tee "$OUT/summary.txt"
fi
echo "total ${SECONDS}s" | tee -a "$log"
