#!/usr/bin/env bash
# Proof run ON the NVIDIA machine, from the repository root: records a built-in workload (WORKLOAD,
# default parity; kinds for the record kinds added since the seed) in a JVM
# under the live CUPTI tracer (trace, summary, buffer dump), then replays the dump offline.
# Expects .device/jre and .device/lib/* (docs/running-on-h200.md); writes $OUT/$name.tgz.
# Exits nonzero when the record or the replay fails (their output is still tarred into $OUT).
# With SCHEDULE (torch's keys, e.g. SCHEDULE=wait=1,warmup=1,active=2,repeat=1; the workload must
# have steps: kinds) it records STEPS steps (default 5) under that step schedule into capture/cycles/
# with --dump-cycles, one trace, buffer dump and sidecars per active cycle, then replays EACH cycle's
# dump beside its trace (X.fltrbuf -> X.replayed.json); STACK=DEPTH adds --with-stack DEPTH.
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
stack=(); [[ -n ${STACK:-} ]] && stack=(--with-stack "$STACK")
if [[ -n ${SCHEDULE:-} ]]; then
  name=${CAPTURE_NAME:-h200-java-$workload-scheduled}
  cycles="$OUT/capture/cycles"
  "$java" "${opts[@]}" ${FLAGTRACE_JAVA_OPTS:-} org.flagos.trace.cli.FlagtraceCli record --workload "$workload" \
      --schedule "$SCHEDULE" --steps "${STEPS:-5}" --trace-dir "$cycles" --dump-cycles ${stack[@]+"${stack[@]}"} \
      > "$OUT/capture/record.txt" 2>&1
  record=$?
  echo "record exit $record" >> "$OUT/capture/record.txt"
  replay=1
  if [[ $record -eq 0 ]]; then
    replay=0; n=0
    for dump in "$cycles"/*.fltrbuf; do
      [[ -e $dump ]] || break
      base="${dump%.fltrbuf}"; n=$((n + 1))
      "$java" "${opts[@]}" org.flagos.trace.cli.FlagtraceCli replay "$dump" --ops "$base.ops.jsonl" \
          -o "$base.replayed.json" >> "$OUT/capture/replay.txt" 2>&1
      rc=$?
      echo "replay $(basename "$dump") exit $rc" >> "$OUT/capture/replay.txt"
      [[ $rc -eq 0 ]] || replay=1
    done
    [[ $n -gt 0 ]] || { echo "no cycle dump in $cycles" >> "$OUT/capture/replay.txt"; replay=1; }
  fi
else
  "$java" "${opts[@]}" ${FLAGTRACE_JAVA_OPTS:-} org.flagos.trace.cli.FlagtraceCli record --workload "$workload" \
      -o "$OUT/capture/$name.live.json" --summary "$OUT/capture/$name.live-summary.json" \
      --dump-buffers "$OUT/capture/$name.fltrbuf" ${stack[@]+"${stack[@]}"} > "$OUT/capture/record.txt" 2>&1
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
fi
cat "$OUT/capture/record.txt" "$OUT/capture/replay.txt" 2>/dev/null
if [[ $workload == kinds && $record -eq 0 && -z ${SCHEDULE:-} ]] && (( $(nvidia-smi -L 2>/dev/null | wc -l) > 1 )); then
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
