#!/usr/bin/env bash
# ON the NVIDIA machine: do a thread's runtime calls, NVTX ops and NVTX marks share one row under `flagtrace run`
# (the injected library asks CUPTI for kernel thread ids, cuptiSetThreadIdType SYSTEM), and are real NVTX marks
# traced? benchmarks/device/rows/rows_probe.cu (two threads, STEPS ranges each with a kernel, a memset and a mark,
# plus a domain mark) under `ft run`; checks each thread's kernels' launches, ops and marks against the tid and counts
# the program printed. Writes $OUT/rows/check.txt; exits nonzero on a mismatch. Bundle in .device/ab.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
source benchmarks/device-bundle.sh
work=$(mktemp -d); dir="$OUT/rows"; mkdir -p "$dir"
nvcc -O2 -std=c++17 -o "$work/rows_probe" benchmarks/device/rows/rows_probe.cu > "$dir/build.txt" 2>&1 \
  || { echo "rows_probe build failed"; cat "$dir/build.txt"; exit 2; }
ft run -d "$work/traces" -- "$work/rows_probe" "${STEPS:-50}" > "$dir/stdout.txt" 2> "$dir/stderr.txt"
echo "run exit $?" >> "$dir/stdout.txt"
trace=$(ls "$work"/traces/flagtrace-[0-9]*.json | grep -E '/flagtrace-[0-9]+\.json$' | head -1)
python3 - "$trace" "$dir/stdout.txt" <<'PY' 2>&1 | tee "$dir/check.txt"
import collections, json, re, sys
trace = json.load(open(sys.argv[1]))
threads = {}
for line in open(sys.argv[2]):
    m = re.match(r"thread=(\w+) tid=(\d+) kernels=(\d+) memsets=(\d+) ranges=(\d+) marks=(\d+)", line)
    if m:
        threads[int(m.group(2))] = dict(who=m.group(1), kernels=int(m.group(3)), ranges=int(m.group(5)), marks=int(m.group(6)))
rows = collections.Counter()
names = collections.defaultdict(collections.Counter)
for e in trace["traceEvents"]:
    if e.get("ph") in ("X", "i") and e.get("cat") in ("cpu_op", "cuda_runtime", "cpu_instant_event"):
        rows[(e["cat"], e["tid"])] += 1
        if e["cat"] == "cpu_instant_event":
            names[e["tid"]][e["name"]] += 1
            if not (e["name"].startswith("mark-") or e["name"] == "domain-mark"):
                rows[(e["cat"], e["tid"])] -= 1  # an instant that is not a mark ("[memory]": an allocation's)
fail = 0
for tid, want in sorted(threads.items()):
    got = {cat: rows.get((cat, tid), 0) for cat in ("cpu_op", "cuda_runtime", "cpu_instant_event")}
    ok = got["cpu_op"] == want["ranges"] and got["cuda_runtime"] >= 2 * want["kernels"] and got["cpu_instant_event"] == want["marks"] \
        and names[tid]["mark-" + want["who"]] == want["marks"] - 1 and names[tid]["domain-mark"] == 1
    fail |= not ok
    print(want["who"], "tid", tid, "ops", got["cpu_op"], "runtime calls", got["cuda_runtime"], "marks", got["cpu_instant_event"],
          dict(names[tid]), "OK" if ok else "MISMATCH (program: %s)" % want)
other = sorted({tid for (cat, tid) in rows if tid not in threads})
print("rows of other threads:", [(cat, tid, n) for (cat, tid), n in sorted(rows.items(), key=str) if tid in other])
print("flagtrace_run counts:", {k: v for k, v in trace.items() if k.startswith("flagtrace_run")})
print("check", "FAILED" if fail or not threads else "PASSED")
sys.exit(1 if fail or not threads else 0)
PY
rc=${PIPESTATUS[0]}; rm -rf "$work"; exit $rc
