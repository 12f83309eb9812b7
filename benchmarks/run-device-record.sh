#!/usr/bin/env bash
# Proof run ON the NVIDIA machine, from the repository root: records the parity workload in a JVM
# under the live CUPTI tracer (trace, summary, buffer dump), then replays the dump offline.
# Expects .device/jre and .device/lib/* (see benchmarks/run-device.sh); writes into $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
java="$PWD/.device/jre/bin/java"
export LD_LIBRARY_PATH="/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export FLAGOS_TRACE=1
opts=(-Dorg.bytedeco.javacpp.cachedir="$PWD/.device/javacpp-cache" -cp "$PWD/.device/lib/*")
name=${CAPTURE_NAME:-h200-java-parity}
mkdir -p "$OUT/capture"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/capture/gpu.txt" 2>&1
"$java" "${opts[@]}" ${FLAGTRACE_JAVA_OPTS:-} org.flagos.trace.cli.FlagtraceCli record --workload parity \
    -o "$OUT/capture/$name.live.json" --summary "$OUT/capture/$name.live-summary.json" \
    --dump-buffers "$OUT/capture/$name.fltrbuf" > "$OUT/capture/record.txt" 2>&1
echo "record exit $?" >> "$OUT/capture/record.txt"
"$java" "${opts[@]}" org.flagos.trace.cli.FlagtraceCli replay "$OUT/capture/$name.fltrbuf" \
    --ops "$OUT/capture/$name.ops.jsonl" -o "$OUT/capture/$name.replayed.json" \
    --summary "$OUT/capture/$name.replayed-summary.json" > "$OUT/capture/replay.txt" 2>&1
echo "replay exit $?" >> "$OUT/capture/replay.txt"
cat "$OUT/capture/record.txt" "$OUT/capture/replay.txt"
tar czf "$OUT/$name.tgz" -C "$OUT" capture && rm -rf "$OUT/capture"
