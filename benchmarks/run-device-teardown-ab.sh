#!/usr/bin/env bash
# The live teardown stress (TeardownStress, real CUPTI) side by side under CPU contention, in one
# device command: each pair of cores gets 2 spinning hogs and runs one side's stress again and again
# until the time is up. A side is NAME=CLASSES_JAR[:JVM flags...]; the sides take the pairs of cores
# in turn. A failed run keeps its last lines and, when the JVM died, the problematic frame and the
# native frames from its hs_err file. Results under $OUT (one archive).
#
#   SECONDS_PER_PAIR=400 bash run-device-teardown-ab.sh base=base-classes.jar fix=fix-classes.jar \
#       'keep=base-classes.jar:-Dflagtrace.cupti.finalizeAtStop=false'
#
# Expects, in the folder it runs from: jre.txz (a jlinked Java 17), deps.txz (lib/ with the runtime
# jars) and test-classes.jar (TeardownStress and what it uses).
set -uo pipefail
: "${OUT:?set OUT}"
here="$PWD"
[ -x jre/bin/java ] || tar xJf jre.txz
[ -d lib ] || tar xJf deps.txz
java="$here/jre/bin/java"
cuda=/usr/local/cuda-13.0
export LD_LIBRARY_PATH="$cuda/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
unset FLAGOS_ACCELERATOR FLAGOS_TRACER_LIBRARY
budget=${SECONDS_PER_PAIR:-400}
args=${STRESS_ARGS:-40 8 20}
pairs=$(( $(nproc) / 2 ))
sides=("$@")
[ ${#sides[@]} -gt 0 ] || { echo "usage: $0 NAME=CLASSES_JAR[:FLAGS] ..." >&2; exit 2; }
{
  echo "date: $(date -u +%FT%TZ)"; echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) x $(nproc)"
  echo "java: $("$java" -version 2>&1 | head -1)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  echo "stress: TeardownStress $args, $budget s per pair of cores, $pairs pairs, sides: ${sides[*]}"
} > "$OUT/machine.txt"
hog() { taskset -c "$1" bash -c 'while :; do :; done' >/dev/null 2>&1 & echo $!; }
hogs=(); jobs=()
for ((k = 0; k < pairs; k++)); do
  side=${sides[$((k % ${#sides[@]}))]}
  name=${side%%=*}; rest=${side#*=}; jar=${rest%%:*}; extra=""; [ "$rest" != "$jar" ] && extra=${rest#*:}
  cores="$((2 * k)),$((2 * k + 1))"
  hogs+=("$(hog $((2 * k)))" "$(hog $((2 * k + 1)))")
  dir="$here/pair$k"; mkdir -p "$dir/tmp"
  (
    cd "$dir"
    log="$OUT/$name-pair$k.txt"; echo "side $name: $jar $extra, cores $cores" > "$log"
    start=$SECONDS; r=0; pass=0
    while [ $((SECONDS - start)) -lt "$budget" ]; do
      r=$((r + 1)); rm -f hs_err_*.log
      # shellcheck disable=SC2086 # extra holds flags, one word each
      timeout 90 taskset -c "$cores" "$java" --add-exports=java.base/sun.nio.ch=ALL-UNNAMED \
          --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED \
          -Dorg.bytedeco.javacpp.cachedir="$dir/javacpp-cache" -Djava.io.tmpdir="$dir/tmp" -Xmx4g $extra \
          -cp "$here/$jar:$here/test-classes.jar:$here/lib/*" org.flagos.trace.benchmarks.TeardownStress $args "$dir/tmp" \
          > run.txt 2>&1
      rc=$?
      if [ $rc -eq 0 ]; then
        pass=$((pass + 1)); echo "run $r PASS: $(tail -1 run.txt)" >> "$log"
      else
        { echo "run $r FAIL (exit $rc)"; grep -v '^\[stress\] 20 sessions' run.txt | grep -E 'Exception|Caused by|^\s+at |corrupted|malloc|free\(\)|double|SIGSEGV|SIGABRT|dropped' | head -30
          for f in hs_err_*.log; do [ -f "$f" ] || continue
            grep -A2 'Problematic frame' "$f"; sed -n '/^Native frames/,/^$/p' "$f" | head -25
            sed -n '/^Java frames/,/^$/p' "$f" | head -12; grep -m1 '^Current thread' "$f"; done; } >> "$log"
      fi
      rm -rf "$dir/tmp"/*
    done
    echo "tally $name pair$k: $pass of $r" >> "$log"
  ) &
  jobs+=($!)
done
wait "${jobs[@]}"
kill "${hogs[@]}" 2>/dev/null
grep -h '^tally' "$OUT"/*-pair*.txt | sort
(cd "$OUT" && tar czf stress.tgz ./*-pair*.txt && rm -f ./*-pair*.txt)
