#!/usr/bin/env bash
# ON the NVIDIA machine: issue 31 item 6, "stop to trace under 0.05 s, the first time too", for `flagtrace run` on real
# CUDA and CUPTI. benchmarks/device/inject/stop_to_trace_loop.cu (LAUNCHES empty kernels, an NVTX range around every
# 100) under `ft run`, each run a fresh JVM (so each window is its JVM's first), ROUNDS rounds of two routes: `arriving`
# (this build: the window replayed as its stream arrives) and `whole` (-Dflagtrace.run.arriving=0: replayed when it
# closes, the route before). Two ways a window closes:
#   exit: the program ends (its window with it): from its atexit line (after the injected library's exit flush) to the
#         trace's last write (its mtime: written to a temporary file, renamed when complete)
#   stop: `run --start-later`, `ft start` before the loop, `ft stop` after it while the program waits: from `ft stop`'s
#         return (its answer comes once the window's end is handed over) to the trace's last write, and from its call
# One JSON line per run in $OUT/stop-to-trace/results.jsonl (with the kernels in the trace, nothing dropped, and whether
# run said it replayed the window whole). Bundle in .device/ab (benchmarks/device-bundle.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
source benchmarks/device-bundle.sh
work=$(mktemp -d); dir="$OUT/stop-to-trace"; mkdir -p "$dir"
launches=${LAUNCHES:-375000}; rounds=${ROUNDS:-3}
nvcc -O2 -std=c++17 -o "$work/loop" benchmarks/device/inject/stop_to_trace_loop.cu > "$dir/build.txt" 2>&1 \
  || { echo "stop_to_trace_loop build failed"; cat "$dir/build.txt"; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$dir/machine.txt" 2>&1
echo "$(nproc) cores; $(date -u +%FT%TZ)" >> "$dir/machine.txt"
mtime() { python3 -c "import os,sys; print(os.stat(sys.argv[1]).st_mtime_ns)" "$1"; }
trace_of() { ls "$1"/flagtrace-[0-9]*.json 2>/dev/null | grep -E '/flagtrace-[0-9]+(-w[0-9]+)?\.json$' | head -1; }
facts() { python3 - "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
k = sum(1 for e in t["traceEvents"] if e.get("cat") == "kernel")
d = sum(int(v) for key, v in t.items() if key.startswith("flagtrace_run_") and key.endswith("_dropped"))
print(f'"kernels":{k},"dropped":{d},"end":{json.dumps(t.get("flagtrace_run_end"))}')
PY
}
for r in $(seq 1 "$rounds"); do
  for route in arriving whole; do
    opts=""; [ "$route" = whole ] && opts="-Dflagtrace.run.arriving=0"
    d="$work/exit-$route-$r"
    FT_OPTS="$opts" ft run -d "$d" -- "$work/loop" "$launches" > "$work/out" 2> "$work/err"; rc=$?
    exit_ns=$(grep -o 'exited realtime_ns=[0-9]*' "$work/err" | tail -1 | cut -d= -f2)
    t=$(trace_of "$d")
    if [ -z "$t" ] || [ -z "$exit_ns" ]; then echo "{\"mode\":\"exit\",\"route\":\"$route\",\"round\":$r,\"rc\":$rc,\"error\":\"no trace\"}" | tee -a "$dir/results.jsonl"; tail -5 "$work/err"; continue; fi
    echo "{\"mode\":\"exit\",\"route\":\"$route\",\"round\":$r,\"rc\":$rc,\"exit_to_trace_s\":$(python3 -c "print(($(mtime "$t") - $exit_ns) / 1e9)"),$(facts "$t"),\"replayed_whole\":$(grep -c 'replayed whole' "$work/err")}" | tee -a "$dir/results.jsonl"
    cp "$work/err" "$dir/exit-$route-$r.stderr.txt"
    rm -rf "$d"

    d="$work/stop-$route-$r"; pause="$work/pause-$r"; done_file="$work/done-$r"; rm -f "$pause" "$done_file"
    PAUSE_FILE="$pause" DONE_FILE="$done_file" FT_OPTS="$opts" ft run -d "$d" --start-later -- "$work/loop" "$launches" \
      > "$work/out" 2> "$work/err" & pid=$!
    for i in $(seq 1 3000); do [ -S "$d/.flagtrace-control.sock" ] && break; sleep 0.01; done
    sleep 1 # the program has initialised CUDA and connected
    ft start -d "$d" > "$work/start.txt" 2>&1
    touch "$pause"
    for i in $(seq 1 6000); do [ -e "$done_file" ] && break; sleep 0.01; done
    t0=$(date +%s%N); ft stop -d "$d" > "$work/stop.txt" 2>&1; t1=$(date +%s%N)
    t=""; for i in $(seq 1 6000); do t=$(trace_of "$d"); [ -n "$t" ] && break; sleep 0.01; done
    rm -f "$pause"; wait "$pid"; rc=$?
    if [ -z "$t" ]; then echo "{\"mode\":\"stop\",\"route\":\"$route\",\"round\":$r,\"rc\":$rc,\"error\":\"no trace\",\"stop\":$(python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))' < "$work/stop.txt")}" | tee -a "$dir/results.jsonl"; tail -5 "$work/err"; continue; fi
    tm=$(mtime "$t")
    echo "{\"mode\":\"stop\",\"route\":\"$route\",\"round\":$r,\"rc\":$rc,\"stop_answered_to_trace_s\":$(python3 -c "print(($tm - $t1) / 1e9)"),\"stop_called_to_trace_s\":$(python3 -c "print(($tm - $t0) / 1e9)"),$(facts "$t"),\"replayed_whole\":$(grep -c 'replayed whole' "$work/err")}" | tee -a "$dir/results.jsonl"
    cp "$work/err" "$dir/stop-$route-$r.stderr.txt"; cp "$work/stop.txt" "$dir/stop-$route-$r.stop.txt"
    rm -rf "$d"
  done
done
