#!/usr/bin/env bash
# Does CUPTI deliver records when its buffer callbacks are registered after the CUDA context exists (the seed says
# never)? ON the NVIDIA machine: benchmarks/device/driver-arm/driver_arm.cu in the modes plain, early, mid and
# late_register, ROUNDS rounds, one JSON line each into $OUT/late-register.jsonl (kernel_records against
# armed_driver_launches + 1 runtime launch).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
cuda=/usr/local/cuda-13.0; lib=$cuda/targets/x86_64-linux/lib
export PATH=$cuda/bin:$PATH LD_LIBRARY_PATH=$lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
work=$(mktemp -d)
cupti_inc=$(dirname "$(find $cuda -name cupti.h | head -1)")
nvcc -O2 -std=c++17 -arch=sm_90 -I"$cupti_inc" -L"$lib" -o "$work/driver_arm" benchmarks/device/driver-arm/driver_arm.cu -lcupti \
  > "$OUT/late-register-build.txt" 2>&1 || { echo "driver_arm build failed"; cat "$OUT/late-register-build.txt"; exit 2; }
for ((r = 1; r <= ${ROUNDS:-3}; r++)); do for m in plain early mid late_register; do
  "$work/driver_arm" $m 20000 >> "$OUT/late-register.jsonl" 2>> "$OUT/late-register.err"; done; done
cat "$OUT/late-register.jsonl"; head -5 "$OUT/late-register.err"; rm -rf "$work"
