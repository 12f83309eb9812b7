#!/usr/bin/env bash
# ON the NVIDIA machine: does a closed session leave launch overhead behind? SessionResidueProbe
# plain, with CUPTI detached at stop, and with a first session that launches nothing.
# Expects .device/ (see run-device.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
java="$PWD/.device/jre/bin/java"
export LD_LIBRARY_PATH="/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
opts=(-Dorg.bytedeco.javacpp.cachedir="$PWD/.device/javacpp-cache" -cp "$PWD/.device/lib/*")
for variant in "-Dflagtrace.cupti.finalizeAtStop=false" "-Dflagtrace.cupti.finalizeAtStop=true" "-Dprobe.emptyFirstSession=true"; do
  echo "== $variant"
  "$java" $variant "${opts[@]}" org.flagos.trace.benchmarks.SessionResidueProbe
done 2>&1 | tee "$OUT/residue.txt"
