#!/usr/bin/env bash
# ON the NVIDIA machine: which CUPTI activity kind, enabled for a while and then disabled (and flushed),
# leaves launches slower than before it (the ~0.5 µs residue after a session, docs/vendors/cupti.md)?
# Raw CUPTI only (benchmarks/device/floor/launch_floor.cpp, no Java): for ROUNDS rounds, one fresh
# process per kind set, in turn: NONE (the control: nothing armed), each kind alone, a session's kinds.
# Each process: plain, armed, after (disabled and flushed); µs per 4-byte cudaMemsetAsync, medians
# of BATCHES batches of 10,000. -> $OUT/residue-kinds.jsonl and $OUT/residue-kinds.txt (per kind set:
# medians over the rounds of armed - plain and after - plain). ROUNDS=4, BATCHES=30, CORES=2-9.
# SETS="NONE MEMSET RUNTIME,MEMSET session" picks the kind sets (space-separated; a set is comma-separated
# kind names, NONE, or session). About 70 s with the defaults on the H200.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder the results go to}"
rounds="${ROUNDS:-4}"; batches="${BATCHES:-30}"; cores="${CORES:-2-9}"
cuda=/usr/local/cuda-13.0
export PATH="$cuda/bin:$PATH"
export LD_LIBRARY_PATH="$cuda/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
scratch="$(mktemp -d /tmp/flagtrace-residue.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
nvcc -O2 -std=c++17 benchmarks/device/floor/launch_floor.cpp -o "$scratch/launch_floor" -lcupti 2> "$OUT/build.txt" \
  || { cat "$OUT/build.txt"; exit 1; }
if [[ -n "${SETS:-}" ]]; then read -r -a sets <<< "$SETS"; else
  sets=(NONE CONCURRENT_KERNEL MEMCPY MEMSET RUNTIME EXTERNAL_CORRELATION SYNCHRONIZATION OVERHEAD MEMORY2 DRIVER session)
fi
: > "$OUT/residue-kinds.jsonl"
for r in $(seq 1 "$rounds"); do
  for k in "${sets[@]}"; do
    kinds="$k"; [[ "$k" == session ]] && kinds=""
    FLOOR_KINDS="$kinds" timeout 60 taskset -c "$cores" "$scratch/launch_floor" "$batches" 10000 5 "$r" \
      >> "$OUT/residue-kinds.jsonl" 2>> "$OUT/log.txt" || echo "round $r kinds $k: failed" | tee -a "$OUT/log.txt"
  done
done
python3 - "$OUT/residue-kinds.jsonl" <<'PY' | tee "$OUT/residue-kinds.txt"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
def med(xs):
    s = sorted(xs); n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
by = {}
for r in rows:
    by.setdefault(r["kinds"], []).append(r)
print(f"{'kinds armed':<22} {'n':>2} {'plain':>7} {'armed-plain':>12} {'after-plain':>12}  after-plain per round")
for k, rs in by.items():
    inc = [r["armed"] - r["plain"] for r in rs]
    res = [r["after"] - r["plain"] for r in rs]
    print(f"{k:<22} {len(rs):>2} {med([r['plain'] for r in rs]):7.3f} {med(inc):+12.3f} {med(res):+12.3f}  "
          + " ".join(f"{x:+.3f}" for x in res))
PY
