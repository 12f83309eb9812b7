#!/usr/bin/env bash
# On the H200 (docs/running-on-h200.md, carry .device): FlushBarrierProbe with the session's flush
# barriers (the default) and without (-Dflagtrace.settleBarrierMs=0), in fresh JVMs, interleaved:
# launch bursts alternating with CPU-only phases under an armed CUPTI session. One JSON line per
# session into $OUT/barrier.jsonl (with "side"), the diagnosed run's stderr into $OUT/diagnosed.txt.
#   [JVMS=2] [ROUNDS=3] [CPU_OPS=100000] benchmarks/run-device-barrier.sh
set -uo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
: "${OUT:?set OUT to the folder the results go to}"
jvms="${JVMS:-2}"; rounds="${ROUNDS:-3}"; cpu_ops="${CPU_OPS:-100000}"
java="$root/.device/jre/bin/java"
[[ -x "$java" ]] || { echo "run-device-barrier.sh: $java missing (docs/running-on-h200.md)" >&2; exit 2; }
cuda=/usr/local/cuda-13.0
export LD_LIBRARY_PATH="$cuda/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
unset FLAGOS_ACCELERATOR FLAGOS_TRACER_LIBRARY FLAGOS_TRACE
jopts=(-Dorg.bytedeco.javacpp.cachedir="$root/.device/javacpp-cache" -XX:ErrorFile="$OUT/hs_err_%p.log" -Xmx4g
       -cp "$root/.device/lib/*")
scratch="$(mktemp -d /tmp/flagtrace-barrier.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
{ echo "date: $(date -u +%FT%TZ)"; echo "loadavg: $(cat /proc/loadavg)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
  echo "settings: JVMS=$jvms ROUNDS=$rounds CPU_OPS=$cpu_ops"; } > "$OUT/machine.txt"
status=0
for k in $(seq 1 "$jvms"); do
  for side in barriers none; do
    extra=(); [[ $side == none ]] && extra=(-Dflagtrace.settleBarrierMs=0)
    timeout 170 "$java" "${jopts[@]}" "${extra[@]+"${extra[@]}"}" org.flagos.trace.benchmarks.FlushBarrierProbe \
        "$rounds" "$cpu_ops" 2 "$scratch" 2>> "$OUT/stderr.txt" \
      | sed "s/^{/{\"side\":\"$side\",\"jvm\":$k,/" | tee -a "$OUT/barrier.jsonl" || { echo "jvm $k $side failed"; status=1; }
  done
done
FLAGOS_TRACE=1 timeout 170 "$java" "${jopts[@]}" org.flagos.trace.benchmarks.FlushBarrierProbe "$rounds" "$cpu_ops" 1 "$scratch" \
  > "$OUT/diagnosed.txt" 2>&1 || { echo "diagnosed run failed"; status=1; }
exit $status
