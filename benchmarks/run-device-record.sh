#!/usr/bin/env bash
# Proof run ON the NVIDIA machine, from the repository root: records a built-in workload (WORKLOAD,
# default parity; kinds for the record kinds added since the seed) in a JVM
# under the live CUPTI tracer (trace, summary, buffer dump), then replays the dump offline.
# Expects .device/jre and .device/lib/* (docs/running-on-h200.md); writes $OUT/$name.tgz.
# Exits nonzero when the record or the replay fails (their output is still tarred into $OUT).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
java="$PWD/.device/jre/bin/java"
[[ -x "$java" ]] || { echo "run-device-record.sh: $java missing (jlinked Java 17 expected in .device/jre)" >&2; exit 2; }
compgen -G ".device/lib/*.jar" > /dev/null || { echo "run-device-record.sh: no jars in .device/lib" >&2; exit 2; }
export LD_LIBRARY_PATH="/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export FLAGOS_TRACE=1
opts=(-Dorg.bytedeco.javacpp.cachedir="$PWD/.device/javacpp-cache" -cp "$PWD/.device/lib/*")
# The kinds workload's NVTX calls from Java (benchmarks/device/java-nvtx/build.sh .device/native, here):
# NVTX hands them to CUPTI only as its injection library, the libcupti.so.13 the tracer loads.
nvtx_jni="$PWD/.device/native/libflagtrace_nvtx_jni.so"
if [[ -f $nvtx_jni ]]; then
  opts+=(-Dflagtrace.workload.nvtxLibrary="$nvtx_jni")
  export NVTX_INJECTION64_PATH="${NVTX_INJECTION64_PATH:-/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcupti.so.13}"
fi
workload=${WORKLOAD:-parity}
name=${CAPTURE_NAME:-h200-java-$workload}
mkdir -p "$OUT/capture"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/capture/gpu.txt" 2>&1
"$java" "${opts[@]}" ${FLAGTRACE_JAVA_OPTS:-} org.flagos.trace.cli.FlagtraceCli record --workload "$workload" \
    -o "$OUT/capture/$name.live.json" --summary "$OUT/capture/$name.live-summary.json" \
    --dump-buffers "$OUT/capture/$name.fltrbuf" > "$OUT/capture/record.txt" 2>&1
record=$?
echo "record exit $record" >> "$OUT/capture/record.txt"
replay=1
if [[ $record -eq 0 ]]; then
  "$java" "${opts[@]}" org.flagos.trace.cli.FlagtraceCli replay "$OUT/capture/$name.fltrbuf" \
      --ops "$OUT/capture/$name.ops.jsonl" -o "$OUT/capture/$name.replayed.json" \
      --summary "$OUT/capture/$name.replayed-summary.json" > "$OUT/capture/replay.txt" 2>&1
  replay=$?
  echo "replay exit $replay" >> "$OUT/capture/replay.txt"
fi
cat "$OUT/capture/record.txt" "$OUT/capture/replay.txt" 2>/dev/null
if [[ $workload == kinds && $record -eq 0 ]] && (( $(nvidia-smi -L 2>/dev/null | wc -l) > 1 )); then
  # Two GPUs: kinds::peer_copy copies to device 1, a MEMCPY2 record (docs/vendors/cupti.md).
  for t in live replayed; do
    python3 benchmarks/device/kinds-capture/check_peer_trace.py "$OUT/capture/$name.$t.json" > "$OUT/capture/peer-$t.txt" 2>&1
    echo "check_peer_trace $t exit $?" >> "$OUT/capture/peer-$t.txt"
    cat "$OUT/capture/peer-$t.txt"
  done
fi
tar czf "$OUT/$name.tgz" -C "$OUT" capture && rm -rf "$OUT/capture"
if [[ $record -ne 0 || $replay -ne 0 ]]; then
  echo "run-device-record.sh: record exit $record, replay exit $replay" >&2
  exit 1
fi
