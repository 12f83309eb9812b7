#!/usr/bin/env bash
# Issue 31, "disarmed, the launch cost stays at plain within noise": the injected library now leaves CUPTI untouched
# in a process started disarmed (on CUDA 13 drivers) and registers at its first arm. ON the NVIDIA machine:
#   1. cost: torch's x.add_(1) loop (benchmarks/device/torch-run/train.py launch 20000), ROUNDS rounds, sides in
#      rotating order, each a fresh process:
#        plain        python alone
#        deferred     `flagtrace run --start-later` (the library's default on CUDA 13: no CUPTI call until an arm)
#        start        the same with FLAGTRACE_RUN_REGISTER=start (registered at CUDA's initialisation, as before)
#        registered   no flagtrace: torch's libcupti with cuptiActivityRegisterCallbacks called (cupti_idle.py), the
#                     reference of benchmarks/results/2026-12-06-h100-d
#      expected: deferred at plain within noise, start and registered above it  -> deferred.jsonl, printed per round
#   2. windows armed later hold every kernel (benchmarks/device/torch-run/window_probe.py, 20,000 launches in the
#      window, 1,000 before and after outside it), each under deferred and FLAGTRACE_RUN_REGISTER=start:
#        startstop    `run --start-later`, `flagtrace start` from outside, the launches, `flagtrace stop`
#        nvtx         `run --capture-range nvtx:window`: armed by the program's own NVTX push (registration on its
#                     thread, inside the push)
#      expected: each window's trace holds 20,000 kernels, nothing dropped         -> windows.txt
#   3. a program's own CUPTI client before the first arm: torch.profiler (train.py torch 3) under
#      `run --start-later`, never started: flagtrace steps aside in one line, torch's trace holds its kernels
#                                                                                   -> own-client.txt
#   4. --capture-range cudaProfilerApi, which keeps registering at start (its window arms inside CUPTI's callback,
#      where registering was never tried), against FLAGTRACE_RUN_REGISTER=arm: benchmarks/device/profiler-range/
#      profiler_range.cu, two spans of 4 and 2 kernels (1 and 0 memsets)         -> profiler-range.txt
# Run from the repository root with the bundle in BUNDLE (default .device/ab, benchmarks/device-bundle.sh), the jar
# built from this tree. Results under $OUT/disarmed-deferred/.
set -uo pipefail
trap '' PIPE # a probe that died early must not take this script with it at the next `echo go`
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
work=$(mktemp -d)
source benchmarks/device-bundle.sh
res=$OUT/disarmed-deferred; rm -rf "$res"; mkdir -p "$res"
{ echo "date: $(date -u +%FT%TZ)"; echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"; } > "$res/machine.txt" 2>&1
train=benchmarks/device/torch-run/train.py
probe=benchmarks/device/torch-run/window_probe.py
# 1. cost (ROUNDS=0 skips it; ONLY_COST=1 stops after it)
sides=(plain deferred start registered)
for ((r = 1; r <= ${ROUNDS:-6}; r++)); do
  for ((i = 0; i < ${#sides[@]}; i++)); do
    side=${sides[$(((i + r - 1) % ${#sides[@]}))]}
    case $side in
      plain) line=$(python3 $train launch 20000 2> "$work/err");;
      deferred) line=$(ft run --start-later -d "$work/c$r$side" -- python3 $train launch 20000 2> "$work/err");;
      start) line=$(FLAGTRACE_RUN_REGISTER=start ft run --start-later -d "$work/c$r$side" -- python3 $train launch 20000 2> "$work/err");;
      registered) line=$(CUPTI_IDLE=registered python3 benchmarks/device/torch-run/cupti_idle.py $train launch 20000 2> "$work/err");;
    esac
    [ -n "$line" ] || { echo "round $r $side: no result" >&2; tail -3 "$work/err" >&2; }
    echo "{\"round\":$r,\"side\":\"$side\",\"result\":${line:-null}}" >> "$res/deferred.jsonl"
    rm -rf "$work/c$r$side"
  done
done
[ -f "$res/deferred.jsonl" ] && python3 - "$res/deferred.jsonl" <<'PY' | tee "$res/deferred.txt"
import json, statistics, sys
by = {}
for r in map(json.loads, open(sys.argv[1])):
    if r["result"]:
        by.setdefault(r["round"], {})[r["side"]] = statistics.median(r["result"]["us_per_op"])
for rnd, sides in sorted(by.items()):
    plain = sides.get("plain")
    print(rnd, " ".join("%s %.2f (%+.2f)" % (s, v, v - plain) if plain else "%s %.2f" % (s, v) for s, v in sorted(sides.items())))
for side in ("deferred", "start", "registered"):
    d = [s[side] - s["plain"] for s in by.values() if side in s and "plain" in s]
    if d:
        print("%s - plain: median %+.2f us, above plain in %d of %d rounds" % (side, statistics.median(d), sum(x > 0 for x in d), len(d)))
PY
[ "${ONLY_COST:-0}" = 1 ] && exit 0
# 2. windows armed later
kernels() { python3 - "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ev = [e for e in t["traceEvents"] if e.get("ph") == "X"]
drops = {k: v for k, v in t.items() if k.startswith("flagtrace_run_") and k.endswith("dropped")}
print("kernels %d memsets %d end %r dropped %s" % (sum(e.get("cat") == "kernel" for e in ev),
      sum(e.get("cat") == "gpu_memset" for e in ev), t.get("flagtrace_run_end"), drops))
PY
}
await() { for ((w = 0; w < 600; w++)); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.2; done; echo "timed out waiting for '$2' in $1" >&2; return 1; }
n=${WINDOW_KERNELS:-20000}
for register in arm start; do
  d=$work/ss-$register; rm -f "$work/in"; mkfifo "$work/in"
  FLAGTRACE_RUN_REGISTER=$register ft run --start-later -d "$d" -- python3 $probe $n < "$work/in" > "$work/ss.out" 2> "$res/startstop-$register.err" &
  runner=$!; exec 3> "$work/in"
  await "$work/ss.out" ready && ft start -d "$d" >> "$res/startstop-$register.err" 2>&1
  echo go >&3; await "$work/ss.out" window_kernels && ft stop -d "$d" >> "$res/startstop-$register.err" 2>&1
  echo go >&3; exec 3>&-; wait $runner; rc=$?
  { echo "startstop register=$register: run exit $rc; the program: $(grep window_kernels "$work/ss.out")"
    for t in "$d"/flagtrace-*-w*.json; do [[ -f "$t" && "$t" =~ -w[0-9]+\.json$ ]] && echo "  $(basename "$t"): $(kernels "$t")"; done; } >> "$res/windows.txt"
  d=$work/nv-$register
  FLAGTRACE_RUN_REGISTER=$register ft run --capture-range nvtx:window -d "$d" -- python3 $probe $n nvtx > "$work/nv.out" 2> "$res/nvtx-$register.err"; rc=$?
  { echo "nvtx register=$register: run exit $rc; the program: $(grep window_kernels "$work/nv.out")"
    for t in "$d"/flagtrace-*-w*.json; do [[ -f "$t" && "$t" =~ -w[0-9]+\.json$ ]] && echo "  $(basename "$t"): $(kernels "$t")"; done; } >> "$res/windows.txt"
done
cat "$res/windows.txt"
# 3. the program's own CUPTI client before the first arm
d=$work/own; mkdir -p "$res/own-torch"
TRACE_DIR="$res/own-torch" ft run --start-later -d "$d" -- python3 $train torch 3 > "$res/own-client.stdout" 2> "$res/own-client.err"; rc=$?
{ echo "run exit $rc"; echo "flagtrace's lines about the program's client:"; grep -i "own CUPTI client" "$res/own-client.err"
  echo "flagtrace traces: $(ls "$d" | grep -cE '^flagtrace-[0-9]+(-w[0-9]+)?\.json$')"
  for t in "$res"/own-torch/*.json; do [ -f "$t" ] && echo "torch's trace $(basename "$t"): $(grep -oE '"cat": ?"kernel"' "$t" | wc -l) kernels"; done
} > "$res/own-client.txt" 2>&1
cat "$res/own-client.txt"
# 4. the profiler API's range, registered at start (default) and at its first arm
if nvcc -O2 -arch=sm_90 -o "$work/profiler_range" benchmarks/device/profiler-range/profiler_range.cu > "$res/profiler-range-build.txt" 2>&1; then
  for register in start arm; do
    d=$work/pr-$register
    FLAGTRACE_RUN_REGISTER=$register ft run --capture-range cudaProfilerApi -d "$d" -- "$work/profiler_range" \
      > "$work/pr.out" 2> "$res/profiler-range-$register.err"; rc=$?
    { echo "cudaProfilerApi register=$register: run exit $rc; the program: $(tr '\n' ' ' < "$work/pr.out")"
      for t in "$d"/flagtrace-*-w*.json; do [[ -f "$t" && "$t" =~ -w[0-9]+\.json$ ]] && echo "  $(basename "$t"): $(kernels "$t")"; done; } >> "$res/profiler-range.txt"
  done
  cat "$res/profiler-range.txt"
else
  echo "profiler_range build failed: $res/profiler-range-build.txt"
fi
rm -rf "$work"
