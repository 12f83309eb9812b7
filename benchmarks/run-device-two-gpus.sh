#!/usr/bin/env bash
# What waits for two GPUs, ON a machine of two (nvidia-h100-x2 / h200-x2), in one command:
#   1. the kinds capture in C on raw CUPTI (benchmarks/run-device-kinds.sh, CAPTURE_NAME=$PREFIX-kinds):
#      kinds::peer_copy copies device 0 to 1, CUPTI's MEMCPY2 record with its truth line; and the same work
#      under torch.profiler (torch's own event for the peer copy)          -> $PREFIX-kinds.tgz, $PREFIX-kinds-torch.tgz*
#   2. the Java kinds workload live and replayed (benchmarks/run-device-record.sh, WORKLOAD=kinds), the
#      peer copy of both traces checked by check_peer_trace.py              -> $PREFIX-java-kinds.tgz
#   3. NCCL on two GPUs: benchmarks/device/torch-run/workers.py with BACKEND=nccl under torchrun, once
#      under torch.profiler (one kineto trace a rank: collectives with their args) and once under
#      `flagtrace run` (one trace a worker, merged)                         -> nccl.tgz
# Run from the repository root with the bundle in .device/ab (jre.txz, deps.txz, the jar: device-bundle.sh), carried.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
prefix=${PREFIX:-h100x2}
source benchmarks/device-bundle.sh
# run-device-record.sh's layout (.device/jre, .device/lib/*.jar) from the same bundle
ln -sfn ab/jre .device/jre; mkdir -p .device/lib; ln -sf "$bundle"/lib/*.jar "$bundle"/flagtrace-0.1.0-SNAPSHOT.jar .device/lib/
{ date -u; nvidia-smi -L; nvidia-smi topo -m; } > "$OUT/machine.txt" 2>&1; cat "$OUT/machine.txt"
if [ "${SKIP_KINDS:-0}" != 1 ]; then
  CAPTURE_NAME=$prefix-kinds bash benchmarks/run-device-kinds.sh > "$OUT/kinds.log" 2>&1; echo "kinds exit $?"
  grep -i "MEMCPY2\|p2p\|peer\|exit" "$OUT/kinds.log" | head -30
fi
if [ "${SKIP_RECORD:-0}" != 1 ]; then
  WORKLOAD=kinds CAPTURE_NAME=$prefix-java-kinds bash benchmarks/run-device-record.sh > "$OUT/record.log" 2>&1; echo "record exit $?"
  tail -25 "$OUT/record.log"
fi
if [ "${SKIP_NCCL:-0}" != 1 ]; then
  work=$(mktemp -d); res=$OUT/nccl; mkdir -p "$res"
  torchrun=$(dirname "$(command -v python3)")/torchrun
  workers=$PWD/benchmarks/device/torch-run/workers.py
  ( cd "$work" && BACKEND=nccl TORCH_PROFILE="$res/torch" timeout 300 "$torchrun" --standalone --nproc-per-node=2 "$workers" 10 \
      > "$res/torch-stdout.txt" 2> "$res/torch-stderr.txt"; echo "torch exit $?" >> "$res/torch-stdout.txt" )
  cat "$res/torch-stdout.txt"; tail -3 "$res/torch-stderr.txt"
  ( cd "$work" && export BACKEND=nccl && ft run -d "$work/run" -- timeout 300 "$torchrun" --standalone --nproc-per-node=2 "$workers" 10 \
      > "$res/run-stdout.txt" 2> "$res/run-stderr.txt"; echo "run exit $?" >> "$res/run-stdout.txt" )
  cat "$res/run-stdout.txt"; tail -8 "$res/run-stderr.txt"; ls -la "$work/run" >> "$res/run-stdout.txt" 2>&1
  mkdir -p "$res/run"; cp "$work"/run/*.json "$res/run/" 2>/dev/null
  find "$res" -name '*.json' -size +1k -exec gzip -9 {} \;
  tar czf "$OUT/nccl.tgz" -C "$OUT" nccl; rm -rf "$res" "$work"
fi
ls -l "$OUT"
