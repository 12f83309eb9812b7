#!/usr/bin/env bash
# Issue 31 items 6 and 8, ON the NVIDIA machine, in one command (only figures from one run compare):
#   1. cost: ROUNDS rounds, each a fresh process per side: benchmarks/device/inject/launch_loop.cu
#      plain, under `flagtrace run` (CUPTI armed by the injected library), under `run --start-later`
#      (loaded, never armed), and benchmarks/device/floor/launch_floor.cpp (raw CUPTI in C, the floor:
#      plain, armed, after)                                                      -> cost.jsonl
#      each run's wall beside the program's own (what flagtrace adds around it: JVM start, the replay
#      after the program's exit) and the trace's memset count and drop counters  -> cost.jsonl
#   2. on demand on real CUPTI: launch_loop under `run --start-later`, `flagtrace start` after 1 s,
#      `flagtrace stop` 1 s later: the window's trace holds some launches, fewer than the program's
#                                                                                -> ondemand.txt
#   3. torch: benchmarks/device/torch-run/train.py, 20 measured steps under torch.profiler (CPU+CUDA)
#      and, in a second process, under `flagtrace run` with torch.autograd.profiler.emit_nvtx()
#                                                                                -> torch/, flagtrace/
#      and torch's launch cost of x.add_(1): plain, under torch.profiler, under `flagtrace run`
#      (armed, and armed with emit_nvtx's ranges as ops), under `run --start-later`  -> torch-cost.jsonl
#      and once more under `run --capture-range nvtx:measured` (a window of the measured steps only)
#                                                                                -> capture-range/
# TRACES=0 runs the cost loops only (parts 1 and the torch cost of 3).
# Run from the repository root with the bundle in BUNDLE (default .device/ab: jre.txz, deps.txz and
# flagtrace-0.1.0-SNAPSHOT.jar, the jar `./flagtrace` builds, which carries flagtrace-inject/*.so).
# Compare here with benchmarks/device/torch-run/compare.py. Results: $OUT/torch-run.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
root=$PWD; source benchmarks/device-bundle.sh
res=$OUT/torch-run; rm -rf "$res"; mkdir -p "$res"; work=$(mktemp -d)
now() { date +%s.%N; }
{ echo "date: $(date -u +%FT%TZ)"; echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) x $(nproc)"
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  echo "libcupti loaded by torch at import:"; python3 -c "import torch; print(''.join(l for l in open('/proc/self/maps') if 'cupti' in l) or 'none')" | awk '{print $NF}' | sort -u
  echo "FLAGTRACE_CUPTI_LIBRARY=$FLAGTRACE_CUPTI_LIBRARY"; } > "$res/machine.txt" 2>&1
cupti_inc=$(dirname "$(find $cuda -name cupti.h | head -1)")
nvcc -O2 -o "$work/launch_loop" benchmarks/device/inject/launch_loop.cu > "$res/build.txt" 2>&1 &&
nvcc -O2 -std=c++17 -arch=sm_90 -I"$cupti_inc" -L"$lib" -o "$work/launch_floor" benchmarks/device/floor/launch_floor.cpp -lcupti >> "$res/build.txt" 2>&1 ||
  { echo "build failed"; cat "$res/build.txt"; exit 3; }
batches=${BATCHES:-20}
count() { local t=$1; [ -f "$t" ] || { echo "null"; return; }; grep -oE "\"cat\": ?\"${2:-gpu_memset}\"" "$t" | wc -l; }
drops() { local t=$1; [ -f "$t" ] && grep -oE '"(flagtrace_run_[a-z_]+|dropped[a-z_]*|unwritten_bytes)": ?("[^"]*"|[0-9]+)' "$t" | tr '\n' ' ' | sed 's/"/\\"/g'; }
for ((r = 1; r <= ${ROUNDS:-3}; r++)); do  # ROUNDS=0 skips the C cost
  line=$("$work/launch_loop" "$batches"); echo "{\"round\":$r,\"side\":\"plain\",\"result\":$line}" >> "$res/cost.jsonl"
  for side in armed disarmed; do
    d=$work/r$r-$side; extra=(); [ $side = disarmed ] && extra=(--start-later)
    t0=$(now); line=$(ft run "${extra[@]}" -d "$d" -- "$work/launch_loop" "$batches" 2> "$res/r$r-$side.err"); rc=$?; t1=$(now)
    t=$(ls "$d"/flagtrace-[0-9]*.json 2>/dev/null | grep -E '/flagtrace-[0-9]+\.json$' | head -1)
    echo "{\"round\":$r,\"side\":\"$side\",\"rc\":$rc,\"run_wall_s\":$(awk "BEGIN{print $t1 - $t0}"),\"trace_memsets\":$(count "$t"),\"result\":${line:-null},\"drops\":\"$(drops "$t")\"}" >> "$res/cost.jsonl"
    rm -rf "$d"
  done
  line=$("$work/launch_floor" "$batches" 10000 5 "$r"); echo "{\"round\":$r,\"side\":\"floor\",\"result\":${line:-null}}" >> "$res/cost.jsonl"
done
# 2. on demand on real CUPTI (ONDEMAND=0 skips it)
d=$work/ondemand
[ "${ONDEMAND:-1}" = 0 ] || ( ft run --start-later -d "$d" -- "$work/launch_loop" 400 > "$res/ondemand.stdout" 2> "$res/ondemand.err" ) & runner=$!
if [ "${ONDEMAND:-1}" != 0 ]; then
sleep 4; ft start -d "$d" >> "$res/ondemand.err" 2>&1; sleep 1; ft stop -d "$d" >> "$res/ondemand.err" 2>&1
wait $runner; echo "run exit $?" >> "$res/ondemand.txt"
{ cat "$res/ondemand.stdout"; for t in $(ls "$d"/flagtrace-*.json | grep -E '/flagtrace-[0-9]+(-w[0-9]+)?\.json$'); do echo "$(basename "$t"): memsets $(count "$t") $(drops "$t")"; done; } >> "$res/ondemand.txt" 2>&1
fi
# 3. torch (TRACES=0 leaves out the three traces and keeps the cost loops)
mkdir -p "$res/torch" "$res/flagtrace"
if [ "${TRACES:-1}" != 0 ]; then
TRACE_DIR="$res/torch" python3 benchmarks/device/torch-run/train.py torch 20 > "$res/torch/stdout.txt" 2> "$res/torch/stderr.txt"
ft run -d "$work/ftnvtx" -- python3 benchmarks/device/torch-run/train.py nvtx 20 > "$res/flagtrace/stdout.txt" 2> "$res/flagtrace/stderr.txt"
echo "run exit $?" >> "$res/flagtrace/stdout.txt"
cp "$work"/ftnvtx/flagtrace-[0-9]*.json "$res/flagtrace/" 2>/dev/null; ls -la "$work/ftnvtx" >> "$res/flagtrace/stdout.txt"
# the same with a capture range: only the NVTX range "measured" is traced (one window, -w1)
mkdir -p "$res/capture-range"
ft run --capture-range nvtx:measured -d "$work/ftrange" -- python3 benchmarks/device/torch-run/train.py nvtx 20 \
  > "$res/capture-range/stdout.txt" 2> "$res/capture-range/stderr.txt"
echo "run exit $?" >> "$res/capture-range/stdout.txt"
cp "$work"/ftrange/flagtrace-[0-9]*-w*.json "$res/capture-range/" 2>/dev/null; ls -la "$work/ftrange" >> "$res/capture-range/stdout.txt"
fi
sides=(plain torch_profiler armed armed_nvtx disarmed)
for ((r = 1; r <= ${TORCH_ROUNDS:-2}; r++)); do
  for ((i = 0; i < ${#sides[@]}; i++)); do  # each round starts one side later: no side always runs first
    side=${sides[$(((i + r - 1) % ${#sides[@]}))]}
    env=(); run=(); case $side in
      torch_profiler) env=(TORCH_PROFILE=1);; armed) run=(ft run -d "$work/t$r$side" --);;
      armed_nvtx) env=(EMIT_NVTX=1); run=(ft run -d "$work/t$r$side" --);; disarmed) run=(ft run --start-later -d "$work/t$r$side" --);;
    esac
    t0=$(now); line=$( [ ${#env[@]} -eq 0 ] || export "${env[@]}"; "${run[@]}" python3 benchmarks/device/torch-run/train.py launch 20000 2> "$res/t$r-$side.err"); rc=$?; t1=$(now)
    t=$(ls "$work/t$r$side"/flagtrace-[0-9]*.json 2>/dev/null | grep -E '/flagtrace-[0-9]+\.json$' | head -1)
    echo "{\"round\":$r,\"side\":\"$side\",\"rc\":$rc,\"wall_s\":$(awk "BEGIN{print $t1 - $t0}"),\"trace_kernels\":$(count "$t" kernel),\"result\":${line:-null},\"drops\":\"$(drops "$t")\"}" >> "$res/torch-cost.jsonl"
    rm -rf "$work/t$r$side"
  done
done
tar czf "$OUT/torch-run.tgz" -C "$OUT" torch-run
cat "$res/machine.txt" "$res/cost.jsonl" "$res/ondemand.txt" "$res/torch-cost.jsonl"; tail -n 3 "$res/flagtrace/stdout.txt" "$res/flagtrace/stderr.txt" "$res/torch/stdout.txt"
