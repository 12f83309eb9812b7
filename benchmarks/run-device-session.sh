#!/usr/bin/env bash
# This session's device checks for issue 31, ON the NVIDIA machine, in one command:
#   1. torch/nvtx/capture-range: benchmarks/run-device-torch-run.sh with ROUNDS=$COST_ROUNDS (0) ONDEMAND=0 (torch vs
#      `flagtrace run` with emit_nvtx: checks the injected library's driver-launch records, cuBLASLt's
#      kernels carrying their op; then `run --capture-range nvtx:measured` on real CUPTI) -> torch-run/
#   2. a process tree: `flagtrace run -- torchrun --standalone --nproc-per-node=2 workers.py 10` on
#      one GPU: one trace per worker with distributedInfo, one merged trace            -> tree/
#   3. driver launches armed at start and mid-run (benchmarks/device/driver-arm/driver_arm.cu) -> driver-arm.jsonl
#   4. the hand-off's rate on the fakes (benchmarks/run-handoff-rate.sh)              -> handoff-rate.jsonl
#   5. CUPTI's own teardown crash, narrowed (benchmarks/native/run-device-cupti-repro.sh): REPRO_MODES
#      (toggle nopush noflush), with hogs and without (REPRO_HOGS, REPRO_SECONDS each)  -> repro.tgz
#   6. the in-process session's driver launches: `record --workload parity` (cuBLAS SGEMM) with the
#      default arming and with -Dflagtrace.cupti.driver=none and =all                    -> inproc.jsonl
#   7. every NVTX range form under `run` on real NVTX and CUPTI (benchmarks/device/nvtx-forms) -> nvtx-forms.json
#   8. a program with a CUPTI client of its own under `run`: train.py under torch.profiler (kineto), both traces
#      counted (benchmarks/device/inproc-driver/launches.py)                           -> coexist.jsonl
#   9. a JVM's in-process session with the injected library preloaded, as `run` preloads it into every process of
#      the tree: `record --workload parity`, its CUPTI registration through the library's interposer -> preloaded.jsonl
# SKIP_TORCH, SKIP_TREE, SKIP_DRIVER, SKIP_RATE, SKIP_REPRO, SKIP_INPROC, SKIP_NVTX, SKIP_COEXIST, SKIP_PRELOADED=1 leave a part out.
# Run from the repository root with the bundle in BUNDLE (default .device/ab). Results under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
source benchmarks/device-bundle.sh
work=$(mktemp -d)
if [ "${SKIP_TORCH:-0}" != 1 ]; then
  ROUNDS=${COST_ROUNDS:-0} ONDEMAND=0 TORCH_ROUNDS=${TORCH_ROUNDS:-1} bash benchmarks/run-device-torch-run.sh > "$OUT/torch-run.log" 2>&1
  echo "torch-run exit $?"; tail -5 "$OUT/torch-run.log"
  [ -f "$OUT/torch-run.tgz" ] && rm -rf "$OUT/torch-run"  # the tarball holds it: few files come back
  tar xzf "$OUT/torch-run.tgz" -O torch-run/torch-cost.jsonl 2>/dev/null
fi
if [ "${SKIP_TREE:-0}" != 1 ]; then
  res=$OUT/tree; mkdir -p "$res"; torchrun=$(dirname "$(command -v python3)")/torchrun
  ( cd "$work" && ft run -d "$work/tree" -- "$torchrun" --standalone --nproc-per-node=2 \
      "$OLDPWD/benchmarks/device/torch-run/workers.py" 10 > "$res/stdout.txt" 2> "$res/stderr.txt"; echo "run exit $?" >> "$res/stdout.txt" )
  ls -la "$work/tree" >> "$res/stdout.txt"; cp "$work"/tree/*.json "$res/" 2>/dev/null
  for f in "$res"/*.json; do gzip -9 "$f"; done
  tar czf "$OUT/tree.tgz" -C "$OUT" tree; rm -rf "$res"
  cat "$OUT/tree.tgz" > /dev/null; echo "tree: $(tar tzf "$OUT/tree.tgz" | wc -l) files"
fi
if [ "${SKIP_DRIVER:-0}" != 1 ]; then  # 3. driver launches armed at start and mid-run
  cupti_inc=$(dirname "$(find $cuda -name cupti.h | head -1)")
  nvcc -O2 -std=c++17 -arch=sm_90 -I"$cupti_inc" -L"$lib" -o "$work/driver_arm" benchmarks/device/driver-arm/driver_arm.cu -lcupti \
    > "$OUT/driver-arm-build.txt" 2>&1 || { echo "driver_arm build failed"; cat "$OUT/driver-arm-build.txt"; }
  for r in 1 2 3; do for m in ${DRIVER_MODES:-plain early mid mid_apifirst mid_driverkind mid_offfirst mid_kindonly rearm}; do
    "$work/driver_arm" $m 20000 >> "$OUT/driver-arm.jsonl" 2>> "$OUT/driver-arm.err"; done; done
  cat "$OUT/driver-arm.jsonl"; head -5 "$OUT/driver-arm.err"
fi
if [ "${SKIP_RATE:-0}" != 1 ]; then  # 4. the hand-off's rate on the fakes, with this machine's free cores
  command -v cc > /dev/null || echo "no C compiler: the hand-off rate needs one"
  python3 -c "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read('flagtrace-inject/libflagtrace_inject.so'))" \
    "$bundle/flagtrace-0.1.0-SNAPSHOT.jar" > "$work/libflagtrace_inject.so"  # the sink's library: the jar's own
  FT="$bundle/jre/bin/java -Dorg.bytedeco.javacpp.cachedir=$work/javacpp -cp $bundle/flagtrace-0.1.0-SNAPSHOT.jar:$bundle/lib/* org.flagos.trace.cli.FlagtraceCli" \
    env -u FLAGTRACE_CUPTI_LIBRARY LD_LIBRARY_PATH=/usr/local/nvidia/lib64 INJECT="$work/libflagtrace_inject.so" ROUNDS=${RATE_ROUNDS:-1} bash benchmarks/run-handoff-rate.sh ${RATE_LAUNCHES:-250000} ${RATE_THREADS:-1 2 4 8} > "$OUT/handoff-rate.jsonl" 2>&1
  echo "handoff rate exit $?"; cat "$OUT/handoff-rate.jsonl"
fi
if [ "${SKIP_REPRO:-0}" != 1 ]; then
  for hogs in ${REPRO_HOGS:-1 0}; do
    mkdir -p "$OUT/repro-hogs$hogs"
    OUT="$OUT/repro-hogs$hogs" HOGS=$hogs MODES="${REPRO_MODES:-toggle nopush noflush}" SECONDS_PER_PAIR=${REPRO_SECONDS:-90} \
      bash benchmarks/native/run-device-cupti-repro.sh > "$OUT/repro-hogs$hogs/log.txt" 2>&1
    echo "repro hogs=$hogs:"; cat "$OUT/repro-hogs$hogs/tally.txt"
    # memsets undelivered at a stop, per mode: runs, runs with any, the largest
    awk '{ m = $1; for (i = 1; i <= NF; i++) if ($i == "max") { v = $(i + 1) + 0 } runs[m]++; if (v > 0) any[m]++;
           if (v > big[m]) big[m] = v } END { for (m in runs) print m, runs[m] " runs,", any[m] + 0, "with memsets undelivered at a stop, largest", big[m] + 0 }' \
      "$OUT/repro-hogs$hogs/passes.txt" 2>/dev/null
  done
  tar czf "$OUT/repro.tgz" -C "$OUT" $(cd "$OUT" && ls -d repro-hogs*) && rm -rf "$OUT"/repro-hogs*
fi
if [ "${SKIP_INPROC:-0}" != 1 ]; then  # 6. the in-process session's driver launches (CuptiDriverLaunches)
  for mode in default none all; do
    opt=(); [ "$mode" = default ] || opt=(-Dflagtrace.cupti.driver=$mode)
    ( cd "$work" && "$bundle/jre/bin/java" -Dorg.bytedeco.javacpp.cachedir="$work/javacpp" "${opt[@]}" \
        -cp "$bundle/flagtrace-0.1.0-SNAPSHOT.jar:$bundle/lib/*" org.flagos.trace.cli.FlagtraceCli \
        record --workload parity -o "$work/inproc-$mode.json" > "$OUT/inproc-$mode.txt" 2>&1; echo "record exit $?" >> "$OUT/inproc-$mode.txt" )
    tail -2 "$OUT/inproc-$mode.txt"
    [ -f "$work/inproc-$mode.json" ] && python3 benchmarks/device/inproc-driver/launches.py "$work/inproc-$mode.json" "$mode" >> "$OUT/inproc.jsonl"
  done
  [ -f "$work/inproc-default.json" ] && gzip -9c "$work/inproc-default.json" > "$OUT/inproc-default.json.gz"
  cat "$OUT/inproc.jsonl"
fi
if [ "${SKIP_NVTX:-0}" != 1 ]; then  # 7. every NVTX range form, real NVTX v3 (CUDA's headers) and CUPTI
  nvcc -O2 -std=c++17 -arch=sm_90 -o "$work/nvtx_forms" benchmarks/device/nvtx-forms/nvtx_forms.cu > "$OUT/nvtx-forms-build.txt" 2>&1 \
    || { echo "nvtx_forms build failed"; cat "$OUT/nvtx-forms-build.txt"; }
  ( cd "$work" && ft run -d "$work/nvtx" -- "$work/nvtx_forms" 4 > "$OUT/nvtx-forms-run.txt" 2>&1; echo "run exit $?" >> "$OUT/nvtx-forms-run.txt" )
  tail -3 "$OUT/nvtx-forms-run.txt"
  t=$(ls "$work"/nvtx/flagtrace-[0-9]*.json 2>/dev/null | grep -E "/flagtrace-[0-9]+\.json$" | head -1)
  [ -n "$t" ] && python3 benchmarks/device/nvtx-forms/check.py "$t" > "$OUT/nvtx-forms.json" && cat "$OUT/nvtx-forms.json"
fi
if [ "${SKIP_COEXIST:-0}" != 1 ]; then  # 8. torch.profiler's kineto and flagtrace's injected library in one process
  mkdir -p "$work/coexist/torch"
  ( cd "$work" && TRACE_DIR="$work/coexist/torch" ft run -d "$work/coexist/ft" -- python3 "$OLDPWD/benchmarks/device/torch-run/train.py" torch 20 \
      > "$OUT/coexist-run.txt" 2>&1; echo "run exit $?" >> "$OUT/coexist-run.txt" )
  tail -4 "$OUT/coexist-run.txt"
  t=$(ls "$work"/coexist/ft/flagtrace-[0-9]*.json 2>/dev/null | grep -E "/flagtrace-[0-9]+\.json$" | tail -1)
  [ -n "$t" ] && python3 benchmarks/device/inproc-driver/launches.py "$t" flagtrace_beside_kineto >> "$OUT/coexist.jsonl"
  for f in "$work"/coexist/torch/*.json; do [ -f "$f" ] && python3 benchmarks/device/inproc-driver/launches.py "$f" kineto_beside_flagtrace >> "$OUT/coexist.jsonl"; done
  cat "$OUT/coexist.jsonl"
fi
if [ "${SKIP_PRELOADED:-0}" != 1 ]; then  # 9. the interposer passes a JVM's own CUPTI registration through
  python3 -c "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read('flagtrace-inject/libflagtrace_inject.so'))" \
    "$bundle/flagtrace-0.1.0-SNAPSHOT.jar" > "$work/preload_inject.so"
  ( cd "$work" && LD_PRELOAD="$work/preload_inject.so" "$bundle/jre/bin/java" -Dorg.bytedeco.javacpp.cachedir="$work/javacpp" \
      -cp "$bundle/flagtrace-0.1.0-SNAPSHOT.jar:$bundle/lib/*" org.flagos.trace.cli.FlagtraceCli \
      record --workload parity -o "$work/preloaded.json" > "$OUT/preloaded.txt" 2>&1; echo "record exit $?" >> "$OUT/preloaded.txt" )
  tail -2 "$OUT/preloaded.txt"
  [ -f "$work/preloaded.json" ] && python3 benchmarks/device/inproc-driver/launches.py "$work/preloaded.json" preloaded >> "$OUT/preloaded.jsonl"
  cat "$OUT/preloaded.jsonl" 2>/dev/null
fi
