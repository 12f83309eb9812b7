#!/usr/bin/env bash
# `flagtrace run --capture-range cudaProfilerApi` against real CUDA and CUPTI, ON the NVIDIA machine (issue 31 item 3;
# run on the fakes only before): benchmarks/device/profiler-range/
#   1. profiler_range.cu: two cudaProfilerStart/Stop spans of kernels of their own, launches outside both
#   2. profiler_range.py: torch.cuda.profiler.profile() around 10 measured steps
#   3. the same with torch.profiler (kineto, a CUPTI client of its own) inside the range, under run
#   4. the same alone (torch's trace without flagtrace: the control)
# Every trace counted by kernel name (summary.jsonl). Bundle in .device/ab as for run-device-torch-run.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
source benchmarks/device-bundle.sh
src=benchmarks/device/profiler-range; work=$(mktemp -d); res=$OUT/profiler-range; mkdir -p "$res"
summary() {  # summary LABEL TRACE...: one JSON line per trace
  for t in "${@:2}"; do python3 - "$1" "$t" <<'PY'
import collections, json, sys
label, path = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
ev = doc.get("traceEvents", [])
kern = collections.Counter(e["name"] for e in ev if e.get("cat") == "kernel")
short = collections.Counter()
for name, n in kern.items():
    short[name.split("(")[0].split("<")[0][-40:]] += n
print(json.dumps({"label": label, "trace": path.split("/")[-1], "kernels": sum(kern.values()), "by_name": dict(short),
                  "memsets": sum(e.get("cat") == "gpu_memset" for e in ev), "ops": sum(e.get("cat") == "cpu_op" for e in ev),
                  "run_end": doc.get("flagtrace_run_end"), "window": doc.get("flagtrace_run_window"),
                  "dropped": {k: v for k, v in doc.items() if k.startswith("flagtrace_run_") and k.endswith("_dropped") and v}}))
PY
  done >> "$res/summary.jsonl"
}
nvcc -O2 -arch=sm_90 -o "$work/profiler_range" "$src/profiler_range.cu" > "$res/build.txt" 2>&1 || { cat "$res/build.txt"; exit 3; }
"$work/profiler_range" > "$res/c-plain.txt" 2>&1
ft run --capture-range cudaProfilerApi -d "$work/c" -- "$work/profiler_range" > "$res/c-stdout.txt" 2> "$res/c-stderr.txt"
echo "run exit $?" >> "$res/c-stdout.txt"; ls "$work/c" >> "$res/c-stdout.txt"
summary c $(ls "$work"/c/flagtrace-[0-9]*.json 2>/dev/null)
ft run --capture-range cudaProfilerApi -d "$work/py" -- python3 "$src/profiler_range.py" 10 > "$res/py-stdout.txt" 2> "$res/py-stderr.txt"
echo "run exit $?" >> "$res/py-stdout.txt"; ls "$work/py" >> "$res/py-stdout.txt"
summary py $(ls "$work"/py/flagtrace-[0-9]*.json 2>/dev/null)
mkdir -p "$work/k" "$work/alone"
KINETO=1 TRACE_DIR="$work/k" ft run --capture-range cudaProfilerApi -d "$work/pyk" -- python3 "$src/profiler_range.py" 10 \
  > "$res/pyk-stdout.txt" 2> "$res/pyk-stderr.txt"
echo "run exit $?" >> "$res/pyk-stdout.txt"; ls "$work/pyk" "$work/k" >> "$res/pyk-stdout.txt"
summary pyk-flagtrace $(ls "$work"/pyk/flagtrace-[0-9]*.json 2>/dev/null)
summary pyk-kineto "$work/k/kineto.pt.trace.json"
KINETO=1 TRACE_DIR="$work/alone" python3 "$src/profiler_range.py" 10 > "$res/alone-stdout.txt" 2> "$res/alone-stderr.txt"
echo "exit $?" >> "$res/alone-stdout.txt"
summary alone-kineto "$work/alone/kineto.pt.trace.json"
cp "$work"/c/flagtrace-[0-9]*.json "$res/" 2>/dev/null
tar czf "$OUT/profiler-range.tgz" -C "$OUT" profiler-range
cat "$res"/*stdout.txt "$res/summary.jsonl"; tail -3 "$res"/*stderr.txt
rm -rf "$res" "$work"
