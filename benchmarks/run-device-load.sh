#!/usr/bin/env bash
# Issue 30 item 4 on the GPU machine, in one command (helper agE, 2026-12-05):
#   1. BackpressureProbe on the real CUPTI: 1 thread x 100,000 ops, then 8 threads x 25,000 ops, then
#      8 threads x 12,500 ops pinned to 2 cores beside 2 CPU hogs: every event written or counted?
#   2. the load loop (scripts/load-loop's classes) under contention: PAIRS pairs of cores, each pair
#      with 2 spinning hogs pinned to it and one LoadLoop JVM pinned to it running RUNS runs, in a
#      folder of its own (the fake libraries are compiled per folder); beside it, on the last pair,
#      TeardownStress (the live teardown stress, real CUPTI) STRESS_RUNS times, 2 hogs on that pair too.
# Expects, in the folder it runs from (carried as .device/agE; see its README): jre.txz, lib/*.jar
# (classes.jar, test-classes.jar and the test dependencies) and src/test/native. Results under $OUT.
set -uo pipefail
here="$PWD"
: "${OUT:?set OUT}"
[ -x jre/bin/java ] || tar xJf jre.txz
java="$here/jre/bin/java"
cuda=/usr/local/cuda-13.0
export LD_LIBRARY_PATH="$cuda/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
unset FLAGOS_ACCELERATOR FLAGOS_TRACER_LIBRARY
cp="$here/lib/*"
flags=(--add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
       --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED -Dorg.bytedeco.javacpp.cachedir="$here/javacpp-cache")
{
  echo "date: $(date -u +%FT%TZ)"; echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) x $(nproc)"
  echo "java: $("$java" -version 2>&1 | head -1)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
} > "$OUT/machine.txt"
hog() { taskset -c "$1" bash -c 'while :; do :; done' >/dev/null 2>&1 & echo $!; }

echo "== 1. backpressure"
bp=("$java" "${flags[@]}" -Xmx8g -cp "$cp" org.flagos.trace.benchmarks.BackpressureProbe) # timeout runs no shell function
{
  echo "# 1 thread x 100,000 ops, 2 sessions"; timeout 120 "${bp[@]}" 1 100000 2 /tmp/bp; echo "rc $?"
  echo "# 8 threads x 25,000 ops, 2 sessions"; timeout 120 "${bp[@]}" 8 25000 2 /tmp/bp; echo "rc $?"
  h1=$(hog 0); h2=$(hog 1)
  echo "# 8 threads x 12,500 ops, 2 sessions, pinned to cores 0-1 beside 2 hogs"
  timeout 180 taskset -c 0,1 "$java" "${flags[@]}" -Xmx8g -cp "$cp" org.flagos.trace.benchmarks.BackpressureProbe 8 12500 2 /tmp/bp; echo "rc $?"
  kill "$h1" "$h2"
} 2>&1 | tee "$OUT/backpressure.txt"

echo "== 2. load loop and teardown stress, under 2 hogs per pair of cores"
pairs=${PAIRS:-7}; runs=${RUNS:-3}; stress_runs=${STRESS_RUNS:-20}
p=org.flagos.trace.vendors
classes="$p.mcpti.McptiContractTest $p.mspti.MsptiContractTest $p.mupti.MuptiContractTest $p.ppu.PpuContractTest $p.roctracer.RoctracerContractTest $p.topspti.TopsptiContractTest $p.mupti.FlushBarrierSessionTest $p.mspti.MsptiFlushBarrierSessionTest $p.roctracer.RoctracerFlushBarrierSessionTest $p.mcpti.McptiManySessionsTest $p.mcpti.McptiBackpressureAccountingTest"
hogs=(); jobs=()
for ((k = 0; k < pairs; k++)); do
  c="$((2 * k)),$((2 * k + 1))"
  hogs+=("$(hog $((2 * k)))" "$(hog $((2 * k + 1)))")
  mkdir -p "pair$k/src/test" "pair$k/target/tmp"; cp -r src/test/native "pair$k/src/test/"
  (cd "pair$k" && timeout 470 taskset -c "$c" "$java" "${flags[@]}" -Xmx2g -Djava.io.tmpdir="$PWD/target/tmp" -cp "$cp" \
      org.flagos.trace.testing.LoadLoop "$runs" $classes > "$OUT/loop-pair$k.txt" 2>&1; echo "exit $?" >> "$OUT/loop-pair$k.txt") &
  jobs+=($!)
done
s=$((2 * pairs)); c="$s,$((s + 1))"
hogs+=("$(hog $s)" "$(hog $((s + 1)))")
(
  pass=0
  start=$SECONDS
  for ((r = 1; r <= stress_runs; r++)); do
    [ $((SECONDS - start)) -lt 420 ] || { echo "stress: stopped after $((r - 1)) runs (time)"; stress_runs=$((r - 1)); break; }
    if timeout 60 taskset -c "$c" "$java" "${flags[@]}" -Xmx4g -cp "$cp" org.flagos.trace.benchmarks.TeardownStress 40 8 20 > /tmp/stress-$r.txt 2>&1; then
      pass=$((pass + 1)); echo "stress run $r PASS: $(tail -1 /tmp/stress-$r.txt)"
    else
      echo "stress run $r FAIL (exit $?)"; tail -5 /tmp/stress-$r.txt
    fi
  done
  echo "teardown stress tally: $pass of $stress_runs"
) > "$OUT/stress.txt" 2>&1 &
jobs+=($!)
wait "${jobs[@]}"
kill "${hogs[@]}" 2>/dev/null
cat "$OUT"/loop-pair*.txt | grep -E '^load-loop tally|^  run |^exit' | sort | uniq -c
tail -1 "$OUT/stress.txt"
# At most 8 files come back: the loops' logs go into one archive.
(cd "$OUT" && tar czf loops.tgz loop-pair*.txt && rm -f loop-pair*.txt)
